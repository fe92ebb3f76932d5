/**
 * What `npm start` serves with (scripts/serve.mjs), bundled by scripts/build-api.ts: the HTTP
 * server with its limits (node-server.ts, limits.ts), and for /api the same functions as the
 * Astro routes (runtime.ts) on a lean listener instead of Astro's page pipeline, which measured
 * at about twice the cost per request (bench/RESULTS.md); pages still go to Astro.
 * This is the outermost layer of the API here, so it stamps `x-request-id`, as the routing
 * middleware does on Vercel (src/api/request-id.ts).
 */
import { withRequestIds } from '../api/request-id.ts';
import { api, search, site } from './runtime.ts';
import { toNodeListener } from './node-http.ts';

const isSearch = (path: string) => path === '/api/search' || path === '/api/search/';

export const apiListener = toNodeListener(
  withRequestIds((request) => (isSearch(new URL(request.url).pathname) ? search(request) : api(request))),
  site,
);

export { site };
export { createNodeServer } from './node-server.ts';
export { limitsFromEnv, LIMIT_VARIABLES } from './limits.ts';
export { SECURITY_HEADERS } from './security-headers.ts';
