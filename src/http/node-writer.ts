/**
 * Writers of what the way out sends (way-out.ts), adding nothing but the caller's request id:
 * onto Node's response (a whole body in one call, a streamed one through `pipeline`, which keeps
 * the client's backpressure and stops the producer when the client goes away), or as the bytes of
 * a whole HTTP/1.1 message for a socket that has no response object.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { REQUEST_ID } from './request-id.ts';
import { isWhole, joined, type Outgoing } from './answer.ts';

/** Write one answer; `onError` hears of a stream that failed after its head was sent (the response is destroyed). */
export function writeOutgoing(
  res: ServerResponse,
  { status, headers, body }: Outgoing,
  requestId: string | undefined,
  onError: (error: Error) => void,
): void {
  res.writeHead(status, (requestId === undefined ? headers : [...headers, REQUEST_ID, requestId]) as string[]);
  if (body === null || body instanceof Uint8Array) {
    res.end(body ?? undefined);
    return;
  }
  if (Array.isArray(body)) {
    // Parts in one write (writev), none copied.
    res.cork();
    for (const part of body) res.write(part);
    res.end();
    return;
  }
  pipeline(body, res, (error) => {
    if (error) onError(error);
  });
}

/** A whole message for a bare socket (no response object), closing the connection. */
export function rawMessage({ status, headers, body }: Outgoing): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), isWhole(body) ? joined(body) : new Uint8Array(0)]);
}
