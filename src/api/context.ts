import type { Dataset, Entity, Snapshot } from '../datasets.ts';
import { TERMS_OF_USE } from '../schemas/common.ts';
import type { DatasetHistory, ServedStore } from '../store/served-store.ts';
import { ApiError } from './responses.ts';

/** What a data handler gets: the parsed request and the served store, with one clock reading. */
export interface RequestContext {
  url: URL;
  origin: string;
  now: Date;
  store: ServedStore;
}

/** The dataset's history, or a 500 when it has no snapshot at all (nothing collected yet). */
export function historyWithData(dataset: Dataset, store: ServedStore): DatasetHistory {
  const history = store.history(dataset.slug);
  if (history.dates.length === 0) {
    throw new ApiError(
      'server_error',
      `An error occurred while retrieving ${dataset.label} data`,
      `No ${dataset.label} snapshot has been collected yet. GET /api/v1/health shows the state of each dataset; retry later.`,
    );
  }
  return history;
}

/** Apply the dataset's rate filters (e.g. mortgage termInMonths) named in the query. */
export function applyFilters(
  dataset: Dataset,
  data: readonly Entity[],
  query: Record<string, string | undefined>,
): Entity[] {
  let result = [...data];
  for (const filter of dataset.filters) {
    const value = query[filter.name];
    if (value !== undefined) result = filter.apply(result, value);
  }
  return result;
}

export function envelope(snapshot: Snapshot, data: Entity[], now: Date) {
  return {
    type: snapshot.type,
    data,
    lastUpdated: snapshot.lastUpdated,
    termsOfUse: TERMS_OF_USE,
    timestamp: now.toISOString(),
  };
}
