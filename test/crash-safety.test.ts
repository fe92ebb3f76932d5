/**
 * Crash safety of collection: a collector process killed (SIGKILL) at random moments, many times,
 * while it rewrites snapshots. Each time, every snapshot file is the old version or a new one,
 * valid JSON that validates, and the status store is readable.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../src/collect/collect.ts';
import { DATASETS, type Entity } from '../src/datasets.ts';
import { validateSnapshot } from '../src/snapshots/tree.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { startSourceServer, type SourceServer } from './support/source-server.ts';
import { ROOT } from './support/constants.ts';
import { newestDates, newestSnapshots, tempDir, treeOfNewest } from './support/history.ts';

/** Kill until this many kills have landed mid-write (a temporary file left behind), at most MAX_KILLS. */
const MID_WRITE_KILLS = 3;
const MAX_KILLS = 100;

let server: SourceServer;
/** Every version of each dataset's data that may legitimately be on disk. */
const versions: Record<string, string[]> = {};
let versionsFile: string;

/** The newest real data with every rate of the first entity moved by `delta`. */
function moved(data: Entity[], delta: number): Entity[] {
  return JSON.parse(JSON.stringify(data), (key, value) =>
    (key === 'rate' || key.endsWith('Rate')) && typeof value === 'number' && value > 1
      ? Math.round((value + delta) * 100) / 100
      : value,
  );
}

beforeAll(async () => {
  server = await startSourceServer();
  const written: Record<string, Entity[][]> = {};
  const newest = await newestSnapshots();
  for (const dataset of DATASETS) {
    const { data } = newest[dataset.slug];
    const a = moved(data, 0.1);
    const b = moved(data, -0.1);
    versions[dataset.slug] = [data, a, b].map((d) => JSON.stringify(d));
    written[dataset.slug] = [a, b];
    const pages = [renderSourcePage(dataset.slug, a), renderSourcePage(dataset.slug, b)];
    server.serve(dataset.sourcePath, ...Array.from({ length: 20_000 }, (_, i) => ({ page: pages[i % 2]! })));
  }
  versionsFile = join(await tempDir(), 'versions.json');
  await writeFile(versionsFile, JSON.stringify(written));
});
afterAll(() => server.close());

async function check(snapshots: string, status: FileStatusStore) {
  for (const dataset of DATASETS) {
    const names = (await readdir(join(snapshots, dataset.slug))).filter((n) => n.endsWith('.json'));
    expect(names).toContain(`${newestDates()[dataset.slug]}.json`);
    for (const name of names) {
      const file = join(snapshots, dataset.slug, name);
      const snapshot = validateSnapshot(dataset, JSON.parse(await readFile(file, 'utf8')), file, name.slice(0, 10));
      expect(versions[dataset.slug], `${file} is an old or a new version`).toContain(JSON.stringify(snapshot.data));
    }
    await status.read(dataset.slug); // parses and validates, or throws
  }
  await compileSnapshotTree(snapshots); // the build accepts the tree as it was left
}

describe('a collector killed while writing', () => {
  it('leaves every snapshot old or new, valid, and the status readable, however often it is killed', async () => {
    const snapshots = await treeOfNewest('rates-crash-');
    const status = new FileStatusStore(await tempDir('rates-crash-status-'));
    let leftovers = 0;
    let kills = 0;
    while (kills < MAX_KILLS && leftovers < MID_WRITE_KILLS) {
      kills++;
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/collect-loop.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          COLLECT_URL: server.url,
          SNAPSHOTS_DIR: snapshots,
          STATUS_DIR: status.dir,
          VERSIONS_FILE: versionsFile,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((ready, fail) => {
        child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && ready());
        child.on('exit', (code) => fail(new Error(`collector exited ${code} before it was ready`)));
      });
      await new Promise((r) => setTimeout(r, Math.random() * 300));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      for (const dataset of DATASETS)
        leftovers += (await readdir(join(snapshots, dataset.slug))).some((n) => n.endsWith('.tmp')) ? 1 : 0;
      await check(snapshots, status);
    }
    console.log(`crash-safety: ${kills} kills, ${leftovers} of them mid-write (a temporary file left behind)`);
    expect(leftovers, 'kills landed in the middle of writes').toBeGreaterThanOrEqual(MID_WRITE_KILLS);

    // The next run clears what killed runs left, and goes on from where they stopped.
    const results = await collect({
      baseUrl: server.url,
      snapshotsDir: snapshots,
      status,
      fetch: { timeoutMs: 2000, retries: 0, retryDelayMs: 1 },
    });
    expect(results.every((r) => r.outcome !== 'failed')).toBe(true);
    for (const dataset of DATASETS)
      expect((await readdir(join(snapshots, dataset.slug))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    await check(snapshots, status);
  }, 240_000);
});
