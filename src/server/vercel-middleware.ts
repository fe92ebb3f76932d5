/**
 * Vercel Routing Middleware: it runs on every /api/v1 request before Vercel's CDN cache, so each
 * response, cache hits included, gets its own `x-request-id` while the cached answer carries none.
 * The middleware never sees the answer; the headers it returns are added to it. The response below
 * is what `next({ headers })` of @vercel/functions returns ("continue, and add these headers").
 *
 * Vercel finds the middleware as `middleware.js` at the repository root, before any build runs,
 * so that file is this module bundled and committed (`npm run build:middleware`); a test fails
 * when it is stale (scripts/lib/middleware-bundle.ts says what it holds).
 */
import { API_PREFIX } from '../paths.ts';
import { requestIdHeaders } from '../http/request-id.ts';

/** The paths the middleware runs on (Vercel's `config.matcher`, path-to-regexp syntax). */
export const MIDDLEWARE_MATCHER = [`${API_PREFIX}/:path*`];

export default function middleware(request: Request): Response {
  return new Response(null, { headers: { ...requestIdHeaders(request), 'x-middleware-next': '1' } });
}
