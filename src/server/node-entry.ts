/**
 * What `npm start` serves /api with: the same functions as the Astro routes (runtime.ts), on a
 * lean Node listener instead of Astro's page pipeline, which measured at about twice the cost
 * per request (bench/RESULTS.md). Bundled by scripts/build-api.ts; pages still go to Astro.
 * This is the outermost layer of the API here, so it stamps `x-request-id`, as the routing
 * middleware does on Vercel (src/api/request-id.ts).
 */
import { withRequestIds } from '../api/request-id.ts';
import { api, search } from './runtime.ts';
import { toNodeListener } from './node-http.ts';

const isSearch = (path: string) => path === '/api/search' || path === '/api/search/';

export const apiListener = toNodeListener(withRequestIds((request) => (isSearch(new URL(request.url).pathname) ? search(request) : api(request))));

export { SECURITY_HEADERS } from './security-headers.ts';
