/**
 * What passes through the way out (way-out.ts): an answer as an endpoint gives it, before the
 * HTTP rules; the request head those rules read; and what a writer sends. Plain objects, no web
 * Request or Response: the Node listener, the web handler and the raw-socket refusals all use them.
 */
/**
 * A whole body — bytes, text, or bytes in parts sent as they are in one write (an MCP response:
 * the caller's id around a kept result) — one sent as it is produced (a long time series), or none.
 */
export type Body = Uint8Array | readonly Uint8Array[] | string | AsyncIterable<Uint8Array | string> | null;

/** A whole body in bytes: one piece, or parts in order. */
export type Whole = Uint8Array | readonly Uint8Array[];

export const isWhole = (body: unknown): body is Whole => body instanceof Uint8Array || Array.isArray(body);

export const lengthOf = (whole: Whole): number =>
  whole instanceof Uint8Array ? whole.length : whole.reduce((n, part) => n + part.length, 0);

/** One piece: the parts joined (for a coder, or a writer that takes one buffer). */
export const joined = (whole: Whole): Uint8Array => (whole instanceof Uint8Array ? whole : Buffer.concat(whole));

export interface Answer {
  status: number;
  /** The endpoint's own headers (content-type, etag, allow, retry-after…); the way out adds the rest. */
  headers: Record<string, string>;
  body: Body;
  /**
   * 'data': the answer depends on method and URL alone, so shared caches may keep it (unless it is
   * a failure or a 405); 'never': no-store (health, MCP, refusals before routing).
   */
  cache: 'data' | 'never';
  /** Who may read it from another origin; the read-only API's policy unless given. */
  cors?: CorsPolicy;
}

/** Who may read an answer from another origin (CORS): src/http/cors.ts holds each endpoint's. */
export interface CorsPolicy {
  /** The methods the endpoint takes, OPTIONS included. */
  methods: readonly string[];
  /** Response headers a page on another origin may read. */
  expose: string;
  /** Request headers a preflight allows: the ones it asks for, else these. */
  allowHeaders: { requested: 'echo' | 'fixed'; list: string };
}

/** What the way out reads of a request. */
export interface RequestHead {
  method: string;
  /** A request header by its lower-case name, undefined when absent. */
  header(name: string): string | undefined;
}

/** What a writer sends: status, every header but the caller's request id, and the body. */
export interface Outgoing {
  status: number;
  /** Names and values in turn, as Node's writeHead takes them; shared between callers: read, never changed. */
  headers: readonly string[];
  body: Whole | AsyncIterable<Uint8Array> | null;
}

const encoder = new TextEncoder();
export const bytesOf = (text: string): Uint8Array => encoder.encode(text);

async function* asBytes(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const piece of body) yield typeof piece === 'string' ? encoder.encode(piece) : piece;
}

/** A body in bytes: text encoded, a stream's text pieces encoded as they come, whole bytes as they are. */
export function inBytes(body: Body): Whole | AsyncIterable<Uint8Array> | null {
  if (body === null || isWhole(body)) return body;
  return typeof body === 'string' ? encoder.encode(body) : asBytes(body);
}
