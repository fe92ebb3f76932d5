/**
 * What the status page (/status) shows: health, as GET /api/v1/health says it to a machine, and
 * the run log of the recent collection runs, read when the page is asked for. The words for
 * times and outcomes live here so the page stays markup.
 */
import { healthReport } from './health.ts';
import { cleanText } from '../lib/clean-text.ts';
import { STALE_AFTER } from '../lib/stale-after.ts';
import { isAhead, logAheadOnce } from './clock-skew.ts';
import { parseHealthTime, timeAgo } from '../lib/time-words.ts';
import type { DatasetHealth, Health } from '../schemas/health.ts';
import type { ServedStore } from '../store/served-store.ts';
import type { CollectionRun, RunOutcome } from './run-log.ts';
import type { StatusStore } from './status-store.ts';

export interface StatusReport {
  health: Health;
  /** The run log, oldest first; empty when no run was recorded or the log could not be read. */
  runs: CollectionRun[];
  /** Why the run log could not be read, when it could not: clean, at most REASON_MAX_CHARS. */
  runsError?: string;
  now: Date;
}

/**
 * The run log as /status and GET /api/v1/status read it: a run dated ahead of the clock
 * (src/status/clock-skew.ts) left out, as if not logged, and a log that cannot be read an empty
 * one with the reason, clean (an unreadable log's message is clean already, src/status/stored.ts;
 * an I/O error's may not be).
 */
export function readRunLog(
  status: StatusStore,
  now: Date,
  log: (message: string, error: unknown) => void,
): Promise<Pick<StatusReport, 'runs' | 'runsError'>> {
  return status.readRuns().then(
    (runs) => {
      const ahead = runs.findLast((run) => isAhead(run.at, now));
      if (ahead) logAheadOnce(log, 'status: a run in the run log', ahead.at, now);
      return { runs: ahead ? runs.filter((run) => !isAhead(run.at, now)) : runs };
    },
    (error: unknown) => {
      log('status: run log unreadable:', error);
      return { runs: [], runsError: cleanText(error instanceof Error ? error.message : String(error)) };
    },
  );
}

export async function statusReport(
  loadStore: () => Promise<ServedStore>,
  status: StatusStore,
  now: Date,
  log: (message: string, error: unknown) => void,
): Promise<StatusReport> {
  const [health, runs] = await Promise.all([healthReport(loadStore, status, now, log), readRunLog(status, now, log)]);
  return { health, ...runs, now };
}

/** "26 Nov 2026, 11:16 pm NZDT": New Zealand time, as the rates pages show it (src/lib/time-words.ts). */
export { nzTime } from '../lib/time-words.ts';

/** How long before `now` the time `at` was, in words (src/lib/time-words.ts). */
export const ago = (at: Date, now: Date) => timeAgo(at, now);

/**
 * What the page says of a dataset, mildest first: `fresh` checked within the stale threshold, its newest run
 * fine and the newest data served or being deployed (health's `pending`); `uncollected` no collector reports it here (a copy serving its
 * committed snapshots); `failing` its newest run failed or was refused, though an earlier one
 * within the threshold succeeded; `unknown` a collector is expected or the status store failed, and no
 * collection is recorded; `stale` no successful collection for longer than the threshold; `behind` a newer
 * collection is not deployed; `missing` this deployment has no data of it. Each has its own words
 * and colour on the page, and only `fresh` the healthy one.
 */
export const DATASET_STATES = ['fresh', 'uncollected', 'failing', 'unknown', 'stale', 'behind', 'missing'] as const;
export type DatasetState = (typeof DATASET_STATES)[number];
/** The page's banner: its worst dataset's state, or `error` when the service cannot read its data at all. */
export type PageState = DatasetState | 'error';

/** Each state in a word or two, beside its colour: never by colour alone. */
export const STATE_WORDS: Record<PageState, string> = {
  fresh: 'Fresh',
  uncollected: 'Not collected here',
  failing: 'Failing',
  unknown: 'Unknown',
  stale: 'Stale',
  behind: 'Behind',
  missing: 'No data',
  error: 'Error',
};

/** What the table's times mean, and when a dataset is stale: the sentence below the datasets' table. */
export const TABLE_HELP =
  '“Last checked” is the last collection that read the page, changed or not; “last changed” is when the collector last found a rate move. ' +
  `A dataset not checked for ${STALE_AFTER.words} is stale.`;

/** Each dataset's outcome in the newest run that collected it. */
export function newestOutcomes(runs: readonly CollectionRun[]): Map<string, RunOutcome> {
  const outcomes = new Map<string, RunOutcome>();
  for (const run of runs) for (const [slug, d] of Object.entries(run.datasets)) outcomes.set(slug, d.outcome);
  return outcomes;
}

/** A dataset's state (DATASET_STATES), from its health, the collection's and its newest run's outcome. */
export function datasetState(
  dataset: DatasetHealth,
  collection: Health['collection'],
  newest: RunOutcome | undefined,
): DatasetState {
  if (dataset.lastUpdated === null) return 'missing';
  if (dataset.deployment === 'behind') return 'behind';
  if (dataset.stale) return 'stale';
  if (dataset.lastChecked === null)
    return collection.status === 'unavailable' || collection.required ? 'unknown' : 'uncollected';
  if (newest === 'failed' || newest === 'refused') return 'failing';
  return 'fresh';
}

/**
 * The banner's state: the worst of the datasets' (`error` when health is). Health `degraded` is
 * never shown as fresh or uncollected: each of its causes makes some dataset worse than that.
 */
export function pageState(health: Health, states: readonly DatasetState[]): PageState {
  if (health.status === 'error') return 'error';
  const rank = (s: DatasetState) => DATASET_STATES.indexOf(s);
  const worst = states.reduce<DatasetState>((w, s) => (rank(s) > rank(w) ? s : w), 'fresh');
  return health.status === 'degraded' && rank(worst) < rank('unknown') ? 'unknown' : worst;
}

/** The banner's sentence for the page's state. */
export function headline(state: PageState, health: Health): string {
  if (state === 'error') return 'The service cannot read its data';
  if (health.status !== 'ok') return 'Something needs attention';
  if (state === 'fresh')
    // Fresh covers a newer collection still within its deployment's grace: served soon, not yet.
    return Object.values(health.datasets).some((d) => d.deployment === 'pending')
      ? 'All datasets are fresh; a newer collection is being deployed'
      : 'All datasets are fresh and served';
  if (state === 'uncollected')
    return health.collection.status === 'ok'
      ? 'Serving the committed snapshots of some datasets: no collector reports them here'
      : 'Serving the committed snapshots: no collector reports here';
  if (state === 'failing') return 'The newest collection run failed for some datasets';
  return 'Something needs attention';
}

/** A part of one of health's sentences: words, a command (backticked in health), or a time. */
export type SentencePart = { text: string } | { code: string } | { time: Date };

/**
 * One of health's sentences (its problems, the collection's message) in parts, for the page to
 * show: commands as code, and health's UTC times (`YYYY-MM-DD HH:MM:SS`) as times, which the page
 * says in New Zealand time like every other date of it.
 */
export function sentenceParts(sentence: string): SentencePart[] {
  return sentence
    .split('`')
    .flatMap((part, i): SentencePart[] =>
      i % 2 === 1
        ? [{ code: part }]
        : part
            .split(/(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})/)
            .flatMap((piece, j): SentencePart[] =>
              j % 2 === 1 ? [{ time: parseHealthTime(piece) }] : piece ? [{ text: piece }] : [],
            ),
    );
}

/** What each outcome means, for the strip's legend and its cells' labels. */
export const OUTCOME_WORDS: Record<RunOutcome, string> = {
  ok: 'new rates collected',
  unchanged: 'checked, nothing changed',
  refused: 'page read but not trusted, nothing written',
  failed: 'page could not be read, nothing written',
};

/** The deployment states of health, said to a person. */
export const DEPLOYMENT_WORDS: Record<Health['datasets'][string]['deployment'], string> = {
  current: 'serves the newest collected data',
  pending: 'a newer collection is being deployed',
  behind: 'behind: a newer collection is not deployed',
  unknown: 'unknown: no collection recorded',
};

/** How many of the newest runs the page's strip and its list of problems show; the chart shows the window. */
export const RECENT_RUNS_SHOWN = 48;

/** A share as the page says it: "98.6 %", "100 %". */
export const percentWords = (share: number) => `${Math.round(share * 1000) / 10} %`;

/** Hours as the page says them: "40 minutes", "1 hour", "5.5 hours", "3 days". */
export function hoursWords(hours: number): string {
  if (hours < 1) return `${Math.round(hours * 60)} minutes`;
  if (hours >= 48) return `${Math.round(hours / 24)} days`;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}
