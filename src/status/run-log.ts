/**
 * The run log: what the last RUN_LOG_LENGTH collection runs did, oldest first, kept beside the
 * per-dataset status in the same store. The status page draws it, and GET /api/v1/status counts
 * each dataset's reliability from it (src/status/figures.ts); it is bounded in
 * runs and in bytes so the store's object stays small however long the service runs and whatever
 * the pages say, and a log that cannot be read is started anew rather than failing every run.
 */
import { z } from 'zod';
import { parseStored, StoredReason, UnreadableStored } from './stored.ts';

/** Thirty days of hourly runs: the window the reliability figures cover. */
export const RUN_LOG_LENGTH = 720;

/**
 * The most bytes the stored log holds, and the most a reader reads of it (a larger stored log is
 * unreadable; the rest of it is never read). 720 quiet runs of today's datasets, each with its
 * institutions and rates, take ≈ 410 KB; with one dataset in ten refused with a 300-character
 * reason ≈ 510 KB; with every dataset of every run refused so ≈ 1.4 MB (test/status-bounds.test.ts
 * measures them). 2 MiB holds each with room to spare, so it only bites when many runs fail with
 * reasons far longer than the guards write (up to REASON_MAX_CHARS): then the oldest runs are
 * dropped until the log fits. /status and GET /api/v1/status read it whole, so it bounds their work too.
 */
export const RUN_LOG_MAX_BYTES = 2 * 1024 * 1024;

/**
 * A run's or a dataset's outcome: `ok` a new snapshot was written, `unchanged` the page was read
 * and nothing moved, `refused` the page was read but not trusted (a guard or the schema said no),
 * `failed` the page could not be read at all (HTTP, network, timeout).
 */
export const RunOutcome = z.enum(['ok', 'unchanged', 'refused', 'failed']);
export type RunOutcome = z.infer<typeof RunOutcome>;

const Count = z.number().int().nonnegative();

export const DatasetRun = z.strictObject({
  outcome: RunOutcome,
  /** Why it was refused or failed (clean, at most REASON_MAX_CHARS); absent otherwise. */
  reason: StoredReason.optional(),
  /**
   * The rule a refusal broke, as its reason names it (`refused (<rule>): …`); absent otherwise,
   * and in runs logged before it was recorded (refusalRule reads those from the reason).
   */
  rule: StoredReason.optional(),
  /** The institutions and rates the page listed, when it was read that far; absent otherwise, and in older runs. */
  institutions: Count.optional(),
  rates: Count.optional(),
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

/** The log as stored: 2-space JSON, one file or object. */
const logJson = (runs: readonly CollectionRun[]) => `${JSON.stringify(runs, null, 2)}\n`;

const fits = (runs: readonly CollectionRun[]) => Buffer.byteLength(logJson(runs)) <= RUN_LOG_MAX_BYTES;

/** A run's bytes inside logJson's array: its own 2-space JSON, one level in. */
const runBytes = (run: CollectionRun) => Buffer.byteLength(JSON.stringify([run], null, 2)) - '[\n\n]'.length;

/** The log as written: within both bounds. */
const RunLog = z.array(CollectionRun).max(RUN_LOG_LENGTH).refine(fits, `must fit in ${RUN_LOG_MAX_BYTES} bytes`);

/**
 * The newest runs that fit both bounds, oldest dropped first. The newest run alone always fits
 * (a few datasets × REASON_MAX_CHARS is far below RUN_LOG_MAX_BYTES), so the log is never empty
 * after a run.
 */
function newestThatFit(runs: readonly CollectionRun[]): CollectionRun[] {
  const recent = runs.slice(-RUN_LOG_LENGTH);
  // logJson's bytes counted run by run from the newest ("[\n", the runs joined by ",\n", "\n]\n"), each run serialized once.
  let bytes = '[\n\n]\n'.length;
  let first = recent.length;
  while (first > 0) {
    const more = bytes + runBytes(recent[first - 1]!) + (first < recent.length ? ',\n'.length : 0);
    if (more > RUN_LOG_MAX_BYTES && first < recent.length) break;
    bytes = more;
    first--;
  }
  return recent.slice(first);
}

/**
 * The log as read back: its reasons cleaned and cut (StoredReason), and one longer than either
 * bound (an older build's) kept as its newest runs that fit.
 */
const StoredRunLog = z
  .array(z.unknown())
  .transform((runs) => runs.slice(-RUN_LOG_LENGTH))
  .pipe(z.array(CollectionRun))
  .transform(newestThatFit);

const SEVERITY: readonly RunOutcome[] = ['unchanged', 'ok', 'refused', 'failed'];

/** The rule words of a refusal's reason (`refused (<rule>): evidence`), which the collector's guards and page reader write. */
const REFUSED_RULE = /^refused \((.+?)\): /;

/** The rule a refused dataset broke: recorded, or, in an older run, named in its reason; undefined when neither says. */
export const refusalRule = (run: DatasetRun): string | undefined =>
  run.rule ?? REFUSED_RULE.exec(run.reason ?? '')?.[1];

/** The run's outcome: the most serious of its datasets' (a run with no dataset is unchanged). */
export function runOutcome(datasets: readonly DatasetRun[]): RunOutcome {
  return datasets.reduce<RunOutcome>(
    (worst, d) => (SEVERITY.indexOf(d.outcome) > SEVERITY.indexOf(worst) ? d.outcome : worst),
    'unchanged',
  );
}

/** The log with `run` added at the end, the oldest runs dropped past RUN_LOG_LENGTH or RUN_LOG_MAX_BYTES. */
function withRun(log: readonly CollectionRun[], run: CollectionRun): CollectionRun[] {
  return newestThatFit([...log, CollectionRun.parse(run)]);
}

/**
 * Add a run to the store's log. One collector runs at a time (the workflow's concurrency group),
 * so read-then-write is safe. A stored log that is unreadable (too large, not JSON, not a log) is
 * started anew from this run, never a reason for this and every later run to fail; `rewritten`
 * then says why, so the collector can warn. A store that cannot be reached still throws: its log
 * may be fine, and must not be overwritten.
 */
export async function appendRun(
  store: { readRuns(): Promise<CollectionRun[]>; writeRuns(runs: readonly CollectionRun[]): Promise<void> },
  run: CollectionRun,
): Promise<{ rewritten: string | undefined }> {
  let log: CollectionRun[] = [];
  let rewritten: string | undefined;
  try {
    log = await store.readRuns();
  } catch (error) {
    if (!(error instanceof UnreadableStored)) throw error;
    rewritten = error.message;
  }
  await store.writeRuns(withRun(log, run));
  return { rewritten };
}

/** The log as stored; a log past either bound is refused (withRun never makes one). */
export const runLogText = (runs: readonly CollectionRun[]) => logJson(RunLog.parse(runs));

/** A stored log read back (`name` says which, in the error when it is unreadable). */
export const parseRunLog = (text: string, name: string): CollectionRun[] => parseStored(text, StoredRunLog, name);
