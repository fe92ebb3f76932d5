/**
 * What `npm start` serves /api with: the same functions as the Astro routes (runtime.ts), on a
 * lean Node listener instead of Astro's page pipeline, which measured at about twice the cost
 * per request (bench/RESULTS.md). Bundled by scripts/build-api.ts; pages still go to Astro.
 */
import { api, search } from './runtime.ts';
import { toNodeListener } from './node-http.ts';

export const apiListener = toNodeListener((request) => (new URL(request.url).pathname.startsWith('/api/search') ? search(request) : api(request)));

export { SECURITY_HEADERS } from './security-headers.ts';
