/**
 * The way out: every answer under /api — REST, MCP, the docs search, and the refusals written
 * before any routing (bad framing, timeouts, the connection caps, an unusable Host) — leaves
 * through here, on `npm start` and in the Vercel function alike. The HTTP rules live here, once:
 * the security headers, CORS, caching, content coding, conditional GET and HEAD. A header every
 * API answer should carry is one edit to `prepare`.
 *
 * Two steps, so that an answer kept for reuse (kept-answers.ts) does the first only once:
 * `prepare` applies what does not depend on who asks; `respond` makes one caller's answer (its
 * coding, its 304, its HEAD). The service's `serve` (src/service.ts) calls both for every answer
 * under /api, in the one place the path from a core to the socket reads whole; the refusals
 * before routing call them in src/server/edge-errors.ts. The request id, the one header that
 * differs per caller, is added by the deployment's outermost layer (src/http/request-id.ts), never
 * here: an answer from here is the same for every caller, which is what lets a cache keep it.
 */
import { corsHeaders, READ_ONLY_CORS } from './cors.ts';
import { cacheControlFor, matchesEtag, NO_STORE, VERCEL_CDN_CACHE_CONTROL } from './caching.ts';
import { SECURITY_HEADERS } from './security-headers.ts';
import {
  inBytes,
  isWhole,
  joined,
  lengthOf,
  type Answer,
  type Outgoing,
  type RequestHead,
  type Whole,
} from './answer.ts';
import { CODING_THRESHOLD, encodeStream, encodeWhole, negotiate, type Encoding } from './coding.ts';

export interface WayOutOptions {
  /** Does this deployment code its answers (`npm start`), or leave it to a CDN (Vercel)? */
  coding: boolean;
  /** Is the answer reused (kept for its second), so each coding is made once rather than per caller? */
  reused?: boolean;
}

/** An answer with every rule applied that is the same for all callers. */
export interface Prepared {
  status: number;
  /** Every header but content-length and content-encoding, which depend on the coding. */
  headers: readonly (readonly [string, string])[];
  etag?: string;
  /** Whole, as bytes (kept answers are always whole), or sent as it is produced. */
  body: Whole | AsyncIterable<Uint8Array> | null;
  /** May a caller get it coded: coding on, and a body long enough to be worth it (a stream always is). */
  codable: boolean;
  /** Reused by many callers (WayOutOptions.reused): worth coding smaller, as it is coded once. */
  reused: boolean;
  /** A whole body's representation per coding, made on first use and shared by later callers. */
  representations: Map<Encoding, Representation | Promise<Representation>>;
}

interface Representation {
  /** Names and values in turn, as a writer sends them: made once per representation. */
  headers: readonly string[];
  /** The 304's headers: the representation's without its content headers. */
  notModified: readonly string[];
  etag?: string;
  body: Whole;
}

const SECURITY = Object.entries(SECURITY_HEADERS);
/** Headers a 304 leaves out: they describe a body it does not have. */
const CONTENT_HEADERS = new Set(['content-type', 'content-length', 'content-encoding']);

/** `"v.hash"` → `"v.hash-br"`: each coding is its own representation, with its own strong ETag. */
function codedEtag(etag: string, encoding: Encoding): string {
  return encoding === 'identity' ? etag : `${etag.slice(0, -1)}-${encoding}"`;
}

/** The rules that do not depend on the caller: made once per answer. */
export function prepare(answer: Answer, options: WayOutOptions): Prepared {
  const { status } = answer;
  const body = inBytes(answer.body);
  const headers: [string, string][] = [...SECURITY];
  for (const [name, value] of Object.entries(answer.headers)) headers.push([name.toLowerCase(), value]);
  headers.push(...corsHeaders(answer.cors ?? READ_ONLY_CORS));
  const cacheControl = answer.cache === 'never' ? NO_STORE : cacheControlFor('data', status);
  headers.push(['cache-control', cacheControl]);
  // Read by Vercel's CDN alone: it keeps a cacheable answer for the life of the deployment.
  if (cacheControl !== NO_STORE) headers.push(['vercel-cdn-cache-control', VERCEL_CDN_CACHE_CONTROL]);
  const codable = options.coding && body !== null && (!isWhole(body) || lengthOf(body) >= CODING_THRESHOLD);
  // Where the deployment codes, every answer with a body may differ by Accept-Encoding.
  if (options.coding && body !== null) headers.push(['vary', 'Accept-Encoding']);
  const reused = options.reused ?? false;
  return { status, headers, etag: answer.headers.etag, body, codable, reused, representations: new Map() };
}

/** A representation's headers (flat: names and values in turn), its 304's, and its ETag. */
function withCoding(prepared: Prepared, encoding: Encoding, length?: number) {
  const etag = prepared.etag === undefined ? undefined : codedEtag(prepared.etag, encoding);
  const headers: string[] = [];
  const notModified: string[] = [];
  const add = (name: string, value: string) => {
    headers.push(name, value);
    if (!CONTENT_HEADERS.has(name)) notModified.push(name, value);
  };
  for (const [name, value] of prepared.headers) add(name, name === 'etag' ? etag! : value);
  if (encoding !== 'identity') add('content-encoding', encoding);
  if (length !== undefined) add('content-length', String(length));
  return { etag, headers, notModified };
}

/** A whole body's representation in a coding: made once per prepared answer, then shared. */
function representation(
  prepared: Prepared & { body: Whole },
  encoding: Encoding,
): Representation | Promise<Representation> {
  let rep = prepared.representations.get(encoding);
  if (rep) return rep;
  const make = (body: Whole): Representation => ({ ...withCoding(prepared, encoding, lengthOf(body)), body });
  if (encoding === 'identity') rep = make(prepared.body);
  else {
    rep = encodeWhole(joined(prepared.body), encoding, prepared.reused ? 'once' : 'per-caller').then(
      make,
      (error: unknown) => {
        prepared.representations.delete(encoding); // the next caller tries again
        throw error;
      },
    );
  }
  prepared.representations.set(encoding, rep);
  return rep;
}

/** Leave an unsent stream: its producer (a time series reading years of history) stops. */
function abandon(body: AsyncIterable<Uint8Array>): void {
  void body[Symbol.asyncIterator]().return?.();
}

/**
 * One caller's answer: the coding it accepts, a 304 when it already holds this representation, no
 * body for HEAD. HEAD describes the representation its GET would get — the same coding, ETag and
 * length (RFC 9110, 9.3.2) — so a whole body is coded for it too (once, for a kept answer).
 */
export function respond(prepared: Prepared, head: RequestHead): Outgoing | Promise<Outgoing> {
  const isHead = head.method === 'HEAD';
  const encoding = prepared.codable ? negotiate(head.header('accept-encoding')) : 'identity';
  const { body } = prepared;
  // No body: a 204 must not state a length (RFC 9110, 8.6); any other states that it is empty.
  if (body === null) {
    const length = prepared.status === 204 ? undefined : 0;
    return { status: prepared.status, headers: withCoding(prepared, 'identity', length).headers, body };
  }
  if (!isWhole(body)) {
    // Sent as it is produced: no length, coded as it goes.
    const rep = withCoding(prepared, encoding);
    if (prepared.status === 200 && rep.etag && matchesEtag(head.header('if-none-match') ?? null, rep.etag)) {
      abandon(body);
      return { status: 304, headers: rep.notModified, body: null };
    }
    if (isHead) {
      abandon(body);
      return { status: prepared.status, headers: rep.headers, body: null };
    }
    return {
      status: prepared.status,
      headers: rep.headers,
      body: encoding === 'identity' ? body : encodeStream(body, encoding),
    };
  }
  const finish = (rep: Representation): Outgoing => {
    if (prepared.status === 200 && rep.etag && matchesEtag(head.header('if-none-match') ?? null, rep.etag))
      return { status: 304, headers: rep.notModified, body: null };
    return { status: prepared.status, headers: rep.headers, body: isHead ? null : rep.body };
  };
  const rep = representation(prepared as Prepared & { body: Whole }, encoding);
  return rep instanceof Promise ? rep.then(finish) : finish(rep);
}
