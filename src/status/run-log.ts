/**
 * The run log: what the last RUN_LOG_LENGTH collection runs did, oldest first, kept beside the
 * per-dataset status in the same store. The status page draws it as a strip; it is bounded so
 * the store's object stays small however long the service runs.
 */
import { z } from 'zod';
import type { StatusStore } from './status-store.ts';

/** Two days of hourly runs. */
export const RUN_LOG_LENGTH = 48;

/**
 * A run's or a dataset's outcome: `ok` a new snapshot was written, `unchanged` the page was read
 * and nothing moved, `refused` the page was read but not trusted (a guard or the schema said no),
 * `failed` the page could not be read at all (HTTP, network, timeout).
 */
export const RunOutcome = z.enum(['ok', 'unchanged', 'refused', 'failed']);
export type RunOutcome = z.infer<typeof RunOutcome>;

export const DatasetRun = z.strictObject({
  outcome: RunOutcome,
  /** Why it was refused or failed; absent otherwise. */
  reason: z.string().optional(),
});
export type DatasetRun = z.infer<typeof DatasetRun>;

export const CollectionRun = z.strictObject({
  /** When the run started (ISO 8601 UTC). */
  at: z.iso.datetime(),
  /** The worst of its datasets' outcomes: failed, then refused, then ok, then unchanged. */
  outcome: RunOutcome,
  /** The datasets the run collected, by slug (a run limited with --dataset names fewer). */
  datasets: z.record(z.string(), DatasetRun),
});
export type CollectionRun = z.infer<typeof CollectionRun>;

export const RunLog = z.array(CollectionRun).max(RUN_LOG_LENGTH);

const SEVERITY: readonly RunOutcome[] = ['unchanged', 'ok', 'refused', 'failed'];

/** The run's outcome: the most serious of its datasets' (a run with no dataset is unchanged). */
export function runOutcome(datasets: readonly DatasetRun[]): RunOutcome {
  return datasets.reduce<RunOutcome>(
    (worst, d) => (SEVERITY.indexOf(d.outcome) > SEVERITY.indexOf(worst) ? d.outcome : worst),
    'unchanged',
  );
}

/** The log with `run` added at the end, the oldest runs dropped past RUN_LOG_LENGTH. */
export function withRun(log: readonly CollectionRun[], run: CollectionRun): CollectionRun[] {
  return [...log, CollectionRun.parse(run)].slice(-RUN_LOG_LENGTH);
}

/** Add a run to the store's log. One collector runs at a time (the workflow's concurrency group), so read-then-write is safe. */
export async function appendRun(store: StatusStore, run: CollectionRun): Promise<void> {
  await store.writeRuns(withRun(await store.readRuns(), run));
}

/** The log as stored: 2-space JSON, one file or object. */
export const runLogText = (runs: readonly CollectionRun[]) => `${JSON.stringify(RunLog.parse(runs), null, 2)}\n`;

/** A stored log read back; a log longer than the limit (an older build's) keeps its newest runs. */
export const parseRunLog = (text: string): CollectionRun[] =>
  RunLog.parse((z.array(z.unknown()).parse(JSON.parse(text)) as unknown[]).slice(-RUN_LOG_LENGTH));
