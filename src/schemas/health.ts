import { z } from 'zod';

/** `YYYY-MM-DD HH:MM:SS`, UTC (spec §2.7). */
export const HealthTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

export const DatasetHealth = z.strictObject({
  lastUpdated: HealthTime.nullable(),
  lastChecked: HealthTime.nullable(),
  stale: z.boolean().nullable(),
});

export const Health = z.strictObject({
  status: z.enum(['ok', 'degraded', 'error']),
  database: z.strictObject({ status: z.enum(['ok', 'error']), message: z.string().optional() }),
  datasets: z.record(z.string(), DatasetHealth),
  timestamp: z.iso.datetime(),
});

export type DatasetHealth = z.infer<typeof DatasetHealth>;
export type Health = z.infer<typeof Health>;
