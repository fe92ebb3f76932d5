import type { APIRoute } from 'astro';
import { api } from '../../server/runtime.ts';

// Any other /api path (not /api/v1/*, not /api/search): the core's JSON 404 not_found, as
// `npm start` answers, instead of the site's HTML 404.
export const prerender = false;
export const ALL: APIRoute = ({ request }) => api(request);
