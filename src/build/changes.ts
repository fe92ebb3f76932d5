/**
 * The change log of every dataset as the site's build sees it (from the compiled history the
 * explorer renders): what the feed and CSV routes under src/pages/rates/ are made from. Build time only.
 */
import { EXPLORER_VIEWS } from '../generated.ts';
import type { DatasetView } from '../explorer/pages.ts';
import type { DatasetChanges } from '../changes/feeds.ts';
import { changeDays, entitiesEver } from '../changes/model.ts';

export interface BuiltChanges {
  view: DatasetView;
  changes: DatasetChanges;
  /** Every institution or issuer ever listed: each has a feed, also after it is no longer listed. */
  entities: ReturnType<typeof entitiesEver>;
}

export const BUILT_CHANGES: BuiltChanges[] = EXPLORER_VIEWS.map((view) => ({
  view,
  changes: {
    dataset: view.dataset,
    days: changeDays(view.dataset, view.snapshots),
    lastUpdated: view.latest.lastUpdated,
  },
  entities: entitiesEver(view.snapshots),
}));
