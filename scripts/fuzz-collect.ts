/**
 * npm run fuzz:collect -- [--seconds <n>] [--seed <n>] [--dataset <name>]... [--benign] [--no-keep]
 * The property of test/collect-property.test.ts for as long as asked: generated pages of each
 * dataset in turn (rounds of PAGES_PER_ROUND from seed, seed + 1, …), each served to the collector
 * and judged (test/support/collect-property.ts); --benign, pages of benign mutations alone, which
 * must all be collected. Prints the pages generated, refused and written,
 * those written wrong, and how often each mutation applied. A failure is shrunk by fast-check to
 * the fewest mutations and lenders that still fail, printed, and kept in
 * test/fixtures/collect-regressions/ (one file per first mutation, the first dataset it failed on,
 * formatted by the repository's formatter; --no-keep keeps none). Exits 1 when any page was wrong.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { DATASET_SLUGS, DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { slugify } from '../src/collect/ids.ts';
import {
  checkPage,
  closeWorld,
  collectProperty,
  explain,
  openWorld,
  regressionOf,
  Tally,
} from '../test/support/collect-property.ts';
import { MUTATION_NAMES, type PageSpec } from '../test/support/page-grammar.ts';
import { copyTestHistory, FIXTURE_HISTORY, REPO_SNAPSHOTS } from '../test/support/global-setup.ts';

const USAGE = `usage: npm run fuzz:collect -- [--seconds <n>] [--seed <n>] [--dataset <${DATASET_SLUGS.join('|')}>]... [--benign] [--no-keep]`;
/** Pages per dataset in one round, before the next dataset's turn. */
const PAGES_PER_ROUND = 50;
const REGRESSIONS_DIR = resolve(import.meta.dirname, '../test/fixtures/collect-regressions');

function fail(message: string): never {
  console.error(`fuzz:collect: ${message}\n${USAGE}`);
  process.exit(2);
}

function readArgs() {
  try {
    return parseArgs({
      options: {
        seconds: { type: 'string', default: '60' },
        seed: { type: 'string' },
        dataset: { type: 'string', multiple: true },
        benign: { type: 'boolean', default: false },
        'no-keep': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
}
const args = readArgs();
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const seconds = Number(args.seconds);
if (!Number.isFinite(seconds) || seconds <= 0) fail(`--seconds must be a positive number, got "${args.seconds}"`);
const firstSeed = args.seed === undefined ? Date.now() % 2 ** 31 : Number(args.seed);
if (!Number.isInteger(firstSeed)) fail(`--seed must be a whole number, got "${args.seed}"`);
for (const name of args.dataset ?? [])
  if (!DATASET_SLUGS.includes(name as DatasetSlug)) fail(`unknown dataset "${name}"`);
const datasets = DATASETS.filter((d) => !args.dataset || args.dataset.includes(d.slug));

const historyDir = await mkdtemp(join(tmpdir(), 'rates-fuzz-history-'));
const world = await openWorld(historyDir, await copyTestHistory([REPO_SNAPSHOTS, FIXTURE_HISTORY], historyDir));
/** The first mutations of the failures kept: a file is named `<first mutation>--<dataset>.json`. */
const kept = new Set(
  (await readdir(REGRESSIONS_DIR)).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, n.indexOf('--'))),
);
const tally = new Tally();
const deadline = Date.now() + seconds * 1000;
console.log(`fuzz:collect: ${seconds} s from seed ${firstSeed}, ${datasets.map((d) => d.slug).join(', ')}`);

let round = 0;
try {
  while (Date.now() < deadline) {
    for (const dataset of datasets) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const seed = firstSeed + round;
      const details = await fc.check(collectProperty(world, dataset, { benign: args.benign, tally }), {
        seed,
        numRuns: PAGES_PER_ROUND,
        plugins: [fc.interruptAfterTimeLimit(left)],
      });
      tally.resume();
      const [spec] = (details.counterexample ?? []) as [PageSpec?];
      if (!details.failed || !spec) continue;
      const checked = await checkPage(world, dataset, spec);
      console.log(`\n${explain(checked)}\n  (seed ${seed}, ${details.numShrinks} shrinks)`);
      const first = slugify(checked.applied[0] ?? 'page');
      if (args['no-keep'] || kept.has(first) || checked.wrong.length === 0) continue;
      kept.add(first);
      const found = `npm run fuzz:collect -- --seed ${firstSeed} (round seed ${seed}): ${checked.applied.join(', then ')}`;
      const file = join(REGRESSIONS_DIR, `${first}--${dataset.slug}.json`);
      await writeFile(file, JSON.stringify(regressionOf(world, checked, found)));
      execFileSync(resolve(import.meta.dirname, '../node_modules/.bin/biome'), ['format', '--write', file]);
      console.log(`  kept as test/fixtures/collect-regressions/${first}--${dataset.slug}.json`);
    }
    round++;
  }
} finally {
  await closeWorld(world);
  await rm(historyDir, { recursive: true, force: true });
}

console.log(`\nfuzz:collect: ${tally.summary}`);
console.log('mutations applied, by family:');
const family = (name: string) => MUTATION_NAMES.get(name)!.family;
const rows = [...tally.mutations].sort((a, b) => family(a[0]).localeCompare(family(b[0])) || b[1] - a[1]);
for (const [name, n] of rows) console.log(`  ${family(name).padEnd(10)} ${String(n).padStart(6)}  ${name}`);
process.exit(tally.wrong.written + tally.wrong.refused > 0 ? 1 : 0);
