/**
 * `Expect: 100-continue`: a client that sends it waits for `100 Continue` before sending its body.
 * node-server.ts takes that answer from Node (its checkContinue) and refuses a body over the limit
 * without it; a request within the limit waits here until something reads its body (the API
 * listener's readBody: only MCP takes a body), so a client is never asked for a body nobody reads,
 * and an endpoint that takes none answers at once (RFC 9110, 10.1.1).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const waiting = new WeakMap<IncomingMessage, ServerResponse>();

/** The client of `req` waits for `100 Continue` before it sends the body. */
export function awaitContinue(req: IncomingMessage, res: ServerResponse): void {
  waiting.set(req, res);
}

/** About to read the body of `req`: ask its client for it, if it waits to be asked (once). */
export function askForBody(req: IncomingMessage): void {
  const res = waiting.get(req);
  if (res === undefined) return;
  waiting.delete(req);
  if (!res.headersSent) res.writeContinue();
}
