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

/** A snapshot the guards hold a collection against, and whether it stands in for one that old (none was). */
export interface WindowSnapshot {
  snapshot: Snapshot;
  standIn: boolean;
}

/**
 * The newest snapshot and, for each age, the newest snapshot at least that old by its
 * `lastUpdated` (the oldest standing in where none is): what the guards hold a collection against.
 * A file's date is its `lastUpdated` date, so only the files of the cut-off date are read to
 * choose, and each file is read once.
 */
export async function snapshotAnchors(
  dir: string,
  dataset: Dataset,
  now: Date,
  agesMs: readonly number[],
): Promise<{ newest?: Snapshot; windows: (WindowSnapshot | undefined)[] }> {
  const dates = await listSnapshotDates(dir, dataset);
  const read = new Map<string, Promise<Snapshot>>();
  const snapshotOf = (date: string) => {
    if (!read.has(date)) read.set(date, readSnapshot(dir, dataset, date));
    return read.get(date)!;
  };
  const newest = dates.length === 0 ? undefined : await snapshotOf(dates.at(-1)!);
  const windows: (WindowSnapshot | undefined)[] = [];
  for (const age of agesMs) {
    const cutoff = new Date(now.getTime() - age);
    const day = cutoff.toISOString().slice(0, 10);
    let found: Snapshot | undefined;
    for (const date of dates.toReversed()) {
      if (date > day) continue;
      const snapshot = await snapshotOf(date);
      if (Date.parse(snapshot.lastUpdated) <= cutoff.getTime()) {
        found = snapshot;
        break;
      }
    }
    if (found) windows.push({ snapshot: found, standIn: false });
    else windows.push(dates.length === 0 ? undefined : { snapshot: await snapshotOf(dates[0]!), standIn: true });
  }
  return { newest, windows };
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
