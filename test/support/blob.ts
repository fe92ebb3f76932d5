/**
 * Stands in for the Blob service, which has no local emulator: objects in a map, each read back
 * as a stream of 64 KiB chunks, as a download arrives, counting the bytes readers pulled (a store
 * that stops reading at its bound pulls little of a huge object).
 */
import type { BlobClient } from '../../src/status/blob-status-store.ts';

const CHUNK = 64 * 1024;

export function memoryBlob(): BlobClient & { objects: Map<string, string>; pulled: number } {
  const objects = new Map<string, string>();
  const blob = {
    objects,
    pulled: 0,
    read: async (pathname: string) => {
      const body = objects.get(pathname);
      if (body === undefined) return null;
      const bytes = Buffer.from(body);
      return (async function* () {
        for (let at = 0; at < bytes.length; at += CHUNK) {
          const chunk = bytes.subarray(at, at + CHUNK);
          blob.pulled += chunk.length;
          yield chunk;
        }
      })();
    },
    write: async (pathname: string, body: string) => void objects.set(pathname, body),
  };
  return blob;
}
