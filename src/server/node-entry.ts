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
import { NODE_CODINGS, NODE_WHOLE_CODINGS } from './codings.ts';
import { FAILED, sendEdgeError } from './edge-errors.ts';
import { serveFast } from './fast-path.ts';
import { log, search, serviceWith, site } from './runtime.ts';
import { SECURITY_HEADER_LIST } from './security-headers.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const isSearch = (path: string) => path === '/api/search' || path === '/api/search/';

/** The service with Node's codings: its REST core keeps ready answers, coded once, for the fast path. */
const service = serviceWith(NODE_CODINGS);

/**
 * Whatever the fast path does not answer (search, streamed and uncacheable answers), through the
 * web adapter, which is loaded with its first such request: a cold start answering ready URLs
 * does not load it.
 */
let adapter: Promise<Listener> | undefined;
export const apiListener: Listener = (req, res) => {
  adapter ??= import('./node-http.ts').then(({ toNodeListener }) =>
    toNodeListener(
      withRequestIds((request) => (isSearch(new URL(request.url).pathname) ? search(request) : service(request))),
      site,
      log,
    ),
  );
  adapter.then(
    (listen) => listen(req, res),
    (error: unknown) => {
      adapter = undefined;
      log('server: the API adapter failed to load:', error);
      sendEdgeError(res, FAILED, site, req.method);
    },
  );
};

/** Every request to /api/v1/mcp, on Node's request and response, its answers coded as negotiated. */
type McpListener = (req: IncomingMessage, res: ServerResponse, fail: (error: unknown) => void) => void;
let mcpLoading: Promise<McpListener> | undefined;
let mcpLoaded: McpListener | undefined;
export const mcpListener: McpListener = (req, res, fail) => {
  if (mcpLoaded) return mcpLoaded(req, res, fail);
  // Loaded once, on the first MCP request, with the MCP core: a cold start serving REST does not
  // pay for either (and a dynamic import per request would go through the module loader each time).
  mcpLoading ??= Promise.all([import('../mcp/node.ts'), service.mcpCore()]).then(
    ([{ serveMcpNode }, core]) =>
      (mcpLoaded = (req, res, fail) =>
        serveMcpNode(core, req, res, { codings: NODE_WHOLE_CODINGS, first: SECURITY_HEADER_LIST, fail })),
    (error: unknown) => {
      mcpLoading = undefined; // the next MCP request tries again, as the API adapter does
      throw error;
    },
  );
  mcpLoading.then((listen) => listen(req, res, fail)).catch(fail);
};

/** GET and HEAD answered from the REST core's ready answers, written without the adapter. */
export const fastListener = (req: IncomingMessage, res: ServerResponse) => serveFast(service.rest, req, res);

export { log, site };
export { createNodeServer } from './node-server.ts';
export { limitsFromEnv, LIMIT_VARIABLES } from './limits.ts';
export { SECURITY_HEADERS } from './security-headers.ts';
