/**
 * Vercel Routing Middleware: it runs before Vercel's CDN cache and never sees the answer; the
 * headers it returns are added to it, cache hits included. Two jobs, on two sets of paths:
 *
 * - every /api/v1 request: each response gets its own `x-request-id` while the cached answer
 *   carries none (src/http/request-id.ts);
 * - every docs page: one asked for as Markdown is rewritten to its `.md` twin, and both answers say
 *   `Vary: Accept` (src/http/docs-negotiation.ts, the rule npm start applies). A docs page is a
 *   static file, which Vercel serves before any vercel.json rewrite could look at Accept; the
 *   middleware runs first. A docs page gets no request id, as with npm start.
 *
 * The responses below are what `next({ headers })` ("continue, and add these headers") and
 * `rewrite(url, { headers })` ("serve this same-deployment URL instead, and add these headers")
 * of @vercel/functions/middleware return: `x-middleware-next: 1`, or `x-middleware-rewrite` with
 * the absolute URL.
 *
 * Vercel finds the middleware as `middleware.js` at the repository root, before any build runs,
 * so that file is this module bundled and committed (`npm run build:middleware`); a test fails
 * when it is stale (scripts/lib/middleware-bundle.ts says what it holds).
 */
import { API_PREFIX } from '../paths.ts';
import { requestIdHeaders } from '../http/request-id.ts';
import { DOCS_PAGE_MATCHERS, DOCS_PAGE_VARY, negotiateDocsPage } from '../http/docs-negotiation.ts';

/** The paths the middleware runs on (Vercel's `config.matcher`, path-to-regexp syntax). */
export const MIDDLEWARE_MATCHER = [`${API_PREFIX}/:path*`, ...DOCS_PAGE_MATCHERS];

export default function middleware(request: Request): Response {
  const url = new URL(request.url);
  const page = negotiateDocsPage(url.pathname, request.headers.get('accept'));
  if (page === undefined) {
    return new Response(null, { headers: { ...requestIdHeaders(request), 'x-middleware-next': '1' } });
  }
  if (page.markdown === undefined) {
    return new Response(null, { headers: { vary: DOCS_PAGE_VARY, 'x-middleware-next': '1' } });
  }
  url.pathname = page.markdown; // the query is kept
  return new Response(null, { headers: { vary: DOCS_PAGE_VARY, 'x-middleware-rewrite': url.href } });
}
