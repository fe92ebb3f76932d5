import { z } from 'zod';
import { STALE_AFTER } from '../lib/stale-after.ts';

/** `YYYY-MM-DD HH:MM:SS`, UTC (the health record's time format). */
const HealthTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

/**
 * How this deployment's data compares with what the collector last found:
 * `current` serves the newest collected change; `pending` a newer change was collected less than
 * the deploy grace ago (its deployment is on the way); `behind` it was collected longer ago and is
 * still not served (the deploy chain stalled); `unknown` no collection status to compare with.
 */
const Deployment = z.enum(['current', 'pending', 'behind', 'unknown']);

export const DatasetHealth = z.strictObject({
  lastUpdated: HealthTime.nullable().meta({
    description: 'When the data this deployment serves was collected (its last change).',
  }),
  lastChecked: HealthTime.nullable().meta({
    description: 'The last successful collection, changed or not; null when unknown.',
  }),
  stale: z
    .boolean()
    .nullable()
    .meta({
      description:
        `true when no collection succeeded in the last ${STALE_AFTER.words}, ` +
        'false when one did, null when lastChecked is null.',
    }),
  lastChanged: HealthTime.nullable().meta({
    description:
      'When the collector last recorded a change; when it is later than lastUpdated, that change is not served yet.',
  }),
  deployment: Deployment,
});

export const CollectionHealth = z.strictObject({
  status: z.enum(['ok', 'not_configured', 'unavailable']).meta({
    description:
      '`not_configured`: no status store, or no collection ever recorded in it; `unavailable`: the store could not be read.',
  }),
  store: z.enum(['filesystem', 'vercel-blob', 'none']),
  /** Whether this deployment requires collection status (production). */
  required: z.boolean(),
  message: z.string().optional(),
});

export const Health = z.strictObject({
  status: z.enum(['ok', 'degraded', 'error']),
  database: z.strictObject({ status: z.enum(['ok', 'error']), message: z.string().optional() }),
  collection: CollectionHealth,
  datasets: z.record(z.string(), DatasetHealth),
  problems: z
    .array(z.string())
    .meta({ description: 'Why the status is not `ok`, one sentence per cause; empty when it is.' }),
  timestamp: z.iso.datetime(),
});

export type DatasetHealth = z.infer<typeof DatasetHealth>;
export type CollectionHealth = z.infer<typeof CollectionHealth>;
export type Health = z.infer<typeof Health>;
