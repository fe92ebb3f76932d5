/**
 * Each dataset's collection reliability over the run log's window (RUN_LOG_LENGTH hourly runs,
 * thirty days): how often its runs succeeded, how long since and how long between good runs,
 * its refusals by rule, and the institutions and rates its good runs listed. GET /api/v1/status
 * answers it and /status shows it. Every dataset is present; one no recorded run collected says
 * so (`runs: 0`, nulls and a message) rather than showing zeros as success.
 */
import { DATASETS } from '../datasets.ts';
import type { DatasetReliability, StatusFigures } from '../schemas/status.ts';
import { type CollectionRun, type DatasetRun, RUN_LOG_LENGTH, refusalRule, RunOutcome } from './run-log.ts';
import type { StatusStoreKind } from './status-store.ts';

const HOUR_MS = 60 * 60 * 1000;
/** The window: as many hours as the log keeps runs, so a full log is the window. */
const WINDOW_MS = RUN_LOG_LENGTH * HOUR_MS;
export const WINDOW_DAYS = WINDOW_MS / (24 * HOUR_MS);

/** A refusal whose run named no rule (an older reason without the `refused (<rule>)` form). */
const UNRECORDED_RULE = 'unrecorded';

const isGood = (outcome: RunOutcome) => outcome === 'ok' || outcome === 'unchanged';
const hours = (ms: number) => Math.round(ms / HOUR_MS / 0.1) / 10;

/** One dataset's outcome in one run of the window. */
export interface DatasetRunAt extends DatasetRun {
  at: string;
}

/** The runs of the window, oldest first: those from `now` minus WINDOW_MS on (the log holds no run ahead of the clock). */
export function windowRuns(runs: readonly CollectionRun[], now: Date): CollectionRun[] {
  const from = now.getTime() - WINDOW_MS;
  return runs.filter((run) => Date.parse(run.at) >= from);
}

/** A dataset's runs in `runs`, oldest first: the runs that collected it. */
export const runsOf = (runs: readonly CollectionRun[], slug: string): DatasetRunAt[] =>
  runs.flatMap((run) => {
    const d = run.datasets[slug];
    return d ? [{ ...d, at: run.at }] : [];
  });

/** The newest value, the least and the most of a count over the good runs that recorded it, or null. */
function countRange(good: readonly DatasetRunAt[], key: 'institutions' | 'rates'): DatasetReliability['rates'] {
  const values = good.flatMap((run) => (run[key] === undefined ? [] : [run[key]]));
  if (values.length === 0) return null;
  return { latest: values.at(-1)!, min: Math.min(...values), max: Math.max(...values) };
}

function reliability(runs: readonly DatasetRunAt[], now: Date, unrecorded: string): DatasetReliability {
  const good = runs.filter((run) => isGood(run.outcome));
  const outcomes = Object.fromEntries(RunOutcome.options.map((o) => [o, 0])) as DatasetReliability['outcomes'];
  const refusals: Record<string, number> = {};
  for (const run of runs) {
    outcomes[run.outcome]++;
    if (run.outcome === 'refused') {
      const rule = refusalRule(run) ?? UNRECORDED_RULE;
      refusals[rule] = (refusals[rule] ?? 0) + 1;
    }
  }
  let longestGap: number | null = null;
  for (let i = 1; i < good.length; i++) {
    const gap = Date.parse(good[i]!.at) - Date.parse(good[i - 1]!.at);
    if (longestGap === null || gap > longestGap) longestGap = gap;
  }
  const lastGood = good.at(-1)?.at ?? null;
  return {
    runs: runs.length,
    succeeded: good.length,
    successShare: runs.length === 0 ? null : Math.round((good.length / runs.length) * 10_000) / 10_000,
    outcomes,
    lastGoodRun: lastGood,
    hoursSinceLastGood: lastGood === null ? null : hours(Math.max(0, now.getTime() - Date.parse(lastGood))),
    longestGapHours: longestGap === null ? null : hours(longestGap),
    refusals,
    institutions: countRange(good, 'institutions'),
    rates: countRange(good, 'rates'),
    ...(runs.length === 0 ? { message: unrecorded } : {}),
  };
}

const EMPTY_LOG: Record<StatusStoreKind, string> = {
  filesystem:
    'No collection run has been recorded here: this server serves the committed snapshots. `npm run collect` collects and records its run.',
  'vercel-blob': 'No collection run has been recorded in Vercel Blob yet.',
  none: 'No collection status store is configured (BLOB_READ_WRITE_TOKEN is not set), so no collection run is recorded here.',
};

/**
 * The figures from the run log as read (`runsError` when it could not be: src/status/report.ts
 * readRunLog), with the store it was read from, at `now`.
 */
export function statusFigures(
  read: { runs: readonly CollectionRun[]; runsError?: string },
  store: StatusStoreKind,
  now: Date,
): StatusFigures {
  const runs = windowRuns(read.runs, now);
  const runLog: StatusFigures['runLog'] = read.runsError
    ? { status: 'unreadable', store, message: `The run log could not be read (${read.runsError}).` }
    : read.runs.length === 0
      ? { status: 'empty', store, message: EMPTY_LOG[store] }
      : { status: 'ok', store };
  const unrecorded =
    runLog.status === 'ok'
      ? `No recorded run collected it in the last ${WINDOW_DAYS} days, so its reliability is unknown.`
      : `No run is recorded, so its reliability is unknown: ${runLog.message}`;
  return {
    window: {
      days: WINDOW_DAYS,
      from: new Date(now.getTime() - WINDOW_MS).toISOString(),
      to: now.toISOString(),
      runs: runs.length,
    },
    runLog,
    datasets: Object.fromEntries(DATASETS.map((d) => [d.slug, reliability(runsOf(runs, d.slug), now, unrecorded)])),
    timestamp: now.toISOString(),
  };
}
