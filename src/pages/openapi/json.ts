import type { APIRoute } from 'astro';
import text from '@generated/openapi.json?raw';
import { NO_STORE } from '../../api/caching.ts';
import { preflight } from '../../api/edge.ts';
import { ApiError, errorResponse } from '../../api/responses.ts';
import { siteUrl } from '../../site.ts';

// Served by the function rather than as a file: a static file named `json` has no type.
// Readable from any origin, so it answers a CORS preflight (204, cached 600 s) like the API;
// any other method but GET and HEAD is the documented 405.
export const prerender = false;
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' };
export const GET: APIRoute = () => new Response(text, { headers: HEADERS });
const LENGTH = String(new TextEncoder().encode(text).length);
export const HEAD: APIRoute = () => new Response(null, { headers: { ...HEADERS, 'content-length': LENGTH } });
export const OPTIONS: APIRoute = ({ request }) => preflight(request);
export const ALL: APIRoute = () => {
  const response = errorResponse(
    new ApiError('method_not_allowed', 'Method not allowed', 'The OpenAPI document is read-only: use GET.', {
      headers: { allow: 'GET, HEAD, OPTIONS' },
    }),
    siteUrl(),
  );
  response.headers.set('cache-control', NO_STORE);
  response.headers.set('access-control-allow-origin', '*');
  return response;
};
