import { FileStatusStore, type StatusStore } from './status-store.ts';

/** Filesystem status store by default (`STATUS_DIR`, default `.status`, never committed). */
export function statusStoreFromEnv(env: NodeJS.ProcessEnv = process.env): StatusStore {
  return new FileStatusStore(env.STATUS_DIR ?? '.status');
}
