/** GET /api/v1/health: can the store be read, and how fresh is each dataset (spec §2.7). */
import { DATASETS } from '../datasets.ts';
import type { DatasetHealth, Health } from '../schemas/health.ts';
import type { ServedStore } from '../store/served-store.ts';
import type { StatusStore } from '../status/status-store.ts';
import { json } from './responses.ts';

/** No successful collection for longer than this means stale (spec §8). */
export const STALE_AFTER_MS = 3 * 60 * 60 * 1000;

/** ISO 8601 → `YYYY-MM-DD HH:MM:SS` (UTC). */
export function healthTime(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19).replace('T', ' ');
}

async function lastCheckedOf(status: StatusStore, slug: string): Promise<string | null> {
  try {
    return (await status.read(slug))?.lastChecked ?? null;
  } catch {
    // An unreachable status store must not take health down: the time is simply unknown.
    return null;
  }
}

export async function getHealth(
  loadStore: () => Promise<ServedStore>,
  status: StatusStore,
  now: Date,
  log: (message: string, error: unknown) => void,
): Promise<Response> {
  let store: ServedStore | undefined;
  let database: Health['database'] = { status: 'ok' };
  try {
    store = await loadStore();
  } catch (error) {
    log('health: snapshot store unreadable:', error);
    database = { status: 'error', message: 'The snapshot store could not be read; data endpoints answer 500 until it can.' };
  }

  const datasets: Record<string, DatasetHealth> = {};
  let degraded = false;
  for (const dataset of DATASETS) {
    const history = store?.newest(dataset.slug);
    const latest = history && history.size > 0 ? history.lastUpdated(history.latest) : undefined;
    const lastChecked = await lastCheckedOf(status, dataset.slug);
    const stale = lastChecked === null ? null : now.getTime() - Date.parse(lastChecked) > STALE_AFTER_MS;
    degraded ||= stale === true || latest === undefined;
    datasets[dataset.slug] = {
      lastUpdated: latest ? healthTime(latest) : null,
      lastChecked: lastChecked === null ? null : healthTime(lastChecked),
      stale,
    };
  }
  const overall: Health['status'] = database.status === 'error' ? 'error' : degraded ? 'degraded' : 'ok';
  const body: Health = { status: overall, database, datasets, timestamp: now.toISOString() };
  return json(body, overall === 'error' ? 503 : 200);
}
