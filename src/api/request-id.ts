import { randomUUID } from 'node:crypto';

/** Characters and length a caller's `x-request-id` may have to be echoed; anything else is replaced. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@+=\/-]{1,128}$/;

export function requestIdFor(request: Request): string {
  const sent = request.headers.get('x-request-id');
  return sent !== null && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
}
