/**
 * What `npm start` serves with (scripts/serve.mjs), bundled by scripts/build-api.ts: the HTTP
 * server with its limits (node-server.ts, limits.ts), and for /api the same service as the Astro
 * routes (runtime.ts) on a lean listener instead of Astro's page pipeline, which measured at
 * about twice the cost per request (bench/RESULTS.md); pages still go to Astro. Node's own
 * request and response reach the service's cores directly where they can: ready REST answers
 * (fast-path.ts) and the MCP endpoint (src/mcp/node.ts); the rest goes through the web adapter.
 * This is the outermost layer of the API here, so it stamps `x-request-id`, as the routing
 * middleware does on Vercel (src/api/request-id.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { withRequestIds } from '../api/request-id.ts';
import { serveMcpNode } from '../mcp/node.ts';
import { NODE_CODINGS, NODE_WHOLE_CODINGS } from './codings.ts';
import { serveFast } from './fast-path.ts';
import { log, search, serviceWith, site } from './runtime.ts';
import { toNodeListener } from './node-http.ts';

const isSearch = (path: string) => path === '/api/search' || path === '/api/search/';

/** The service with Node's codings: its REST core keeps ready answers, coded once, for the fast path. */
const service = serviceWith(NODE_CODINGS);

export const apiListener = toNodeListener(
  withRequestIds((request) => (isSearch(new URL(request.url).pathname) ? search(request) : service(request))),
  site,
  log,
);

/** Every request to /api/v1/mcp, on Node's request and response, its answers coded as negotiated. */
export const mcpListener = async (req: IncomingMessage, res: ServerResponse): Promise<void> =>
  serveMcpNode(await service.mcpCore(), req, res, NODE_WHOLE_CODINGS);

/** GET and HEAD of a URL the core has a ready answer for, written without the adapter. */
export const fastListener = (req: IncomingMessage, res: ServerResponse): boolean => serveFast(service.rest, req, res);

export { log, site };
export { createNodeServer } from './node-server.ts';
export { limitsFromEnv, LIMIT_VARIABLES } from './limits.ts';
export { SECURITY_HEADERS } from './security-headers.ts';
