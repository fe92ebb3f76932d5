/**
 * The body of GET /api/v1/status: each dataset's collection reliability over the run log's
 * window (src/status/figures.ts counts it). A figure that no recorded run supports is null, never
 * a zero that would read as success.
 */
import { z } from 'zod';

const Count = z.number().int().nonnegative();
const Hours = z.number().nonnegative();

const CountRange = z
  .strictObject({
    latest: Count.meta({ description: 'In the newest run that succeeded.' }),
    min: Count,
    max: Count,
  })
  .meta({ description: 'Over the runs of the window that succeeded and recorded it; null when none did.' });

export const DatasetReliability = z.strictObject({
  runs: Count.meta({
    description: 'Runs in the window that collected this dataset (a run limited to some datasets names fewer).',
  }),
  succeeded: Count.meta({ description: 'Of those, the runs whose outcome was `ok` or `unchanged`.' }),
  successShare: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .meta({ description: '`succeeded / runs`, rounded to 4 decimals; null when `runs` is 0.' }),
  outcomes: z.strictObject({ ok: Count, unchanged: Count, refused: Count, failed: Count }).meta({
    description:
      '`ok` new rates collected, `unchanged` checked and nothing moved, `refused` the page was read but not trusted, `failed` it could not be read.',
  }),
  lastGoodRun: z.iso
    .datetime()
    .nullable()
    .meta({ description: 'The newest run that succeeded; null when none in the window did.' }),
  hoursSinceLastGood: Hours.nullable().meta({
    description: 'Hours from `lastGoodRun` to `timestamp`, to one decimal; null when no run in the window succeeded.',
  }),
  longestGapHours: Hours.nullable().meta({
    description:
      'The longest time between two successive runs that succeeded, in hours to one decimal; null with fewer than two.',
  }),
  refusals: z.record(z.string(), z.number().int().positive()).meta({
    description:
      'Refused runs by the rule they broke, as the reason names it (`refused (<rule>): …`, /docs/collection); `unrecorded` when a run did not say. Empty when none.',
  }),
  institutions: CountRange.nullable(),
  rates: CountRange.nullable(),
  message: z
    .string()
    .optional()
    .meta({ description: 'Why the figures are null: no run of the dataset is recorded in the window.' }),
});
export type DatasetReliability = z.infer<typeof DatasetReliability>;

export const StatusFigures = z.strictObject({
  window: z.strictObject({
    days: z.number().int().positive(),
    from: z.iso.datetime().meta({ description: 'Runs from this time on are counted.' }),
    to: z.iso.datetime(),
    runs: Count.meta({ description: 'Runs recorded in the window, whatever datasets they collected.' }),
  }),
  runLog: z.strictObject({
    status: z.enum(['ok', 'empty', 'unreadable']).meta({
      description:
        '`empty`: no run is recorded (no collector reports here, or none has run yet); `unreadable`: the log could not be read.',
    }),
    store: z.enum(['filesystem', 'vercel-blob', 'none']),
    message: z.string().optional(),
  }),
  datasets: z.record(z.string(), DatasetReliability).meta({ description: 'Every dataset, by slug.' }),
  timestamp: z.iso.datetime(),
});
export type StatusFigures = z.infer<typeof StatusFigures>;
