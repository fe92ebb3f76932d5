import { z } from 'zod';
import { IsoDateTime, SnapshotDate } from './common.ts';

/** Every `id` found anywhere in a dataset, with where it stands. */
function* idsIn(value: unknown, path: (string | number)[]): Generator<[string, (string | number)[]]> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* idsIn(item, [...path, index]);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.id === 'string') yield [record.id, [...path, 'id']];
    for (const [key, child] of Object.entries(record))
      if (typeof child === 'object') yield* idsIn(child, [...path, key]);
  }
}

/** Ids in one response are unique (/docs/concepts#ids); a snapshot that breaks this is refused. */
function checkUniqueIds(data: unknown, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const [id, path] of idsIn(data, ['data'])) {
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path, message: `duplicate id "${id}"` });
    seen.add(id);
  }
}

/** `{ type, data, lastUpdated }`: the snapshot file, and the value of each time-series entry. */
export const snapshotSchema = <T extends string, E extends z.ZodType>(type: T, entity: E) =>
  z
    .strictObject({ type: z.literal(type), data: z.array(entity), lastUpdated: IsoDateTime })
    .superRefine((snapshot, ctx) => checkUniqueIds(snapshot.data, ctx));

/** The list and detail response: `{ type, data, lastUpdated, termsOfUse, timestamp }`. */
export const envelopeSchema = <T extends string, E extends z.ZodType>(type: T, entity: E) =>
  z.strictObject({
    type: z.literal(type),
    data: z.array(entity),
    lastUpdated: IsoDateTime,
    termsOfUse: z.string(),
    timestamp: IsoDateTime,
  });

/** The time-series response (/docs/concepts#snapshots-and-time-series). */
export const timeSeriesSchema = <T extends string, S extends z.ZodType>(type: T, snapshot: S) =>
  z.strictObject({
    type: z.literal(type),
    timeSeries: z.record(SnapshotDate, snapshot),
    availableDates: z.array(SnapshotDate),
    termsOfUse: z.string(),
    timestamp: IsoDateTime,
    message: z.string().optional(),
  });
