/**
 * What changed between two versions of a dataset: institutions and products added or removed,
 * and every value that moved, appeared or disappeared. The collector's commit summary, the
 * site's "what changed" page and the change log (src/changes/model.ts: the JSON change log and
 * the Atom feeds) all read it, so what counts as a move (sameValue) is decided here once.
 */
import { type Entity, type Item, itemsOf } from '../datasets.ts';
import type { Value } from '../schemas/corrections.ts';

export interface ValueMove {
  entity: Entity;
  item: Item;
  /** The value's stable id: the rate's id, or (credit cards) `<plan id>#<field>` (see valuesOf). */
  id: string;
  /**
   * What moved, in words: the term (`1 year`), plan and condition (`Unsecured From`), amount
   * (`minimum deposit $5,000`) or field (`purchase rate`).
   */
  what: string;
  /** Absent (undefined) when the value is new; absent `to` when it is no longer listed. */
  from?: Value;
  to?: Value;
}

export interface SnapshotDiff {
  entitiesAdded: Entity[];
  entitiesRemoved: Entity[];
  itemsAdded: { entity: Entity; item: Item }[];
  itemsRemoved: { entity: Entity; item: Item }[];
  moves: ValueMove[];
}

/**
 * Whether a value stayed the same: equal, or null on one side and 0 on the other. The history
 * imported from the earlier deployment holds null wherever the page said 0 (its collector read
 * numbers with `parseFloat(text) || null`), so a 0 read where it holds null — a $0 fee, a 0 %
 * balance transfer — is the same value, not a move (/docs/changes#what-counts-as-a-change).
 */
export const sameValue = (a: Value, b: Value): boolean => a === b || (a === null && b === 0) || (a === 0 && b === null);

const humanize = (field: string) =>
  field
    .replace(/NZD$/, '')
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .trim();

/**
 * A rate in words, whatever its dataset: its term label (`1 year`), else its text fields in order
 * (plan and condition: `Unsecured From`), else its term in months (`6 months`), else its amounts
 * (`minimum deposit $5,000`), else `rate`.
 */
function rateInWords(rate: { id: string; rate: number }): string {
  const fields = rate as Record<string, unknown>;
  if (typeof fields.term === 'string') return fields.term;
  const words = Object.entries(fields)
    .filter(([key, value]) => key !== 'id' && typeof value === 'string' && value)
    .map(([, value]) => value as string);
  if (words.length) return words.join(' ');
  if (typeof fields.termInMonths === 'number') return `${fields.termInMonths} months`;
  // A rate told from its product's others by an amount alone (the least it is paid from, say).
  const amounts = Object.entries(fields)
    .filter(([key, value]) => key.endsWith('NZD') && typeof value === 'number')
    .map(([key, value]) => `${humanize(key)} $${(value as number).toLocaleString('en-NZ')}`);
  return amounts.length ? amounts.join(' ') : 'rate';
}

/** Every value of an item, keyed by a stable id: its rates, or (items without rates) its fields. */
export function valuesOf(item: Item): Map<string, { what: string; value: Value }> {
  const values = new Map<string, { what: string; value: Value }>();
  if ('rates' in item) {
    for (const rate of item.rates) values.set(rate.id, { what: rateInWords(rate), value: rate.rate });
  } else {
    for (const [field, value] of Object.entries(item)) {
      if (field !== 'id' && field !== 'name')
        values.set(`${item.id}#${field}`, { what: humanize(field), value: value as Value });
    }
  }
  return values;
}

export function diffSnapshots(before: readonly Entity[], after: readonly Entity[]): SnapshotDiff {
  const items = itemsOf;
  const old = new Map(before.map((e) => [e.id, e]));
  const now = new Map(after.map((e) => [e.id, e]));
  const diff: SnapshotDiff = {
    entitiesAdded: after.filter((e) => !old.has(e.id)),
    entitiesRemoved: before.filter((e) => !now.has(e.id)),
    itemsAdded: [],
    itemsRemoved: [],
    moves: [],
  };
  for (const entity of after) {
    const previous = old.get(entity.id);
    if (!previous || previous === entity) continue;
    const oldItems = new Map(items(previous).map((i) => [i.id, i]));
    const newItems = new Map(items(entity).map((i) => [i.id, i]));
    for (const item of items(entity)) if (!oldItems.has(item.id)) diff.itemsAdded.push({ entity, item });
    for (const item of items(previous)) if (!newItems.has(item.id)) diff.itemsRemoved.push({ entity: previous, item });
    for (const item of items(entity)) {
      const was = oldItems.get(item.id);
      if (!was || was === item) continue;
      const a = valuesOf(was);
      const b = valuesOf(item);
      for (const [key, { what, value }] of b) {
        const prior = a.get(key);
        if (!prior) diff.moves.push({ entity, item, id: key, what, to: value });
        else if (!sameValue(prior.value, value))
          diff.moves.push({ entity, item, id: key, what, from: prior.value, to: value });
      }
      for (const [key, { what, value }] of a)
        if (!b.has(key)) diff.moves.push({ entity, item, id: key, what, from: value });
    }
  }
  return diff;
}
