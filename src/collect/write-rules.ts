/**
 * When a collection is saved: only when the data differs from the newest snapshot; one file per
 * UTC date; a second change on the same date replaces that date's file; an unchanged run writes
 * nothing (/docs/concepts#snapshots-and-time-series).
 */
import { type Dataset, type Entity, itemsOf, type Snapshot, withItems } from '../datasets.ts';
import { listSnapshotDates, readSnapshot, writeSnapshot } from '../snapshots/tree.ts';

export type WriteOutcome = 'unchanged' | 'written' | 'replaced';

export async function newestSnapshot(dir: string, dataset: Dataset): Promise<Snapshot | undefined> {
  const date = (await listSnapshotDates(dir, dataset)).at(-1);
  return date === undefined ? undefined : readSnapshot(dir, dataset, date);
}

/**
 * The newest snapshot dated before `date` (YYYY-MM-DD): what the guards also compare with, since a
 * run of `date` may replace that date's file but never an earlier one.
 */
export async function newestSnapshotBefore(dir: string, dataset: Dataset, date: string): Promise<Snapshot | undefined> {
  const earlier = (await listSnapshotDates(dir, dataset)).filter((d) => d < date).at(-1);
  return earlier === undefined ? undefined : readSnapshot(dir, dataset, earlier);
}

/**
 * Compare data in the canonical form it is written in, so key order cannot fake a change, and with
 * entities and items in id order, so a page that lists the same offers in another order (its
 * sections or lenders reordered) is no change: an offer is what it says, not where it sits.
 */
function sameData(dataset: Dataset, a: readonly Entity[], b: readonly Entity[]): boolean {
  const byId = <T extends { id: string }>(list: readonly T[]) => [...list].sort((x, y) => x.id.localeCompare(y.id));
  const canonical = (data: readonly Entity[]) =>
    JSON.stringify(
      byId<Entity>(
        dataset.schemas.snapshot.parse({ type: dataset.type, data, lastUpdated: '2000-01-01T00:00:00.000Z' }).data,
      ).map((entity) => withItems(dataset, entity, byId(itemsOf(entity)))),
    );
  return canonical(a) === canonical(b);
}

export async function saveIfChanged(
  dir: string,
  dataset: Dataset,
  data: Entity[],
  now: Date,
  previous: Snapshot | undefined,
): Promise<{ outcome: WriteOutcome; file?: string }> {
  if (previous && sameData(dataset, previous.data, data)) return { outcome: 'unchanged' };
  const snapshot: Snapshot = { type: dataset.type, data, lastUpdated: now.toISOString() };
  const replacing = previous?.lastUpdated.slice(0, 10) === snapshot.lastUpdated.slice(0, 10);
  const file = await writeSnapshot(dir, dataset, snapshot);
  return { outcome: replacing ? 'replaced' : 'written', file };
}
