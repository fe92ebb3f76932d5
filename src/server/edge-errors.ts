/**
 * Refusals written before any endpoint runs: a request Node or our checks refuse (bad framing, a
 * slow or oversized request, an unusable Host or target, a method a page does not take, the
 * connection caps) and a failure no endpoint answered. They carry the same body as the
 * endpoints' errors (src/schemas/errors.ts), with `code` the HTTP status and `error` the nearest
 * code — `not_found`, `method_not_allowed`, `server_error` for 5xx and `invalid_request` for any
 * other 4xx — and leave through the same way out (src/http/way-out.ts), never cached.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorBody, ErrorCode } from '../schemas/errors.ts';
import { JSON_TYPE } from '../api/responses.ts';
import { HEALTH_PATH } from '../endpoints.ts';
import type { Answer, Outgoing } from '../http/answer.ts';
import { rawMessage, writeOutgoing } from '../http/node-writer.ts';
import { prepare, respond } from '../http/way-out.ts';

export interface EdgeError {
  status: number;
  message: string;
  hint: string;
  headers?: Record<string, string>;
}

/** A request that failed on our side. */
export const FAILED: EdgeError = {
  status: 500,
  message: 'An error occurred while answering the request',
  hint: `This is a fault on our side, not in your request. Retry shortly; if it persists, GET ${HEALTH_PATH} reports the state of the service.`,
};

/** A request body over the server's limit (MCP has its own, src/mcp/protocol.ts LIMITS). */
export const bodyTooLarge = (limit: number): EdgeError => ({
  status: 413,
  message: 'Request body too large',
  hint: `Request bodies may be at most ${limit} bytes; the REST API and the pages take none.`,
});

/** A client that went away mid-request (its answer is never written): not our failure, nothing to log. */
export const clientGone = (error: unknown) =>
  ['ECONNRESET', 'ABORT_ERR', 'ERR_STREAM_PREMATURE_CLOSE', 'ECONNABORTED'].includes(
    (error as { code?: string } | null)?.code ?? '',
  );

function errorCodeFor(status: number): ErrorCode {
  if (status === 404) return 'not_found';
  if (status === 405) return 'method_not_allowed';
  return status >= 500 ? 'server_error' : 'invalid_request';
}

export function edgeErrorBody({ status, message, hint }: EdgeError, site: string): ErrorBody {
  const error = errorCodeFor(status);
  return { code: status, error, message, hint, documentationUrl: `${site}/docs/errors#${error}` };
}

/** The refusal as an answer: JSON, never cached. */
function refusalAnswer(error: EdgeError, site: string): Answer {
  return {
    status: error.status,
    headers: { 'content-type': JSON_TYPE, ...error.headers },
    body: JSON.stringify(edgeErrorBody(error, site)),
    cache: 'never',
  };
}

/** Through the way out, uncoded (a refusal is a few hundred bytes): never a promise. */
function outgoingOf(error: EdgeError, site: string, method: string): Outgoing {
  return respond(prepare(refusalAnswer(error, site), { coding: false }), {
    method,
    header: () => undefined,
  }) as Outgoing;
}

/** On a Node response that has not started. */
export function sendEdgeError(res: ServerResponse, error: EdgeError, site: string, method = 'GET'): void {
  writeOutgoing(res, outgoingOf(error, site, method), undefined, () => {});
}

/** As the bytes of a whole HTTP/1.1 message that closes the connection (Node's clientError, a CONNECT, a refused connection). */
export function rawEdgeError(error: EdgeError, site: string): Buffer {
  return rawMessage(outgoingOf(error, site, 'GET'));
}
