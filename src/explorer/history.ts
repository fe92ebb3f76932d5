/**
 * The explorer's figures, computed at build time from the compiled history: each snapshot as
 * objects (shared between snapshots, as in the store), the lowest offer per measure and who
 * makes it, lowest and median over time, one institution's rates over time, and the latest moves.
 */
import { type Dataset, type Entity, entityOf, type Item, itemsOf } from '../datasets.ts';
import { diffSnapshots, type Value } from '../snapshots/diff.ts';
import type { CompiledDataset } from '../store/compile.ts';
import { countedOffers, type ExplorerDefinition, type Offer } from './definitions.ts';

export interface SnapshotObjects {
  date: string;
  lastUpdated: string;
  data: Entity[];
}

/** Every snapshot as objects; an entity or item unchanged between snapshots is the same object. */
export function snapshotsOf(dataset: Dataset, compiled: CompiledDataset): SnapshotObjects[] {
  const items: Item[] = compiled.items.map((json) => JSON.parse(json) as Item);
  const entities: Entity[] = compiled.entities.map(([id, name, own]) =>
    entityOf(
      dataset,
      id,
      name,
      own.map((i) => items[i]!),
    ),
  );
  return compiled.snapshots.map((list, s) => ({
    date: compiled.dates[s]!,
    lastUpdated: compiled.lastUpdated[s]!,
    data: list.map((e) => entities[e]!),
  }));
}

export interface Who {
  entity: Entity;
  item: Item;
  offer: Offer;
}

/** The lowest counted value of each measure in a snapshot, and every offer that makes it. */
export function lowestByMeasure(
  definition: ExplorerDefinition,
  data: readonly Entity[],
): Map<string, { value: number; who: Who[] }> {
  const lowest = new Map<string, { value: number; who: Who[] }>();
  for (const entity of data) {
    for (const item of itemsOf(entity)) {
      for (const offer of countedOffers(definition, item)) {
        const best = lowest.get(offer.key);
        if (!best || offer.value < best.value)
          lowest.set(offer.key, { value: offer.value, who: [{ entity, item, offer }] });
        else if (offer.value === best.value) best.who.push({ entity, item, offer });
      }
    }
  }
  return lowest;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round(((sorted[mid - 1]! + sorted[mid]!) / 2) * 1000) / 1000;
}

export interface TrendPoint {
  date: string;
  lowest: number | null;
  median: number | null;
}

/** Per measure: the lowest and the median of every offer, on each snapshot date. */
export function trends(definition: ExplorerDefinition, snapshots: SnapshotObjects[]): Map<string, TrendPoint[]> {
  const result = new Map(definition.measures.map((m) => [m.key, [] as TrendPoint[]]));
  for (const snapshot of snapshots) {
    const values = new Map<string, number[]>();
    for (const entity of snapshot.data) {
      for (const item of itemsOf(entity)) {
        for (const offer of countedOffers(definition, item)) {
          if (!values.has(offer.key)) values.set(offer.key, []);
          values.get(offer.key)!.push(offer.value);
        }
      }
    }
    for (const [key, points] of result) {
      const list = values.get(key) ?? [];
      points.push({ date: snapshot.date, lowest: list.length ? Math.min(...list) : null, median: median(list) });
    }
  }
  return result;
}

/** One entity's lowest offer per measure on each date it was listed. */
export function entityTrend(
  definition: ExplorerDefinition,
  snapshots: SnapshotObjects[],
  id: string,
): Map<string, { date: string; value: number | null }[]> {
  const result = new Map(definition.measures.map((m) => [m.key, [] as { date: string; value: number | null }[]]));
  for (const snapshot of snapshots) {
    const entity = snapshot.data.find((e) => e.id === id);
    if (!entity) continue;
    const best = new Map<string, number>();
    for (const item of itemsOf(entity)) {
      for (const offer of countedOffers(definition, item))
        best.set(offer.key, Math.min(best.get(offer.key) ?? Infinity, offer.value));
    }
    for (const [key, points] of result) points.push({ date: snapshot.date, value: best.get(key) ?? null });
  }
  return result;
}

export interface Move {
  dataset: Dataset;
  date: string;
  entity: Entity;
  item: Item;
  what: string;
  from?: Value;
  to?: Value;
}

/** The value moves between consecutive snapshots, newest first. */
export function recentMoves(dataset: Dataset, snapshots: SnapshotObjects[], limit: number): Move[] {
  const moves: Move[] = [];
  for (let s = snapshots.length - 1; s > 0 && moves.length < limit; s--) {
    const diff = diffSnapshots(snapshots[s - 1]!.data, snapshots[s]!.data);
    for (const move of diff.moves) moves.push({ dataset, date: snapshots[s]!.date, ...move });
  }
  return moves.slice(0, limit);
}
