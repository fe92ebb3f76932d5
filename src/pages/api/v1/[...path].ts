import type { APIRoute } from 'astro';
import { api } from '../../../server/runtime.ts';

// Every /api/v1 request, any method, goes to the framework-agnostic core. Its answers carry no
// x-request-id, so Vercel's CDN can keep them: the routing middleware adds the id to every
// response before the cache (src/server/vercel-middleware.ts).
export const prerender = false;
export const ALL: APIRoute = ({ request }) => api(request);
