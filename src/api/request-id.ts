/**
 * `x-request-id` (/docs/concepts#x-request-id): echoed when the caller sends a safe one, generated
 * otherwise; absent on unknown paths, on 400s for a parameter of the wrong format, and on
 * preflights. Every answer of the MCP endpoint but its preflight carries one.
 *
 * The core's answers never carry it, so a shared cache can keep one answer for every caller. The
 * outermost layer of each deployment stamps it on every response, cache hits included: on Vercel
 * the routing middleware (src/server/vercel-middleware.ts), which runs before the CDN cache and
 * never sees the answer, so whether an answer carries the id is decided from the request alone,
 * by the route and query rules the core itself applies; with `npm start`, its API listener
 * (src/server/api-listener.ts), and in process the service's web handler (src/service.ts).
 */
import { MCP_PATH } from '../endpoints.ts';
import { ApiError } from './responses.ts';
import { isAllowedMethod, matchRoute, routeQuery } from './routes.ts';

export const REQUEST_ID = 'x-request-id';

/** Characters and length a caller's `x-request-id` may have to be echoed; anything else is replaced. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

const MCP_PATHS = new Set([MCP_PATH, `${MCP_PATH}/`]);

/** Does the answer to a request of this method and URL carry `x-request-id`? */
export function carriesRequestId(method: string, url: URL): boolean {
  if (method === 'OPTIONS') return false;
  if (MCP_PATHS.has(url.pathname)) return true; // every MCP answer, refusals included
  const route = matchRoute(url.pathname);
  if (!route) return false;
  if (!isAllowedMethod(method)) return true; // the 405 carries it
  try {
    routeQuery(route, url.searchParams);
    return true;
  } catch (error) {
    return !(error instanceof ApiError && error.options.formatError);
  }
}

/** The caller's id when it is safe to echo, else a new one. */
export function requestIdFor(request: Request): string {
  return requestIdFrom(request.headers.get(REQUEST_ID));
}

/** The same from the header's value alone (the Node listener has no Request). */
export function requestIdFrom(sent: string | null | undefined): string {
  return sent != null && SAFE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
}

/** The headers this request's response gets: its id, or none. */
export function requestIdHeaders(request: Request): Record<string, string> {
  // A Request's url is always absolute and valid.
  return carriesRequestId(request.method, new URL(request.url)) ? { [REQUEST_ID]: requestIdFor(request) } : {};
}

/** The response with this request's id, where the contract gives it one; any other id removed. */
export function stampRequestId(request: Request, response: Response): Response {
  const headers = new Headers(response.headers);
  headers.delete(REQUEST_ID);
  for (const [name, value] of Object.entries(requestIdHeaders(request))) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** A handler whose every response is stamped: what a deployment's outermost layer does. */
export function withRequestIds(
  handler: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => stampRequestId(request, await handler(request));
}
