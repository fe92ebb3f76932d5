import type { APIRoute } from 'astro';
import { withRequestIds } from '../../../api/request-id.ts';
import { api } from '../../../server/runtime.ts';

// Every /api/v1 request, any method, goes to the framework-agnostic core. Its answers carry no
// x-request-id: on Vercel the routing middleware adds it before the CDN cache
// (src/server/vercel-middleware.ts). `astro dev` has no such layer, so there the route stamps.
const handle = import.meta.env.DEV ? withRequestIds(api) : api;

export const prerender = false;
export const ALL: APIRoute = ({ request }) => handle(request);
