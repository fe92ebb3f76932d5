/**
 * Writers of what the way out sends (way-out.ts), adding nothing but the caller's request id:
 * onto Node's response (a whole body in one call, a streamed one through `pipeline`, which keeps
 * the client's backpressure and stops the producer when the client goes away), or as the bytes of
 * a whole HTTP/1.1 message for a socket that has no response object.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { REQUEST_ID } from '../api/request-id.ts';
import type { Outgoing } from './answer.ts';

/** Write one answer; `onError` hears of a stream that failed after its head was sent (the response is destroyed). */
export function writeOutgoing(
  res: ServerResponse,
  { status, headers, body }: Outgoing,
  requestId: string | undefined,
  onError: (error: Error) => void,
): void {
  const flat: string[] = [];
  for (const [name, value] of headers) flat.push(name, value);
  if (requestId !== undefined) flat.push(REQUEST_ID, requestId);
  res.writeHead(status, flat);
  if (body === null || body instanceof Uint8Array) {
    res.end(body ?? undefined);
    return;
  }
  pipeline(body, res, (error) => {
    if (error) onError(error);
  });
}

/** A whole message for a bare socket (no response object), closing the connection. */
export function rawMessage({ status, headers, body }: Outgoing): Buffer {
  const lines = headers.map(([name, value]) => `${name}: ${value}`);
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body instanceof Uint8Array ? body : new Uint8Array(0)]);
}
