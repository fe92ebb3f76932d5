/**
 * The Vercel function that answers everything under /api: the same listener as `npm start`
 * (api-listener.ts), in Vercel's Node handler shape `(req, res)`. Vercel's CDN codes answers
 * itself, and its routing middleware stamps `x-request-id` before the cache
 * (vercel-middleware.ts), so this listener does neither. scripts/build-vercel-api.ts bundles it
 * into the build output with the history files it reads.
 */
import { createApiListener } from './api-listener.ts';
import { log, serviceWith, site } from './runtime.ts';

export default createApiListener(serviceWith(false), {
  stampRequestIds: false,
  site,
  log,
});
