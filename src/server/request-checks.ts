/**
 * What every request must have before any handler sees it: one usable Host and a request target
 * that is a path. Node's parser lets through Host values that no URL can hold (`1.2.3.256`,
 * `a:99999`, `u@h`), and building the web Request from them used to throw outside any error
 * path; here they get a 400 with the documented body instead, for pages and API alike.
 */
import type { IncomingMessage } from 'node:http';
import { HEALTH_PATH } from '../endpoints.ts';
import type { EdgeError } from './edge-errors.ts';

/** A host name, IPv4 or bracketed IPv6 literal, and an optional port: no user info, spaces, escapes or path. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::\d{1,5})?$/;

const HOST_HINT =
  'Send one Host header naming this server (host or host:port, e.g. 127.0.0.1:8787); every HTTP/1.1 client does this by itself.';

function invalid(message: string, hint: string): EdgeError {
  return { status: 400, message, hint };
}

/** Host values already found usable: a server sees a handful, and checks each once (bounded). */
const usableHosts = new Set<string>();
const USABLE_HOSTS_KEPT = 64;

/** Why the request cannot be served, or undefined when its Host and target are usable. */
export function unusableRequest(req: IncomingMessage): EdgeError | undefined {
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return invalid('More than one Host header', HOST_HINT);
  const host = req.headers.host;
  if (host === undefined || host === '') {
    // HTTP/1.0 may omit it; HTTP/1.1 must send it (RFC 9112, section 3.2).
    if (req.httpVersion !== '1.0') return invalid('Missing Host header', HOST_HINT);
  } else if (!usableHosts.has(host)) {
    if (!HOST.test(host) || !URL.canParse(`http://${host}/`)) return invalid('Invalid Host header', HOST_HINT);
    if (usableHosts.size >= USABLE_HOSTS_KEPT) usableHosts.clear();
    usableHosts.add(host);
  }
  const target = req.url ?? '';
  if (target.startsWith('/')) return undefined;
  // The absolute form (`GET http://host/path`) is a proxy's; an origin server accepts it too (RFC 9112, section 3.2.2).
  if (/^https?:\/\//i.test(target) && URL.canParse(target)) return undefined;
  return invalid(
    'Invalid request target',
    `The request target must be a path starting with "/", such as ${HEALTH_PATH}.`,
  );
}

/** The target as a path and query (the absolute form reduced to it), for routing. */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const url = new URL(target);
  return `${url.pathname}${url.search}`;
}
