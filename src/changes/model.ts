/**
 * The change log of a dataset: for each snapshot date, every value — a rate, or a field of a
 * credit card plan — that changed, was added or was removed since the snapshot before it. An
 * institution or product that appears or disappears counts with each of its values. Built on
 * diffSnapshots (src/snapshots/diff.ts), as the collector's summary and the "What changed" page
 * are; the JSON change log (/api/v1/<dataset>/changes), the Atom feeds and the docs read it.
 *
 * A snapshot that moved no value (a renamed product, a new order) has no entry, and the first
 * snapshot of a dataset has none either: there is nothing before it to compare with. A value
 * going from null to 0 or from 0 to null did not move (sameValue in src/snapshots/diff.ts: the
 * imported history saved every 0 as null), so it is neither changed, added nor removed. Each
 * change says which way it went and, for a rate, by how many basis points (src/changes/movement.ts).
 */
import { type Dataset, type Entity, type Item, itemsOf } from '../datasets.ts';
import { diffSnapshots, valuesOf } from '../snapshots/diff.ts';
import type { Value } from '../schemas/corrections.ts';
import { type Movement, movementLine, movementOf } from './movement.ts';
import { CHANGE_KINDS, type ChangeKind, valueKindOf } from './schema.ts';

export type { Value };

/** One snapshot as objects (the explorer's SnapshotObjects has this shape). */
export interface SnapshotData {
  date: string;
  lastUpdated: string;
  data: readonly Entity[];
}

export interface ValueChange extends Movement {
  entityId: string;
  entityName: string;
  itemId: string;
  itemName: string;
  /** The value's stable id: the rate id, or (credit cards) `<plan id>#<field>`. */
  valueId: string;
  /** The value in words: the term (`1 year`), plan and condition (`Unsecured From`), or field (`purchase rate`). */
  what: string;
  /** Absent on an added value. */
  from?: Value;
  /** Absent on a removed value. */
  to?: Value;
}

export interface ChangeDay {
  date: string;
  /** The snapshot this one is compared with. */
  previousDate: string;
  /** When this date's snapshot was collected. */
  lastUpdated: string;
  changed: ValueChange[];
  added: ValueChange[];
  removed: ValueChange[];
}

function everyValue(
  entity: Pick<Entity, 'id' | 'name'>,
  items: readonly Item[],
  kind: 'added' | 'removed',
): ValueChange[] {
  return items.flatMap((item) =>
    [...valuesOf(item)].map(([valueId, { what, value }]) => ({
      entityId: entity.id,
      entityName: entity.name,
      itemId: item.id,
      itemName: item.name,
      valueId,
      what,
      ...(kind === 'added' ? { to: value } : { from: value }),
      direction: kind === 'added' ? ('new' as const) : ('gone' as const),
      bps: null,
    })),
  );
}

/** What changed from one snapshot to the next, value by value; null when no value did. */
export function changeDay(dataset: Dataset, before: SnapshotData, after: SnapshotData): ChangeDay | null {
  const diff = diffSnapshots(before.data, after.data);
  const day: ChangeDay = {
    date: after.date,
    previousDate: before.date,
    lastUpdated: after.lastUpdated,
    changed: [],
    added: [],
    removed: [],
  };
  const added = new Set(diff.entitiesAdded);
  // In the order of the newer snapshot, an entity's added and removed items, then its values; then entities no longer listed.
  for (const entity of after.data) {
    if (added.has(entity)) {
      day.added.push(...everyValue(entity, itemsOf(entity), 'added'));
      continue;
    }
    const newItems = diff.itemsAdded.filter((a) => a.entity === entity).map((a) => a.item);
    const oldItems = diff.itemsRemoved.filter((r) => r.entity.id === entity.id);
    day.added.push(...everyValue(entity, newItems, 'added'));
    for (const { entity: was, item } of oldItems)
      day.removed.push(...everyValue({ ...was, name: entity.name }, [item], 'removed'));
    for (const move of diff.moves) {
      if (move.entity !== entity) continue;
      const change: ValueChange = {
        entityId: entity.id,
        entityName: entity.name,
        itemId: move.item.id,
        itemName: move.item.name,
        valueId: move.id,
        what: move.what,
        ...(move.from === undefined ? {} : { from: move.from }),
        ...(move.to === undefined ? {} : { to: move.to }),
        ...movementOf(valueKindOf(dataset, move.id), move.from, move.to),
      };
      (move.from === undefined ? day.added : move.to === undefined ? day.removed : day.changed).push(change);
    }
  }
  for (const entity of diff.entitiesRemoved) day.removed.push(...everyValue(entity, itemsOf(entity), 'removed'));
  return day.changed.length + day.added.length + day.removed.length > 0 ? day : null;
}

/** Every date that changed a value, oldest first (the dataset says which values are rates, moving in basis points). */
export function changeDays(dataset: Dataset, snapshots: readonly SnapshotData[]): ChangeDay[] {
  const days: ChangeDay[] = [];
  for (let s = 1; s < snapshots.length; s++) {
    const day = changeDay(dataset, snapshots[s - 1]!, snapshots[s]!);
    if (day) days.push(day);
  }
  return days;
}

/** A day narrowed to one entity (canonical, lower-case id); null when it changed nothing of it. */
export function dayFor(day: ChangeDay, entityId: string): ChangeDay | null {
  const mine = (c: ValueChange) => c.entityId.toLowerCase() === entityId;
  const narrowed = {
    ...day,
    changed: day.changed.filter(mine),
    added: day.added.filter(mine),
    removed: day.removed.filter(mine),
  };
  return narrowed.changed.length + narrowed.added.length + narrowed.removed.length > 0 ? narrowed : null;
}

export const changeCount = (day: ChangeDay) => day.changed.length + day.added.length + day.removed.length;

/** Every entity the history ever listed, with the name it was last listed under, in order of first appearance. */
export function entitiesEver(snapshots: readonly SnapshotData[]): { id: string; name: string; listedNow: boolean }[] {
  const names = new Map<string, string>();
  for (const snapshot of snapshots) for (const entity of snapshot.data) names.set(entity.id, entity.name);
  const now = new Set(snapshots.at(-1)?.data.map((e) => e.id));
  return [...names].map(([id, name]) => ({ id, name, listedNow: now.has(id) }));
}

// ----- Words, for the feeds -----

/** The plan field a credit-card value id names (`plan:amex:low-rate#annualFeeNZD` → `annualFeeNZD`), or null for a rate. */
const fieldOf = (valueId: string): string | null =>
  valueId.includes('#') ? valueId.slice(valueId.indexOf('#') + 1) : null;

/** A value as a person reads it: `4.69 %`, `$149`, `55 days`, `6 months`, `—` (none). */
function showValue(valueId: string, value: Value | undefined): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  const field = fieldOf(valueId) ?? '';
  if (field.endsWith('NZD')) return `$${value.toLocaleString('en-NZ')}`;
  if (field.endsWith('Days')) return `${value} days`;
  // Two decimals when it has at most two (5.1 → 5.10, though 5.1 × 100 is 509.99…), else as it is.
  return `${Math.round(value * 100) / 100 === value ? value.toFixed(2) : String(value)} %`;
}

/** `ANZ · Special · 1 year: down 60 bps, 5.29 → 4.69 %`, `… : new, 4.99 %`, `… : gone, was 5.10 %` (src/changes/movement.ts). */
export function describeChange(change: ValueChange): string {
  const label = `${change.entityName} · ${change.itemName || '(unnamed)'} · ${change.what}`;
  const shown = (value: Value | undefined) => (value === undefined ? undefined : showValue(change.valueId, value));
  let [from, to] = [shown(change.from), shown(change.to)];
  // Two percentages read best with the unit once: 5.29 → 4.69 %.
  if (from?.endsWith(' %') && to?.endsWith(' %')) from = from.slice(0, -2);
  return `${label}: ${movementLine(change, from, to)}`;
}

/** Every change of a day in reading order: values that moved, then new ones, then those no longer listed. */
export const changesOf = (day: ChangeDay): { kind: ChangeKind; change: ValueChange }[] =>
  CHANGE_KINDS.flatMap((kind) => day[kind].map((change) => ({ kind, change })));
