import type { APIRoute } from 'astro';
import { api } from '../../../server/runtime.ts';

// Every /api/v1 request, any method, goes to the framework-agnostic core.
export const prerender = false;
export const ALL: APIRoute = ({ request }) => api(request);
