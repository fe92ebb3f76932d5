/**
 * Build step: compile the snapshot tree (SNAPSHOTS_DIR, default ./snapshots) into the served
 * store the API bundles. An invalid snapshot file fails the build, naming the file.
 */
import { resolve } from 'node:path';
import { SERVED_STORE_FILE, writeServedStore } from '../src/store/served-store-file.ts';
import { CompileError, compileSnapshotTree } from '../src/store/compile.ts';

const dir = resolve(process.env.SNAPSHOTS_DIR ?? 'snapshots');
const started = performance.now();
try {
  const compiled = await compileSnapshotTree(dir);
  const bytes = await writeServedStore(compiled);
  const counts = Object.entries(compiled.datasets).map(([slug, d]) => `${slug} ${d.dates.length}`);
  console.log(
    `build:data: compiled ${dir} (${counts.join(', ')}) into ${SERVED_STORE_FILE} ` +
      `(${(bytes / 1e6).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms`,
  );
} catch (error) {
  if (!(error instanceof CompileError)) throw error;
  console.error(`build:data: ${error.message}`);
  process.exit(1);
}
