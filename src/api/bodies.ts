/**
 * Response bodies assembled from the served store's JSON strings, in the key order of the
 * schemas. The part before `timestamp` is the same for every request to a URL until the data
 * changes, so it is encoded once and kept; each response adds only its timestamp.
 */
import { createHash } from 'node:crypto';
import { TERMS_OF_USE } from '../schemas/common.ts';
import type { DatasetHistory } from '../store/served-store.ts';
import { JSON_TYPE } from './responses.ts';

const encoder = new TextEncoder();
const TERMS = JSON.stringify(TERMS_OF_USE);
const CLOSE = encoder.encode('"}');

/** `{"type":…,"data":…,"lastUpdated":…,"termsOfUse":…,"timestamp":"` — the envelope up to its timestamp. */
export function envelopeHead(type: string, dataJson: string, lastUpdated: string): string {
  return `{"type":${JSON.stringify(type)},"data":${dataJson},"lastUpdated":${JSON.stringify(lastUpdated)},"termsOfUse":${TERMS},"timestamp":"`;
}

/** Encoded heads per dataset history (bounded: a new build brings a new history). */
const heads = new WeakMap<DatasetHistory, Map<string, Uint8Array>>();
const HEADS_KEPT = 256;

export function cachedHead(history: DatasetHistory, key: string, build: () => string): Uint8Array {
  let cache = heads.get(history);
  if (!cache) heads.set(history, (cache = new Map()));
  let head = cache.get(key);
  if (!head) {
    head = encoder.encode(build());
    if (cache.size >= HEADS_KEPT) cache.delete(cache.keys().next().value as string);
    cache.set(key, head);
  }
  return head;
}

/**
 * A strong ETag: the dataset's content hash and the normalized request. The body is a function
 * of those two alone (its `timestamp` aside, which says when it was produced), so an unchanged
 * ETag means unchanged data.
 */
export function etagFor(history: DatasetHistory, key: string): string {
  return `"${history.version}.${createHash('sha1').update(key).digest('base64url').slice(0, 16)}"`;
}

export function readyResponse(head: Uint8Array, now: Date, etag: string): Response {
  const timestamp = encoder.encode(now.toISOString());
  const body = new Uint8Array(head.length + timestamp.length + CLOSE.length);
  body.set(head, 0);
  body.set(timestamp, head.length);
  body.set(CLOSE, head.length + timestamp.length);
  return new Response(body, { headers: { 'content-type': JSON_TYPE, etag } });
}

/** A body sent in pieces as they are produced: large time series are never built as one string. */
export function streamedResponse(pieces: Iterator<string>, etag: string): Response {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  return new Response(stream, { headers: { 'content-type': JSON_TYPE, etag } });
}

export { TERMS };
