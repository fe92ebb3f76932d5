/**
 * `x-request-id` (/docs/concepts#x-request-id): echoed when the caller sends a safe one, generated
 * otherwise; absent on unknown paths, on 400s for a parameter of the wrong format, and on
 * preflights. Every answer of the MCP endpoint but its preflight carries one.
 *
 * The core's answers never carry it, so a shared cache can keep one answer for every caller. The
 * outermost layer of each deployment stamps it on every response, cache hits included: on Vercel
 * the routing middleware (src/server/vercel-middleware.ts), which runs before the CDN cache and
 * never sees the answer, so whether an answer carries the id is decided from the request alone:
 * from the path's shape (src/paths.ts) and the parameters' formats (src/schemas/params.ts), the
 * rules the core applies too. No dataset is named here, so the middleware bundled from this module
 * changes only when these rules do. With `npm start` the stamp is its API listener's
 * (src/server/api-listener.ts), and in process the service's web handler's (src/service.ts).
 */
import { endpointSegments, isAllowedMethod, isMcpPath } from '../paths.ts';
import { formatProblem } from '../schemas/params.ts';

export const REQUEST_ID = 'x-request-id';

/** Characters and length a caller's `x-request-id` may have to be echoed; anything else is replaced. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

/**
 * Does the answer to a request of this method and URL carry `x-request-id`? Every MCP answer but
 * the preflight; on a path shaped like an endpoint (src/paths.ts endpointSegments: a slug shaped
 * `<words>-rates` that names no dataset is answered 404 with an id), every answer but a preflight
 * and a 400 for a parameter of the wrong format.
 */
export function carriesRequestId(method: string, url: URL): boolean {
  if (method === 'OPTIONS') return false;
  if (isMcpPath(url.pathname)) return true; // every MCP answer, refusals included
  if (!endpointSegments(url.pathname)) return false;
  if (!isAllowedMethod(method)) return true; // the 405 carries it
  return formatProblem(url.searchParams) === undefined;
}

/** The caller's id when it is safe to echo, else a new one. */
function requestIdFor(request: Request): string {
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
function stampRequestId(request: Request, response: Response): Response {
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
