/**
 * Errors answered at the edge of `npm start`, outside the core: a request Node or our checks
 * refuse before any handler runs (bad framing, a slow or oversized request, an unusable Host or
 * target, a method a page does not take, the connection cap). They carry the same body as the
 * core's errors (src/schemas/errors.ts), with `code` the HTTP status and `error` the nearest code:
 * `not_found`, `method_not_allowed`, `server_error` for 5xx and `invalid_request` for any other 4xx.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { ErrorBody, ErrorCode } from '../schemas/errors.ts';
import { JSON_TYPE } from '../api/responses.ts';
import { NO_STORE } from '../api/caching.ts';
import { HEALTH_PATH } from '../endpoints.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

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

/** A client that went away mid-request (its answer is never written): not our failure, nothing to log. */
export const clientGone = (error: unknown) =>
  ['ECONNRESET', 'ABORT_ERR', 'ERR_STREAM_PREMATURE_CLOSE', 'ECONNABORTED'].includes(
    (error as { code?: string } | null)?.code ?? '',
  );

export function errorCodeFor(status: number): ErrorCode {
  if (status === 404) return 'not_found';
  if (status === 405) return 'method_not_allowed';
  return status >= 500 ? 'server_error' : 'invalid_request';
}

export function edgeErrorBody({ status, message, hint }: EdgeError, site: string): ErrorBody {
  const error = errorCodeFor(status);
  return { code: status, error, message, hint, documentationUrl: `${site}/docs/errors#${error}` };
}

/** Headers of every edge error: JSON, never cached, readable from any origin like the API's errors. */
function headersOf(error: EdgeError, length: number): Record<string, string> {
  return {
    'content-type': JSON_TYPE,
    'content-length': String(length),
    'cache-control': NO_STORE,
    'access-control-allow-origin': '*',
    ...error.headers,
  };
}

/** As a web Response (for a handler's error path). */
export function edgeErrorResponse(error: EdgeError, site: string): Response {
  const text = JSON.stringify(edgeErrorBody(error, site));
  const { 'content-length': _, ...headers } = headersOf(error, 0);
  return new Response(text, { status: error.status, headers });
}

/** On a Node response that has not started (a page request refused before Astro sees it). */
export function sendEdgeError(res: ServerResponse, error: EdgeError, site: string, method = 'GET'): void {
  const text = JSON.stringify(edgeErrorBody(error, site));
  res.writeHead(error.status, headersOf(error, Buffer.byteLength(text)));
  res.end(method === 'HEAD' ? undefined : text);
}

/**
 * As raw bytes for a socket with no response object (Node's clientError, a CONNECT, a refused
 * connection): a whole HTTP/1.1 message that closes the connection.
 */
export function rawEdgeError(error: EdgeError, site: string): string {
  const text = JSON.stringify(edgeErrorBody(error, site));
  const headers = { ...SECURITY_HEADERS, ...headersOf(error, Buffer.byteLength(text)), connection: 'close' };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${text}`;
}
