/**
 * Does production serve the repository's newest snapshots? Compares `lastUpdated` in
 * `<production>/api/v1/health` with each dataset's newest snapshot file. Production older than the
 * repository: a change was pushed but never deployed (a failed hook, a failed build). Production
 * newer: the repository was rolled back (a revert, a deleted snapshot) and that was not deployed.
 * Either way the next run deploys, so neither stays silently.
 */
import pRetry from 'p-retry';
import { DATASETS } from '../../src/datasets.ts';
import { newestSnapshot } from '../../src/collect/write-rules.ts';

export interface Freshness {
  /** One line per dataset production serves older than the repository's newest snapshot. */
  behind: string[];
  /** One line per dataset production serves newer than the repository's newest (a rollback). */
  ahead: string[];
  current: string[];
}

/** Health times are `YYYY-MM-DD HH:MM:SS` in UTC, to the second. */
function healthTimeMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value.replace(' ', 'T')}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

async function readHealth(
  productionUrl: string,
  timeoutMs: number,
): Promise<Record<string, { lastUpdated?: unknown }>> {
  const url = new URL('/api/v1/health', productionUrl).href;
  return pRetry(
    async () => {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      // A 503 health still lists the datasets (with what it can), so the body decides, not the status.
      const body = (await response.json().catch(() => undefined)) as { datasets?: unknown } | undefined;
      if (!body || typeof body.datasets !== 'object' || body.datasets === null)
        throw new Error(`${url} answered HTTP ${response.status} without a datasets object`);
      return body.datasets as Record<string, { lastUpdated?: unknown }>;
    },
    { retries: 2, minTimeout: 1000 },
  );
}

export async function compareWithProduction(
  productionUrl: string,
  snapshotsDir: string,
  timeoutMs = 15_000,
): Promise<Freshness> {
  const served = await readHealth(productionUrl, timeoutMs);
  const result: Freshness = { behind: [], ahead: [], current: [] };
  for (const dataset of DATASETS) {
    const newest = await newestSnapshot(snapshotsDir, dataset);
    if (!newest) continue; // nothing to serve yet; health says so itself
    // Health drops the milliseconds: compare to the second.
    const repository = Math.floor(Date.parse(newest.lastUpdated) / 1000) * 1000;
    const shown = served[dataset.slug]?.lastUpdated;
    const production = healthTimeMs(shown);
    const line = `${dataset.slug}: production serves ${typeof shown === 'string' ? shown : 'nothing'}, the repository has ${newest.lastUpdated}`;
    if (production === undefined || production < repository) result.behind.push(line);
    else if (production > repository) result.ahead.push(line);
    else result.current.push(line);
  }
  return result;
}
