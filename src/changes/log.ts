/**
 * The change log as the API serves it. Its days are worked out by the build (the history's
 * changes.json, src/store/history-files.ts); each process turns them once into ready JSON, whole
 * and per entity, and a request joins the dates it asks for. Nothing is read or diffed again per
 * request.
 */
import type { Dataset } from '../datasets.ts';
import type { ChangeDirection } from '../schemas/params.ts';
import { dayFor, type ChangeDay, type ValueChange } from './model.ts';
import { CHANGE_KINDS, changeKeys, type ChangeKeys, type ChangeKind } from './schema.ts';

export interface ChangeLog {
  days: readonly ChangeDay[];
  /** Each day as the JSON of its response entry. */
  json: readonly string[];
  /** Per canonical (lower-case) entity id: day index → that entity's JSON entry. */
  byEntity: ReadonlyMap<string, ReadonlyMap<number, string>>;
  /** Every entity id the history ever listed, lower-case. */
  known: ReadonlySet<string>;
}

/** A change as the API names it (`institutionId`, `productId`, `rateId` …), in the key order of the schema. */
function changeJson(keys: ChangeKeys, change: ValueChange): Record<string, unknown> {
  const value = keys.value === 'rateId' ? change.valueId : change.valueId.slice(change.valueId.indexOf('#') + 1);
  return {
    [keys.entityId]: change.entityId,
    [keys.entityName]: change.entityName,
    [keys.itemId]: change.itemId,
    [keys.itemName]: change.itemName,
    [keys.value]: value,
    what: change.what,
    ...('from' in change ? { from: change.from } : {}),
    ...('to' in change ? { to: change.to } : {}),
    direction: change.direction,
    bps: change.bps,
  };
}

/** One response entry: `{ date, previousDate, lastUpdated, changed, added, removed }`. */
function dayJson(dataset: Dataset, day: ChangeDay): Record<string, unknown> {
  const keys = changeKeys(dataset);
  return {
    date: day.date,
    previousDate: day.previousDate,
    lastUpdated: day.lastUpdated,
    ...Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, day[kind].map((c) => changeJson(keys, c))])),
  };
}

/**
 * Which changes a request keeps (`direction=`, `minBps=`): those going one of `directions`, and
 * those whose |bps| is at least `minBps` — so with minBps, only moves of a rate, the one value with
 * bps: new and gone values, fees, days and text are left out.
 */
export interface ChangeFilter {
  directions?: ReadonlySet<ChangeDirection>;
  minBps?: number;
}

const keeps = ({ directions, minBps }: ChangeFilter, change: ValueChange): boolean =>
  (directions === undefined || (change.direction !== null && directions.has(change.direction))) &&
  (minBps === undefined || (change.bps !== null && Math.abs(change.bps) >= minBps));

/** A day's entry (of one entity, when given: canonical id) with only the changes the filter keeps; undefined when none is left. */
export function filteredDayJson(
  dataset: Dataset,
  day: ChangeDay,
  filter: ChangeFilter,
  entityId: string | undefined,
): string | undefined {
  const scoped = entityId === undefined ? day : dayFor(day, entityId);
  if (!scoped) return undefined;
  const only = (kind: ChangeKind) => scoped[kind].filter((c) => keeps(filter, c));
  const kept: ChangeDay = { ...scoped, changed: only('changed'), added: only('added'), removed: only('removed') };
  return CHANGE_KINDS.some((kind) => kept[kind].length > 0) ? JSON.stringify(dayJson(dataset, kept)) : undefined;
}

export function buildChangeLog(dataset: Dataset, days: readonly ChangeDay[], entityIds: Iterable<string>): ChangeLog {
  const byEntity = new Map<string, Map<number, string>>();
  days.forEach((day, d) => {
    const ids = new Set(CHANGE_KINDS.flatMap((kind) => day[kind].map((c) => c.entityId.toLowerCase())));
    for (const id of ids) {
      let entries = byEntity.get(id);
      if (!entries) byEntity.set(id, (entries = new Map()));
      entries.set(d, JSON.stringify(dayJson(dataset, dayFor(day, id)!)));
    }
  });
  return {
    days,
    json: days.map((day) => JSON.stringify(dayJson(dataset, day))),
    byEntity,
    known: new Set([...entityIds].map((id) => id.toLowerCase())),
  };
}
