/**
 * What `npm start` serves with (scripts/serve.mjs), bundled by scripts/build-api.ts: the HTTP
 * server with its limits (node-server.ts, limits.ts) and the API listener (api-listener.ts) over
 * the deployed service, coding its answers and, as the outermost layer here, stamping
 * `x-request-id` (src/http/request-id.ts). Pages go to Astro.
 */
import '../lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { createApiListener } from './api-listener.ts';
import { log, serviceWith, site } from './runtime.ts';

export const apiListener = createApiListener(serviceWith(true), {
  stampRequestIds: true,
  site,
  log,
});

export { log, site };
export { createNodeServer } from './node-server.ts';
export { limitsFromEnv, LIMIT_VARIABLES } from './limits.ts';
export { SECURITY_HEADERS } from '../http/security-headers.ts';
