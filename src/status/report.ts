/**
 * What the status page (/status) shows: health, as GET /api/v1/health says it to a machine, and
 * the run log of the recent collection runs, read when the page is asked for. The words for
 * times and outcomes live here so the page stays markup.
 */
import { healthReport } from '../api/health.ts';
import { cleanText } from '../lib/clean-text.ts';
import { timeAgo } from '../lib/time-words.ts';
import type { Health } from '../schemas/health.ts';
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

export async function statusReport(
  loadStore: () => Promise<ServedStore>,
  status: StatusStore,
  now: Date,
  log: (message: string, error: unknown) => void,
): Promise<StatusReport> {
  const [health, runs] = await Promise.all([
    healthReport(loadStore, status, now, log),
    status.readRuns().then(
      (runs) => ({ runs }),
      (error: unknown) => {
        log('status: run log unreadable:', error);
        // Shown on the page: an unreadable log's message is clean already (src/status/stored.ts), an I/O error's may not be.
        return { runs: [], runsError: cleanText(error instanceof Error ? error.message : String(error)) };
      },
    ),
  ]);
  return { health, ...runs, now };
}

/** "26 Nov 2026, 11:16 pm NZDT": New Zealand time, as the rates pages show it. */
export const nzTime = (at: Date) =>
  at.toLocaleString('en-NZ', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'Pacific/Auckland',
    timeZoneName: 'short',
  });

/** How long before `now` the time `at` was, in words (src/lib/time-words.ts). */
export const ago = (at: Date, now: Date) => timeAgo(now.getTime() - at.getTime());

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
