/**
 * Ready answers: for a GET of a URL whose answer depends on the URL alone (list, detail, a
 * one-date time series, their 4xx answers, unknown paths), everything but the timestamp is the
 * same on every request. The core works it out once, by answering the URL itself (its own
 * routing, validation, caching and CORS rules, nothing repeated here), and keeps the result:
 * status, headers, the 304's headers, the body's head, and its compressed heads per coding.
 * Each request then only picks the coding, compares the ETag and appends its timestamp. The
 * core's Response path (with codings, as on `npm start`) and the Node fast path
 * (src/server/fast-path.ts) both answer from here.
 */
import { matchesEtag } from './caching.ts';

export type Encoding = 'br' | 'gzip' | 'deflate' | 'identity';
type Coded = Exclude<Encoding, 'identity'>;

/** Content codings, given by the deployment (src/server/codings.ts on Node). */
export interface Codings {
  negotiate(acceptEncoding: string | undefined): Encoding;
  /** Bodies shorter than this go uncompressed. */
  threshold: number;
  compressHead(head: Uint8Array, encoding: Coded): object;
  encodedParts(compressed: object, tail: Uint8Array, encoding: Coded): Uint8Array[];
}

export interface ReadyAnswer {
  status: number;
  /** The core's headers, in its order, without content-length. */
  headers: [string, string][];
  /** Headers of the 304 to a matching conditional GET, when the answer has an ETag. */
  notModified?: [string, string][];
  etag?: string;
  head: Uint8Array;
  /** The body ends in this request's timestamp and `"}` after the head. */
  stamped: boolean;
  /** Does the answer carry x-request-id (request-id.ts, decided for this URL)? */
  requestId: boolean;
  /** Each coding's headers and body, made on first use (serve). */
  coded: Map<Encoding, Representation>;
  /** Kept until this time of the core's clock (health's answer, for its status window); otherwise for good. */
  until?: number;
}

/** One request's answer: what both writers send. */
export interface Served {
  status: number;
  /** Shared between requests: read, never changed. */
  headers: readonly [string, string][];
  /** Undefined for HEAD and 304. */
  body?: Uint8Array[];
}

export interface ServeRequest {
  method: string;
  acceptEncoding?: string;
  ifNoneMatch?: string | null;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** `"v.hash"` → `"v.hash-br"`: each coding is its own representation, with its own strong ETag. */
export function codedEtag(etag: string, encoding: Encoding): string {
  return encoding === 'identity' ? etag : `${etag.slice(0, -1)}-${encoding}"`;
}

function withEtag(headers: [string, string][], etag: string): [string, string][] {
  return headers.map(([name, value]) => (name === 'etag' ? [name, etag] : [name, value]));
}

/**
 * A timestamp is always 24 characters (toISOString, years 0 to 9999), so an answer's length, its
 * coding and every header are the same on every request: worked out once per coding.
 */
const TAIL_LENGTH = '2026-01-01T00:00:00.000Z"}'.length;

/** The timestamp of a time, written once per millisecond: every request in that millisecond sends the same. */
let lastTime = Number.NaN;
let lastStamp = '';
export function stampOf(now: Date): string {
  const time = now.getTime();
  if (time !== lastTime) {
    lastStamp = now.toISOString();
    lastTime = time;
  }
  return lastStamp;
}

/** One coding of a ready answer: its headers, made once, and its body at the newest timestamp sent. */
export interface Representation {
  headers: readonly [string, string][];
  notModified?: readonly [string, string][];
  etag?: string;
  compressed?: object;
  /** The whole body at `stamp`, kept until the clock moves on: requests within the same millisecond share it. */
  stamp?: string;
  body?: Uint8Array;
}

function bodyAt(answer: ReadyAnswer, encoding: Encoding, rep: Representation, stamp: string, codings?: Codings) {
  if (rep.body && rep.stamp === stamp) return rep.body;
  const tail = answer.stamped ? encoder.encode(`${stamp}"}`) : EMPTY;
  // One buffer: one write with the head costs less than a writev of the parts (bench/RESULTS.md).
  const parts =
    encoding === 'identity'
      ? [answer.head, tail]
      : codings!.encodedParts((rep.compressed ??= codings!.compressHead(answer.head, encoding)), tail, encoding);
  rep.body = Buffer.concat(parts);
  rep.stamp = stamp;
  return rep.body;
}

function representation(answer: ReadyAnswer, encoding: Encoding, stamp: string, codings?: Codings) {
  let rep = answer.coded.get(encoding);
  if (rep) return rep;
  const etag = answer.etag === undefined ? undefined : codedEtag(answer.etag, encoding);
  const headers = etag ? withEtag(answer.headers, etag) : [...answer.headers];
  // compression adds Vary to every answer of a compressible type, coded or not.
  if (codings) headers.push(['vary', 'Accept-Encoding']);
  rep = { headers, etag, notModified: etag && answer.notModified ? withEtag(answer.notModified, etag) : undefined };
  const length = bodyAt(answer, encoding, rep, stamp, codings).length;
  if (encoding !== 'identity') headers.push(['content-encoding', encoding]);
  headers.push(['content-length', String(length)]);
  answer.coded.set(encoding, rep);
  return rep;
}

export function serve(answer: ReadyAnswer, request: ServeRequest, now: Date, codings?: Codings): Served {
  const stamp = answer.stamped ? stampOf(now) : '';
  const length = answer.head.length + (answer.stamped ? TAIL_LENGTH : 0);
  // As compression did: HEAD is never coded, nor is a body under its threshold.
  const encoding =
    codings && request.method !== 'HEAD' && length >= codings.threshold
      ? codings.negotiate(request.acceptEncoding)
      : 'identity';
  const rep = representation(answer, encoding, stamp, codings);
  if (rep.notModified && answer.status === 200 && matchesEtag(request.ifNoneMatch ?? null, rep.etag!)) {
    return { status: 304, headers: rep.notModified };
  }
  if (request.method === 'HEAD') return { status: answer.status, headers: rep.headers };
  return { status: answer.status, headers: rep.headers, body: [bodyAt(answer, encoding, rep, stamp, codings)] };
}

/** As a web Response (the core's path). */
export function servedResponse({ status, headers, body }: Served): Response {
  if (!body) return new Response(null, { status, headers: [...headers] });
  const parts = body;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  return new Response(stream, { status, headers: [...headers] });
}

/** Bodies the core marks as ready (bodies.ts, responses.ts): the head, and whether a timestamp follows it. */
export const READY_BODIES = new WeakMap<Response, { head: Uint8Array; stamped: boolean }>();
