/**
 * npx tsx scripts/bench-changes.ts [--years 10] [--builds 3] [--no-write]
 *
 * What the change feeds, the CSV downloads and the JSON change log cost, over the
 * repository's snapshot tree (or --history <tree>) and, with --years N, a synthetic N-year history:
 *
 * - build work: the change log, every Atom feed and every CSV file made in-process by the same
 *   functions the build's routes call, timed, with their sizes (raw and gzip);
 * - the JSON change log: the first request (the history loaded and the log worked out), a new
 *   URL, a repeated URL, and the answer sizes;
 * - with --builds N: `npm run build` of the committed tree (a `git archive HEAD` copy sharing this
 *   node_modules) against the same copy without the feed and CSV routes, alternated, median of N
 *   (the synthetic history once), and the static files they add.
 *
 * Results go to stdout and the top of bench/RESULTS.md.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify, parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createApi } from '../src/service.ts';
import { generateHistory } from '../bench/lib/synthetic-history.ts';
import { fmt, mb, prependResults, ROOT } from '../bench/lib/harness.ts';
import { datasetCsv } from '../src/changes/csv.ts';
import { atomFeed, type DatasetChanges } from '../src/changes/feeds.ts';
import { changeDays, entitiesEver } from '../src/changes/model.ts';
import { DATASETS } from '../src/datasets.ts';
import { snapshotsOf } from '../src/explorer/history.ts';
import { healthyStatusStore } from '../src/examples.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';

const { values: args } = parseArgs({
  options: {
    years: { type: 'string' },
    builds: { type: 'string' },
    history: { type: 'string', default: resolve(ROOT, 'snapshots') },
    'no-write': { type: 'boolean', default: false },
  },
});
const run = promisify(execFile);
const SITE = 'https://rates.example';
const gz = (text: string) => gzipSync(text).length;
const ms = (n: number) => `${fmt(n)} ms`;
const size = (bytes: number) => (bytes >= 1e6 ? mb(bytes) : `${fmt(bytes / 1e3, 1)} kB`);

function timed<T>(work: () => T): [T, number] {
  const started = performance.now();
  const result = work();
  return [result, performance.now() - started];
}

/** The build's work for feeds and downloads, in-process, and the change log as the API serves it. */
async function measure(tree: string, label: string): Promise<string[]> {
  const store = await compileSnapshotTree(tree);
  const [views, snapshotsMs] = timed(() =>
    DATASETS.map((dataset) => ({ dataset, snapshots: snapshotsOf(dataset, store.datasets[dataset.slug]!) })),
  );
  const [sources, logMs] = timed(() =>
    views.map(({ dataset, snapshots }) => ({
      changes: {
        dataset,
        days: changeDays(dataset, snapshots),
        lastUpdated: snapshots.at(-1)!.lastUpdated,
      } satisfies DatasetChanges,
      entities: entitiesEver(snapshots),
    })),
  );
  const [feeds, feedsMs] = timed(() => [
    atomFeed(
      { kind: 'all' },
      sources.map((s) => s.changes),
      SITE,
    ),
    ...sources.flatMap(({ changes, entities }) => [
      atomFeed({ kind: 'dataset', dataset: changes.dataset }, [changes], SITE),
      ...entities.map((entity) => atomFeed({ kind: 'entity', dataset: changes.dataset, entity }, [changes], SITE)),
    ]),
  ]);
  const csvTimes: Record<string, number> = {};
  const csvs = views.flatMap(({ dataset, snapshots }) =>
    (['latest', 'history'] as const).map((kind) => {
      const [text, took] = timed(() => datasetCsv(dataset, kind === 'latest' ? snapshots.slice(-1) : snapshots));
      csvTimes[`${dataset.slug} ${kind}`] = took;
      return {
        name: `${dataset.slug}${kind === 'history' ? '-history' : ''}.csv`,
        text,
        took,
        rows: kind === 'latest' ? 1 : snapshots.length,
      };
    }),
  );
  const feedBytes = feeds.map((f) => Buffer.byteLength(f));

  // The JSON change log, through the real core.
  const served = servedStoreOf(store);
  const api = createApi({ loadStore: async () => served, status: healthyStatusStore(served), siteUrl: SITE });
  const ask = async (path: string) => {
    const started = performance.now();
    const response = await api(new Request(`${SITE}${path}`));
    const bytes = (await response.arrayBuffer()).byteLength;
    return { took: performance.now() - started, bytes, status: response.status };
  };
  // The dataset with the most snapshots: its change log is the most work.
  const benched = [...DATASETS].sort(
    (a, b) => store.datasets[b.slug]!.dates.length - store.datasets[a.slug]!.dates.length,
  )[0]!;
  const base = `/api/v1/${benched.slug}`;
  const newest = store.datasets[benched.slug]!.dates.at(-1)!;
  const series = await ask(`${base}/time-series?date=${newest}`);
  const first = await ask(`${base}/changes`);
  const fresh = await ask(`${base}/changes?since=2000-01-01`);
  const repeat = await ask(`${base}/changes?since=2000-01-01`);
  const one = await ask(`${base}/changes?since=2000-01-01&${benched.entity.param}=${benched.exampleEntityId}`);

  const snapshotCounts = DATASETS.map((d) => `${store.datasets[d.slug]!.dates.length}`).join(' / ');
  const days = sources.map((s) => s.changes.days.length).join(' / ');
  return [
    `### ${label}`,
    '',
    `Snapshots (${DATASETS.map((d) => d.label).join(' / ')}): ${snapshotCounts}; dates with a change: ${days}.`,
    '',
    '| build work (in-process, the functions the routes call) | time | files | size | gzip |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| snapshots as objects (shared with the explorer pages) | ${ms(snapshotsMs)} | — | — | — |`,
    `| change log of every dataset | ${ms(logMs)} | — | — | — |`,
    `| Atom feeds (all, ${DATASETS.length} datasets, every institution ever listed) | ${ms(feedsMs)} | ${feeds.length} | ${size(feedBytes.reduce((a, b) => a + b, 0))} (largest ${size(Math.max(...feedBytes))}) | ${size(feeds.reduce((n, f) => n + gz(f), 0))} |`,
    ...csvs.map((c) => `| ${c.name} | ${ms(c.took)} | 1 | ${size(Buffer.byteLength(c.text))} | ${size(gz(c.text))} |`),
    '',
    `| change log request (core, ${benched.label}) | time | body |`,
    '| --- | ---: | ---: |',
    `| for comparison: the first time-series request (the history loaded) | ${ms(series.took)} | ${size(series.bytes)} |`,
    `| first change-log request: the log worked out, default 30 days | ${ms(first.took)} | ${size(first.bytes)} |`,
    `| a new URL: the whole history (since=2000-01-01) | ${ms(fresh.took)} | ${size(fresh.bytes)} |`,
    `| the same URL again (kept answer) | ${fmt(repeat.took, 2)} ms | ${size(repeat.bytes)} |`,
    `| one ${benched.entity.kind}, whole history | ${fmt(one.took, 2)} ms | ${size(one.bytes)} |`,
    '',
  ];
}

/** `npm run build` in a project folder; wall seconds. */
async function build(cwd: string, name: string, tree: string): Promise<{ seconds: number; buildDir: string }> {
  const buildDir = resolve(ROOT, '.builds', name);
  const env = {
    ...process.env,
    BUILD_DIR: buildDir,
    GENERATED_DIR: `${buildDir}-generated`,
    SNAPSHOTS_DIR: tree,
    SITE_URL: SITE,
    ASTRO_TELEMETRY_DISABLED: '1',
  };
  const started = performance.now();
  await run('npm', ['run', 'build'], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  return { seconds: (performance.now() - started) / 1000, buildDir };
}

async function addedFiles(buildDir: string): Promise<{ count: number; bytes: number }> {
  const client = join(buildDir, 'client');
  const files = (await readdir(client, { recursive: true })).filter((f) => /\.(atom|csv)$/.test(f));
  let bytes = 0;
  for (const f of files) bytes += (await stat(join(client, f))).size;
  return { count: files.length, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** The committed tree, twice: as it is, and without the feed and CSV routes (what the build did before them). */
async function projectCopies(): Promise<{ with: string; without: string; cleanup(): Promise<void> }> {
  const dirs = {
    with: await mkdtemp(join(tmpdir(), 'rates-with-')),
    without: await mkdtemp(join(tmpdir(), 'rates-without-')),
  };
  for (const dir of Object.values(dirs)) {
    await run('bash', ['-c', `git archive HEAD | tar -x -C ${dir}`], { cwd: ROOT });
    await symlink(resolve(ROOT, 'node_modules'), join(dir, 'node_modules'));
  }
  const routes = (await readdir(join(dirs.without, 'src/pages/rates'), { recursive: true })).filter((f) =>
    /\.(atom|csv)\.ts$/.test(f),
  );
  for (const route of routes) await rm(join(dirs.without, 'src/pages/rates', route));
  return {
    ...dirs,
    cleanup: async () =>
      void (await Promise.all(Object.values(dirs).map((d) => rm(d, { recursive: true, force: true })))),
  };
}

async function compareBuilds(tree: string, label: string, runs: number): Promise<string> {
  const copies = await projectCopies();
  try {
    const times = { before: [] as number[], after: [] as number[] };
    let added = { count: 0, bytes: 0 };
    for (let i = 0; i < runs; i++) {
      console.error(`${label}: builds ${i + 1}/${runs}…`);
      times.before.push((await build(copies.without, 'bench-changes-without', tree)).seconds);
      const now = await build(copies.with, 'bench-changes-with', tree);
      times.after.push(now.seconds);
      added = await addedFiles(now.buildDir);
    }
    const [b, a] = [median(times.before), median(times.after)];
    return `| ${label} | ${runs} | ${fmt(b, 1)} s | ${fmt(a, 1)} s | +${fmt(a - b, 1)} s (${fmt(((a - b) / b) * 100)} %) | ${added.count} files, ${mb(added.bytes)} |`;
  } finally {
    await copies.cleanup();
  }
}

async function main() {
  const runs = Number(args.builds ?? 0);
  const lines: string[] = [];
  const say = (...more: string[]) => {
    for (const line of more) console.log(line);
    lines.push(...more);
  };
  const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const command = `npx tsx scripts/bench-changes.ts${args.years ? ` --years ${args.years}` : ''}${runs ? ` --builds ${runs}` : ''}`;
  say(
    `## Changes, feeds and CSV: run of ${stamp} UTC`,
    '',
    `\`${command}\` · ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'} · Node ${process.version}`,
    '',
  );
  const tree = resolve(args.history);
  say(...(await measure(tree, 'Real history')));
  let synthetic: string | undefined;
  const work = await mkdtemp(join(tmpdir(), 'rates-bench-changes-'));
  try {
    if (args.years) {
      synthetic = join(work, 'synthetic');
      console.error(`generating a synthetic ${args.years}-year history…`);
      await generateHistory({ from: tree, to: synthetic, years: Number(args.years) });
      say(...(await measure(synthetic, `Synthetic ${args.years} years`)));
    }
    if (runs > 0) {
      say(
        `Whole \`npm run build\` (build:data, Astro, the API bundle), wall time, of the committed tree with and without the feed and CSV routes, builds alternated, median:`,
        '',
        '| history | builds | without | with | build-time cost | static files added (feeds + CSV) |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        await compareBuilds(tree, 'real', runs),
        ...(synthetic ? [await compareBuilds(synthetic, `synthetic ${args.years} years`, 1)] : []),
        '',
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  if (!args['no-write']) {
    await prependResults(lines.join('\n'), '# Benchmark results\n');
    console.error('written to bench/RESULTS.md');
  }
}

await main();
