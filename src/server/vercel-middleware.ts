/**
 * Vercel Routing Middleware (vercel.json `proxy.entrypoint`): it runs on every /api/v1 request
 * before Vercel's CDN cache, so each response, cache hits included, gets its own `x-request-id`
 * while the cached answer carries none. The middleware never sees the answer; the headers it
 * returns are added to it. The response below is what `next({ headers })` of @vercel/functions
 * returns ("continue, and add these headers to the response").
 */
import { requestIdHeaders } from '../api/request-id.ts';

// A literal, not API_PREFIX from src/endpoints.ts: Vercel reads the matcher from the source at build time
// and cannot evaluate an imported constant.
export const config = { matcher: ['/api/v1/:path*'] };

export default function middleware(request: Request): Response {
  return new Response(null, { headers: { ...requestIdHeaders(request), 'x-middleware-next': '1' } });
}
