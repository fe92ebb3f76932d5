/**
 * The explorer's figures, computed at build time from the compiled history: each snapshot as
 * objects (shared between snapshots, as in the store), the best open offer per measure and who
 * makes it (restricted offers apart), best and median over time, one institution's rates over
 * time, each institution's standing for one measure, and the latest moves. "Best" is the lowest or
 * the highest value, as the dataset's explorer facts say (`best` in src/explorer/definitions.ts).
 */
import { type Dataset, type Entity, entityOf, type Item, itemsOf } from '../datasets.ts';
import { diffSnapshots } from '../snapshots/diff.ts';
import type { Value } from '../schemas/corrections.ts';
import type { CompiledDataset } from '../store/compile.ts';
import { bestFirst, byNext, type ExplorerDefinition, isBetter, type Offer, openOffers } from './definitions.ts';
import { bestRateOf } from './best.ts';

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

/** Every offer of a snapshot with its entity and item. */
function* everyOffer(definition: ExplorerDefinition, data: readonly Entity[]): Generator<Who> {
  for (const entity of data)
    for (const item of itemsOf(entity))
      for (const offer of definition.offers(item, entity)) yield { entity, item, offer };
}

export interface Best {
  /** The best value open to anyone, and every offer that makes it. */
  value: number;
  who: Who[];
  /** Restricted offers better than it, best first: shown apart, with whom they are for. */
  restricted: Who[];
}

/** Offers tied on value in the order a person weighs them: what they pay next, then the lender's and the item's name. */
export const tiedOrder = (a: Who, b: Who): number =>
  byNext(a.offer, b.offer) ||
  a.entity.name.localeCompare(b.entity.name, 'en') ||
  a.item.name.localeCompare(b.item.name, 'en') ||
  a.offer.id.localeCompare(b.offer.id);

const byValue = (definition: ExplorerDefinition) => (a: Who, b: Who) =>
  bestFirst(definition, a.offer.key)(a.offer.value, b.offer.value) || tiedOrder(a, b);

/** Per measure: the best open offer of a snapshot, who makes it, and the restricted offers better than it. */
export function bestByMeasure(definition: ExplorerDefinition, data: readonly Entity[]): Map<string, Best> {
  const best = new Map<string, Best>();
  const restricted: Who[] = [];
  for (const who of everyOffer(definition, data)) {
    const { offer } = who;
    if (offer.restricted) {
      restricted.push(who);
      continue;
    }
    const found = best.get(offer.key);
    if (!found || isBetter(definition, offer.key, offer.value, found.value))
      best.set(offer.key, { value: offer.value, who: [who], restricted: [] });
    else if (offer.value === found.value) found.who.push(who);
  }
  for (const who of restricted.sort(byValue(definition))) {
    const found = best.get(who.offer.key);
    if (found && isBetter(definition, who.offer.key, who.offer.value, found.value)) found.restricted.push(who);
  }
  for (const found of best.values()) found.who.sort(tiedOrder);
  return best;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round(((sorted[mid - 1]! + sorted[mid]!) / 2) * 1000) / 1000;
}

export interface TrendPoint {
  date: string;
  best: number | null;
  median: number | null;
}

/** The best of a measure's values, as its best rate is declared, or null when there are none. */
const bestOf = (definition: ExplorerDefinition, key: string, values: number[]): number | null =>
  values.length ? (bestRateOf(definition, key).end === 'lowest' ? Math.min(...values) : Math.max(...values)) : null;

/** Per measure: the best and the median of the open offers, on each snapshot date. */
export function trends(definition: ExplorerDefinition, snapshots: SnapshotObjects[]): Map<string, TrendPoint[]> {
  const result = new Map(definition.measures.map((m) => [m.key, [] as TrendPoint[]]));
  for (const snapshot of snapshots) {
    const values = new Map<string, number[]>();
    for (const entity of snapshot.data) {
      for (const item of itemsOf(entity)) {
        for (const offer of openOffers(definition, entity, item)) {
          if (!values.has(offer.key)) values.set(offer.key, []);
          values.get(offer.key)!.push(offer.value);
        }
      }
    }
    for (const [key, points] of result) {
      const list = values.get(key) ?? [];
      points.push({ date: snapshot.date, best: bestOf(definition, key, list), median: median(list) });
    }
  }
  return result;
}

/** One entity's best open offer per measure on every snapshot date (null where it had none or was not listed). */
export function entityTrend(
  definition: ExplorerDefinition,
  snapshots: SnapshotObjects[],
  id: string,
): Map<string, { date: string; value: number | null }[]> {
  const result = new Map(definition.measures.map((m) => [m.key, [] as { date: string; value: number | null }[]]));
  for (const snapshot of snapshots) {
    const entity = snapshot.data.find((e) => e.id === id);
    const best = new Map<string, number>();
    if (entity) {
      for (const item of itemsOf(entity)) {
        for (const offer of openOffers(definition, entity, item)) {
          const found = best.get(offer.key);
          if (found === undefined || isBetter(definition, offer.key, offer.value, found))
            best.set(offer.key, offer.value);
        }
      }
    }
    for (const [key, points] of result) points.push({ date: snapshot.date, value: best.get(key) ?? null });
  }
  return result;
}

export interface Standing {
  entity: Entity;
  /** The entity's best open offer of the measure and the items that make it; absent when it has none. */
  best?: { value: number; who: Who[] };
  /** Its restricted offers of the measure, best first. */
  restricted: Who[];
}

/** Per entity of a snapshot with an offer of the measure: its best open offer and its restricted ones. */
export function standings(definition: ExplorerDefinition, data: readonly Entity[], key: string): Standing[] {
  const result: Standing[] = [];
  for (const entity of data) {
    const standing: Standing = { entity, restricted: [] };
    for (const item of itemsOf(entity)) {
      for (const offer of definition.offers(item, entity)) {
        if (offer.key !== key) continue;
        const who = { entity, item, offer };
        if (offer.restricted) standing.restricted.push(who);
        else if (!standing.best || isBetter(definition, offer.key, offer.value, standing.best.value))
          standing.best = { value: offer.value, who: [who] };
        else if (offer.value === standing.best.value) standing.best.who.push(who);
      }
    }
    standing.restricted.sort(byValue(definition));
    standing.best?.who.sort(tiedOrder);
    if (standing.best || standing.restricted.length) result.push(standing);
  }
  return result;
}

export interface Move {
  dataset: Dataset;
  date: string;
  /** When the snapshot that made the move was collected (the pages give its day in New Zealand). */
  lastUpdated: string;
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
    const { date, lastUpdated } = snapshots[s]!;
    for (const move of diff.moves) moves.push({ dataset, date, lastUpdated, ...move });
  }
  return moves.slice(0, limit);
}
