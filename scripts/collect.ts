/**
 * npm run collect -- [--dataset <name>] [--summary-file <path>]
 * Collect the interest.co.nz pages into the snapshot tree, recording each dataset's status and the
 * run in the status store's run log. Exits 1 when any dataset failed or the run could not be recorded.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { collect, type DatasetResult } from '../src/collect/collect.ts';
import { recordRun } from '../src/collect/run-record.ts';
import { DEFAULT_FETCH } from '../src/collect/fetch-page.ts';
import { GUARD_LIMITS } from '../src/collect/guards.ts';
import { summaryMarkdown } from '../src/collect/summary.ts';
import { DATASET_SLUGS, type DatasetSlug } from '../src/datasets.ts';
import { statusStoreFromEnv } from '../src/status/from-env.ts';

const USAGE = `usage: npm run collect -- [--dataset <${DATASET_SLUGS.join('|')}>]... [--summary-file <path>]`;

function fail(message: string): never {
  console.error(`collect: ${message}\n${USAGE}`);
  process.exit(2);
}

/** The parsed options; a usage error ends the command. */
function readArgs() {
  try {
    return parseArgs({
      options: {
        dataset: { type: 'string', multiple: true },
        'summary-file': { type: 'string' },
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
const datasets = args.dataset?.flatMap((d) => d.split(',')).map((d) => d.trim());
for (const name of datasets ?? []) if (!DATASET_SLUGS.includes(name as DatasetSlug)) fail(`unknown dataset "${name}"`);

const number = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) fail(`${name} must be a non-negative number, got "${raw}"`);
  return value;
};

const snapshotsDir = resolve(process.env.SNAPSHOTS_DIR ?? 'snapshots');
const baseUrl = process.env.INTEREST_BASE_URL ?? 'https://www.interest.co.nz';
console.log(`collect: ${baseUrl} → ${snapshotsDir}`);

const status = statusStoreFromEnv();
const startedAt = new Date();
const results = await collect({
  baseUrl,
  snapshotsDir,
  status,
  datasets: datasets as DatasetSlug[] | undefined,
  minRatio: number('COLLECT_MIN_RATIO', GUARD_LIMITS.minRatio),
  maxRateMove: number('COLLECT_MAX_RATE_MOVE', GUARD_LIMITS.maxRateMove),
  fetch: {
    timeoutMs: number('COLLECT_TIMEOUT_MS', DEFAULT_FETCH.timeoutMs),
    retries: number('COLLECT_RETRIES', DEFAULT_FETCH.retries),
    retryDelayMs: number('COLLECT_RETRY_DELAY_MS', DEFAULT_FETCH.retryDelayMs),
  },
  log: (line) => console.log(`  ${line}`),
});

function resultLine(r: DatasetResult): string {
  const counts = r.institutions === undefined ? '' : ` (${r.institutions} ${r.dataset.entity.kind}s, ${r.rates} rates)`;
  const took = ` in ${r.ms} ms`;
  switch (r.outcome) {
    case 'failed':
      return `${r.dataset.slug}: FAILED: ${r.reason}; nothing written, the newest snapshot is kept${took}`;
    case 'unchanged':
      return `${r.dataset.slug}: unchanged${counts}${took}`;
    default:
      return `${r.dataset.slug}: ${r.outcome === 'replaced' ? 'changed again today, replaced' : 'changed, wrote'} ${r.file}${counts}, ${r.changes?.moves ?? 0} value(s) moved${took}`;
  }
}

for (const r of results) {
  console.log(resultLine(r));
  if (r.statusError) console.error(`${r.dataset.slug}: could not record the collection status: ${r.statusError}`);
  if (r.linksError) console.error(`${r.dataset.slug}: could not record the websites: ${r.linksError}`);
}

const changed = results.filter((r) => r.file && r.changes);
const linked = results.flatMap((r) => (r.websites ? [{ dataset: r.dataset, ids: r.websites }] : []));
if (changed.length > 0 || linked.length > 0) {
  const summary = summaryMarkdown(
    changed.map((r) => ({ dataset: r.dataset, file: r.file!, changes: r.changes!, unreadable: r.unreadable })),
    new Date().toISOString().slice(0, 10),
    linked,
  );
  console.log(`\n${summary}`);
  if (args['summary-file']) await writeFile(args['summary-file'], summary);
}
// The status page's strip of recent runs. Not recorded, the page would hide this run: that is a failure too.
let runLogError: string | undefined;
try {
  const { rewritten } = await recordRun(status, results, startedAt);
  // Started anew, not a failure: a corrupt or oversized log must not fail this and every later run.
  if (rewritten) console.warn(`collect: the run log was unreadable (${rewritten}) and was started anew`);
} catch (error) {
  runLogError = (error as Error).message;
  console.error(`collect: could not record the run in the run log: ${runLogError}`);
}

const failed = results.filter((r) => r.outcome === 'failed' || r.statusError);
console.log(
  `collect: ${changed.length} changed, ${results.filter((r) => r.outcome === 'unchanged').length} unchanged, ${failed.length} failed`,
);
process.exit(failed.length > 0 || runLogError ? 1 : 0);
