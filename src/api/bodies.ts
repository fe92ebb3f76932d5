/**
 * Response bodies assembled from the served store's JSON strings, in the key order of the
 * schemas. The part before `timestamp` is the same for every request to a URL until the data
 * changes, so it is encoded once and kept; each response adds only its timestamp.
 */
import { createHash } from 'node:crypto';
import { TERMS_OF_USE } from '../schemas/common.ts';
import { READY_BODIES } from './ready.ts';
import { JSON_TYPE } from './responses.ts';

const encoder = new TextEncoder();
const TERMS = JSON.stringify(TERMS_OF_USE);
const CLOSE = encoder.encode('"}');

/** `{"type":…,"data":…,"lastUpdated":…,"termsOfUse":…,"timestamp":"` — the envelope up to its timestamp. */
export function envelopeHead(type: string, dataJson: string, lastUpdated: string): string {
  return `{"type":${JSON.stringify(type)},"data":${dataJson},"lastUpdated":${JSON.stringify(lastUpdated)},"termsOfUse":${TERMS},"timestamp":"`;
}

/** A ready answer for one URL: the encoded envelope up to its timestamp, and its ETag. */
export interface ReadyHead {
  head: Uint8Array;
  etag: string;
}

/** A dataset's newest snapshot or whole history: what its answers' ETags are made from. */
export interface Versioned {
  readonly version: string;
}

/** Ready heads per dataset history (bounded: unusual queries cannot grow memory). */
const heads = new WeakMap<Versioned, Map<string, ReadyHead>>();
const HEADS_KEPT = 256;

export function cachedHead(history: Versioned, key: string, build: () => string): ReadyHead {
  let cache = heads.get(history);
  if (!cache) heads.set(history, (cache = new Map()));
  let ready = cache.get(key);
  if (!ready) {
    ready = { head: encoder.encode(build()), etag: etagFor(history, key) };
    if (cache.size >= HEADS_KEPT) cache.delete(cache.keys().next().value as string);
    cache.set(key, ready);
  }
  return ready;
}

/** The same for a head whose parts must be read first (a year of the history): read only when not kept. */
export async function cachedHeadAfterRead(
  history: Versioned,
  key: string,
  build: () => Promise<string>,
): Promise<ReadyHead> {
  const kept = heads.get(history)?.get(key);
  if (kept) return kept;
  const text = await build();
  return cachedHead(history, key, () => text);
}

/**
 * A strong ETag: the dataset's content hash and the normalized request. The body is a function
 * of those two alone (its `timestamp` aside, which says when it was produced), so an unchanged
 * ETag means unchanged data.
 */
export function etagFor(history: Versioned, key: string): string {
  return `"${history.version}.${createHash('sha1').update(key).digest('base64url').slice(0, 16)}"`;
}

/** The kept head, this response's timestamp and the closing bytes, sent as they are: no copy of the head per request. */
export function readyResponse({ head, etag }: ReadyHead, now: Date): Response {
  const parts = [head, encoder.encode(now.toISOString()), CLOSE];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const length = String(head.length + parts[1]!.length + CLOSE.length);
  const response = new Response(body, { headers: { 'content-type': JSON_TYPE, 'content-length': length, etag } });
  READY_BODIES.set(response, { head, stamped: true });
  return response;
}

/**
 * A body sent in pieces as they are produced: large time series are never built as one string.
 * A piece in bytes is sent as it is (kept bytes, shared between requests: read, never changed).
 */
export function streamedResponse(pieces: AsyncIterator<string | Uint8Array>, etag: string): Response {
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
    },
    async cancel() {
      await pieces.return?.();
    },
  });
  return new Response(stream, { headers: { 'content-type': JSON_TYPE, etag } });
}

export { TERMS };
