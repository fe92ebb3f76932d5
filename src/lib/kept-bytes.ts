/**
 * Bytes kept across requests and never changed (the head of a ready answer, its quoted form), as
 * registered by whoever keeps them: a coder may code such bytes once and reuse the result for
 * every answer they appear in (src/server/gzip-splice.ts).
 */
const kept = new WeakSet<Uint8Array>();

export function keepBytes<T extends Uint8Array>(bytes: T): T {
  kept.add(bytes);
  return bytes;
}

export const isKeptBytes = (bytes: Uint8Array): boolean => kept.has(bytes);
