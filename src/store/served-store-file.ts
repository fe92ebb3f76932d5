/** Where the build leaves the compiled store for the server bundle to embed. */
import { writeFileAtomic } from '../lib/atomic-write.ts';
import type { CompiledStore } from './compile.ts';

export const SERVED_STORE_FILE = '.generated/served-store.json';

export async function writeServedStore(compiled: CompiledStore, file = SERVED_STORE_FILE): Promise<number> {
  const text = JSON.stringify(compiled);
  await writeFileAtomic(file, text);
  return Buffer.byteLength(text);
}
