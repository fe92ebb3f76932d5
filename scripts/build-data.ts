/**
 * Build step: compile the snapshot tree (SNAPSHOTS_DIR, default ./snapshots) and content/ into
 * what the site and the functions embed (.generated/). An invalid snapshot file fails the
 * build, naming the file.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { resolve } from 'node:path';
import { buildSiteData } from '../src/build/site-data.ts';
import { siteUrl } from '../src/site.ts';
import { CompileError } from '../src/store/compile.ts';
import { GENERATED_DIR, writeSiteData } from '../src/build/generated-files.ts';
import { websubHub } from '../src/lib/websub.ts';

// The first step of every build: a WEBSUB_HUB_URL that is not a URL stops it here, in one line.
try {
  websubHub();
} catch (error) {
  console.error(`build:data: ${(error as Error).message}`);
  process.exit(1);
}

const dir = resolve(process.env.SNAPSHOTS_DIR ?? 'snapshots');
const started = performance.now();
try {
  const data = await buildSiteData({ snapshotsDir: dir, contentDir: resolve('content/docs'), site: siteUrl() });
  const sizes = await writeSiteData(data);
  const counts = Object.entries(data.store.datasets).map(([slug, d]) => `${slug} ${d.dates.length}`);
  console.log(
    `build:data: ${dir} (${counts.join(', ')}), ${data.pages.length} docs pages → ${GENERATED_DIR}/ ` +
      `(store ${(sizes['served-store.json']! / 1e6).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms`,
  );
} catch (error) {
  if (!(error instanceof CompileError)) throw error;
  console.error(`build:data: ${error.message}`);
  process.exit(1);
}
