import type { APIRoute } from 'astro';
import { search } from '../../server/runtime.ts';

export const prerender = false;
export const ALL: APIRoute = ({ request }) => search(request);
