import { BlobStatusStore, vercelBlobClient } from './blob-status-store.ts';
import { FileStatusStore, type StatusStore } from './status-store.ts';

/**
 * Vercel Blob when BLOB_READ_WRITE_TOKEN is set; otherwise the filesystem (`STATUS_DIR`,
 * default `.status`, never committed), so nothing needs a cloud account locally.
 */
export function statusStoreFromEnv(env: NodeJS.ProcessEnv = process.env): StatusStore {
  const token = env.BLOB_READ_WRITE_TOKEN;
  if (token) return new BlobStatusStore(vercelBlobClient(token));
  return new FileStatusStore(env.STATUS_DIR ?? '.status');
}
