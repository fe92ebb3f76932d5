import { BlobStatusStore, vercelBlobClient } from './blob-status-store.ts';
import { FileStatusStore, UnconfiguredStatusStore, type StatusStore } from './status-store.ts';

/**
 * Is collection status required here? `STATUS_REQUIRED=true|false` says so explicitly (a
 * self-hosted production with its own collector sets it); otherwise only Vercel's production
 * deployments require it.
 */
function statusRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const explicit = env.STATUS_REQUIRED?.trim().toLowerCase();
  if (explicit) return explicit === 'true' || explicit === '1';
  return env.VERCEL_ENV === 'production';
}

/**
 * Vercel Blob when BLOB_READ_WRITE_TOKEN is set. Otherwise the filesystem (`STATUS_DIR`, default
 * `.status`, never committed), so nothing needs a cloud account locally — except on Vercel,
 * where a function's disk is not where the collector writes: there the store is "not configured".
 */
export function statusStoreFromEnv(env: NodeJS.ProcessEnv = process.env): StatusStore {
  const required = statusRequired(env);
  const token = env.BLOB_READ_WRITE_TOKEN;
  if (token) return new BlobStatusStore(vercelBlobClient(token), required);
  if (env.VERCEL === '1') return new UnconfiguredStatusStore(required);
  return new FileStatusStore(env.STATUS_DIR ?? '.status', required);
}
