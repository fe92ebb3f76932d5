import type { Dataset } from '../datasets.ts';
import { HEALTH_PATH } from '../endpoints.ts';
import type { ServedStore } from '../store/served-store.ts';
import { ApiError } from './responses.ts';

/** What a data handler gets: the parsed request and the served store, with one clock reading. */
export interface RequestContext {
  url: URL;
  now: Date;
  store: ServedStore;
}

/** The dataset's newest snapshot or whole history, or a 500 when it has no snapshot at all (nothing collected yet). */
export function withData<H extends { readonly size: number }>(dataset: Dataset, history: H): H {
  if (history.size === 0) {
    throw new ApiError(
      'server_error',
      `An error occurred while retrieving ${dataset.label} data`,
      `No ${dataset.label} snapshot has been collected yet. GET ${HEALTH_PATH} shows the state of each dataset; retry later.`,
    );
  }
  return history;
}
