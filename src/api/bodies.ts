/**
 * Answer bodies assembled from the served store's JSON strings, in the key order of the
 * schemas. The part before `timestamp` is the same for every request to a URL until the data
 * changes, so it is encoded once and kept; each response adds only its timestamp.
 */
import { createHash } from 'node:crypto';
import { TERMS_OF_USE } from '../schemas/common.ts';
import type { Answer } from '../http/answer.ts';
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

/** The whole answer: the kept head, the time it is produced, and the closing bytes. */
export function readyAnswer({ head, etag }: ReadyHead, now: Date): Answer {
  const stamp = encoder.encode(now.toISOString());
  const body = new Uint8Array(head.length + stamp.length + CLOSE.length);
  body.set(head);
  body.set(stamp, head.length);
  body.set(CLOSE, head.length + stamp.length);
  return { status: 200, headers: { 'content-type': JSON_TYPE, etag }, body, cache: 'data' };
}

/**
 * A body sent in pieces as they are produced: large time series are never built as one string.
 * A piece in bytes is sent as it is (kept bytes, shared between requests: read, never changed).
 */
export function streamedAnswer(pieces: AsyncIterable<string | Uint8Array>, etag: string): Answer {
  return { status: 200, headers: { 'content-type': JSON_TYPE, etag }, body: pieces, cache: 'data' };
}

export { TERMS };
