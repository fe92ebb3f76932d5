/** A collection run as the run log keeps it (src/status/run-log.ts): each dataset's outcome, and why. */
import { appendRun, type CollectionRun, type DatasetRun, runOutcome } from '../status/run-log.ts';
import type { StatusStore } from '../status/status-store.ts';
import type { DatasetResult } from './collect.ts';

function datasetRun(result: DatasetResult): DatasetRun {
  // What the page listed, when it was read that far: the figures of GET /api/v1/status read it.
  const counts = {
    ...(result.institutions === undefined ? {} : { institutions: result.institutions }),
    ...(result.rates === undefined ? {} : { rates: result.rates }),
  };
  if (result.outcome === 'failed') {
    const reason = result.reason ?? 'unknown error';
    if (!result.refused) return { outcome: 'failed', reason, ...counts };
    return { outcome: 'refused', reason, ...(result.rule ? { rule: result.rule } : {}), ...counts };
  }
  if (result.statusError)
    return { outcome: 'failed', reason: `the status could not be recorded: ${result.statusError}`, ...counts };
  return { outcome: result.outcome === 'unchanged' ? 'unchanged' : 'ok', ...counts };
}

function runRecord(results: readonly DatasetResult[], at: Date): CollectionRun {
  const datasets = Object.fromEntries(results.map((r) => [r.dataset.slug, datasetRun(r)]));
  return { at: at.toISOString(), outcome: runOutcome(Object.values(datasets)), datasets };
}

/** Add the run to the store's log; `rewritten` says why, when an unreadable log was started anew. */
export const recordRun = (store: StatusStore, results: readonly DatasetResult[], at: Date) =>
  appendRun(store, runRecord(results, at));
