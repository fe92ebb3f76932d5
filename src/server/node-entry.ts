/**
 * What `npm start` serves with (scripts/serve.mjs), bundled by scripts/build-api.ts: the HTTP
 * server with its limits (node-server.ts, limits.ts), and for /api the same functions as the
 * Astro routes (runtime.ts) on a lean listener instead of Astro's page pipeline, which measured
 * at about twice the cost per request (bench/RESULTS.md); pages still go to Astro.
 * This is the outermost layer of the API here, so it stamps `x-request-id`, as the routing
 * middleware does on Vercel (src/api/request-id.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { withRequestIds } from '../api/request-id.ts';
import { MCP_PATH } from '../service.ts';
import { NODE_CODINGS } from './codings.ts';
import { serveFast } from './fast-path.ts';
import { api, restWith, search, site } from './runtime.ts';
import { toNodeListener } from './node-http.ts';

const isSearch = (path: string) => path === '/api/search' || path === '/api/search/';
const isMcp = (path: string) => path === MCP_PATH || path === `${MCP_PATH}/`;

/** REST with Node's codings: its ready answers feed the fast path (the MCP endpoint keeps the service's own core). */
const rest = restWith(NODE_CODINGS);

export const apiListener = toNodeListener(
  withRequestIds((request) => {
    const path = new URL(request.url).pathname;
    return isSearch(path) ? search(request) : isMcp(path) ? api(request) : rest(request);
  }),
  site,
);

/** GET and HEAD of a URL the core has a ready answer for, written without the adapter. */
export const fastListener = (req: IncomingMessage, res: ServerResponse): boolean => serveFast(rest, req, res);

export { site };
export { createNodeServer } from './node-server.ts';
export { limitsFromEnv, LIMIT_VARIABLES } from './limits.ts';
export { SECURITY_HEADERS } from './security-headers.ts';
