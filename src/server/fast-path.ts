/**
 * The Node fast path of `npm start`: a GET or HEAD of a URL the core has already answered as
 * ready (src/api/ready.ts) is written from the core's kept answer straight to Node's response —
 * no web Request or Response, no Headers objects, no stream, no compression stream. Everything
 * it sends comes from the core (status, headers, coded bytes, the 304) and from the request-id
 * rule the core applied to that URL; a URL the core has not made ready takes the ordinary path,
 * which makes it ready. test/fast-path.test.ts compares the two paths request for request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../api/app.ts';
import type { ReadyAnswer, Served } from '../api/ready.ts';
import { REQUEST_ID, requestIdFrom } from '../api/request-id.ts';
import { API_PREFIX, MCP_PATH } from '../endpoints.ts';
import { SECURITY_HEADER_LIST } from './security-headers.ts';

/** The security headers every response carries (node-server.ts sets them on every other answer). */

/** A coding's headers are made once and shared (src/api/ready.ts), so their flat form is too. */
const flat = new WeakMap<readonly [string, string][], string[]>();
function flatHeaders(headers: readonly [string, string][]): string[] {
  let list = flat.get(headers);
  if (!list) flat.set(headers, (list = [...SECURITY_HEADER_LIST, ...headers.flat()]));
  return list;
}

/** May this request be answered from a ready answer: GET or HEAD, with no body. */
function readyCandidate(req: IncomingMessage): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  // A request with a body takes the ordinary path: answering at once would come before Node has
  // parsed that body, and a malformed one must still get its 400 (test/attack-edge.test.ts).
  return req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] ?? '0') === '0';
}

/** Write the answer to this request from a ready answer; false when nothing was written. */
function writeReady(core: Core, kept: ReadyAnswer, req: IncomingMessage, res: ServerResponse): boolean {
  let served: Served;
  try {
    served = core.serveReady(kept, {
      method: req.method!,
      acceptEncoding: req.headers['accept-encoding'],
      ifNoneMatch: req.headers['if-none-match'] ?? null,
    });
  } catch {
    return false; // nothing written yet: the ordinary path answers, and reports what failed
  }
  const head = flatHeaders(served.headers);
  res.writeHead(
    served.status,
    kept.requestId ? [...head, REQUEST_ID, requestIdFrom(req.headers[REQUEST_ID] as string | undefined)] : head,
  );
  const body = served.body;
  res.end(body && (body.length === 1 ? body[0] : Buffer.concat(body)));
  return true;
}

/** A target in origin form under /api/v1, other than the MCP endpoint (not the REST core's). */
function isRestTarget(target: string): boolean {
  if (!target.startsWith(`${API_PREFIX}/`)) return false;
  const path = target.split('?', 1)[0];
  return path !== MCP_PATH && path !== `${MCP_PATH}/`;
}

/**
 * Answer from the core's ready answer: true when written, false when the request must take the
 * ordinary path, or a promise of either for the first request to a URL, whose ready answer the
 * core makes first (its own routing and rules, once).
 */
export function serveFast(core: Core, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
  if (!readyCandidate(req)) return false;
  // A target the core keeps under the same key: its own normalized path and query.
  const kept = core.readyAnswer(req.url!);
  if (kept) return writeReady(core, kept, req, res);
  if (!isRestTarget(req.url!)) return false;
  return core.makeReady(req.url!).then((made) => made !== undefined && writeReady(core, made, req, res));
}
