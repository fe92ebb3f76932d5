/**
 * What health says (GET /api/v1/health, src/api/health.ts, and the /status page): can the
 * snapshot store be read, how fresh is each dataset, and does this deployment serve what the
 * collector last found. The chain is collect → commit → deploy; health
 * sees each link: `stale` (collection failing), `deployment: behind` (collected, never deployed),
 * and `collection` (the status store itself missing or down). The states are documented on the
 * docs site's "Deploying" page.
 */
import { DATASETS, type Dataset } from '../datasets.ts';
import { STALE_AFTER } from '../lib/stale-after.ts';
import type { CollectionHealth, DatasetHealth, Health } from '../schemas/health.ts';
import type { ServedStore } from '../store/served-store.ts';
import { isAhead, logAheadOnce } from './clock-skew.ts';
import type { CollectionStatus, StatusStore } from './status-store.ts';

/**
 * How long a collected change may take to be served: a commit, a push and a Vercel build take a
 * few minutes; past this the chain has stalled and health is degraded.
 */
export const DEPLOY_GRACE_MS = 30 * 60 * 1000;

/** ISO 8601 → `YYYY-MM-DD HH:MM:SS` (UTC). */
export function healthTime(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19).replace('T', ' ');
}

const STORE_NAMES: Record<StatusStore['kind'], string> = {
  filesystem: 'the status folder (STATUS_DIR)',
  'vercel-blob': 'Vercel Blob (BLOB_READ_WRITE_TOKEN)',
  none: 'no status store',
};

type Log = (message: string, error: unknown) => void;

/**
 * Every dataset's status, or the reason the store could not give them. A record with a time
 * ahead of the clock (src/status/clock-skew.ts) is read as none: its freshness is unknown.
 */
async function readStatuses(
  status: StatusStore,
  now: Date,
  log: Log,
): Promise<Map<string, CollectionStatus | null> | Error> {
  const believed = (slug: string, record: CollectionStatus | null) => {
    const ahead = record && [record.lastChecked, record.lastChanged, record.lastErrorAt].find((t) => isAhead(t, now));
    if (!ahead) return record;
    logAheadOnce(log, `health: ${slug}'s collection status`, ahead, now);
    return null;
  };
  try {
    const entries = await Promise.all(
      DATASETS.map(async (d) => [d.slug, believed(d.slug, await status.read(d.slug))] as const),
    );
    return new Map(entries);
  } catch (error) {
    log('health: collection status store unreadable:', error);
    return error instanceof Error ? error : new Error(String(error));
  }
}

function collectionHealth(
  status: StatusStore,
  statuses: Map<string, CollectionStatus | null> | Error,
): CollectionHealth {
  // Built in the schema's key order, so the body reads status first.
  const health = (state: CollectionHealth['status'], message?: string): CollectionHealth => ({
    status: state,
    store: status.kind,
    required: status.required,
    ...(message ? { message } : {}),
  });
  if (statuses instanceof Error) {
    return health(
      'unavailable',
      `${STORE_NAMES[status.kind]} could not be read, so when the collector last ran is unknown.`,
    );
  }
  if (status.kind === 'none') {
    return health(
      'not_configured',
      'No collection status store is configured (BLOB_READ_WRITE_TOKEN is not set), so when the collector last ran is unknown.',
    );
  }
  if ([...statuses.values()].every((s) => s === null)) {
    return health(
      'not_configured',
      status.kind === 'filesystem'
        ? 'No collection has been recorded here: this server serves the committed snapshots. Run `npm run collect` to collect, which records its status in STATUS_DIR.'
        : `No collection has been recorded in ${STORE_NAMES[status.kind]} yet.`,
    );
  }
  return health('ok');
}

function deploymentOf(
  served: string | undefined,
  record: CollectionStatus | null,
  now: Date,
): DatasetHealth['deployment'] {
  if (!record || (record.lastChecked === null && record.lastChanged === null)) return 'unknown';
  if (record.lastChanged === null || (served !== undefined && Date.parse(record.lastChanged) <= Date.parse(served)))
    return 'current';
  return now.getTime() - Date.parse(record.lastChanged) > DEPLOY_GRACE_MS ? 'behind' : 'pending';
}

/** One dataset's record, and the sentences that say what is wrong with it (if anything). */
function datasetHealth(
  dataset: Dataset,
  served: string | undefined,
  record: CollectionStatus | null,
  required: boolean,
  now: Date,
): { health: DatasetHealth; problems: string[] } {
  const lastChecked = record?.lastChecked ?? null;
  const stale = lastChecked === null ? null : now.getTime() - Date.parse(lastChecked) > STALE_AFTER.ms;
  const deployment = deploymentOf(served, record, now);
  const health: DatasetHealth = {
    lastUpdated: served ? healthTime(served) : null,
    lastChecked: lastChecked === null ? null : healthTime(lastChecked),
    stale,
    lastChanged: record?.lastChanged ? healthTime(record.lastChanged) : null,
    deployment,
  };
  const problems: string[] = [];
  const name = dataset.slug;
  if (!served) problems.push(`${name}: this deployment has no snapshot of it, so its data endpoints answer 500.`);
  if (stale) {
    const error = record?.lastError
      ? ` The last error (${healthTime(record.lastErrorAt ?? lastChecked!)}): ${record.lastError}`
      : '';
    problems.push(
      `${name}: no successful collection since ${health.lastChecked} (more than ${STALE_AFTER.words}).${error}`,
    );
  }
  if (stale === null && required)
    problems.push(`${name}: no collection has been recorded, so its freshness is unknown.`);
  if (deployment === 'behind') {
    problems.push(
      `${name}: the collector recorded a change at ${health.lastChanged} that this deployment does not serve ` +
        `(it serves data collected at ${health.lastUpdated ?? 'no time'}); the commit, push or deployment has stalled.`,
    );
  }
  return { health, problems };
}

/** What health says, as data: the body of GET /api/v1/health, which the status page shows to people. */
export async function healthReport(
  loadStore: () => Promise<ServedStore>,
  status: StatusStore,
  now: Date,
  log: Log,
): Promise<Health> {
  let store: ServedStore | undefined;
  let database: Health['database'] = { status: 'ok' };
  try {
    store = await loadStore();
  } catch (error) {
    log('health: snapshot store unreadable:', error);
    database = {
      status: 'error',
      message: 'The snapshot store could not be read; data endpoints answer 500 until it can.',
    };
  }

  const statuses = await readStatuses(status, now, log);
  const collection = collectionHealth(status, statuses);
  const problems: string[] = [];
  if (database.message) problems.push(database.message);
  // Unknown freshness is not "ok" where a collector is expected, nor where a configured store fails.
  if (collection.message && (status.required || collection.status === 'unavailable')) problems.push(collection.message);

  const datasets: Record<string, DatasetHealth> = {};
  for (const dataset of DATASETS) {
    const history = store?.newest(dataset.slug);
    const served = history && history.size > 0 ? history.lastUpdated(history.latest) : undefined;
    const record = statuses instanceof Error ? null : (statuses.get(dataset.slug) ?? null);
    // With no store at all, the "no collection recorded" sentence above already covers every dataset.
    const required = status.required && collection.status === 'ok';
    const result = datasetHealth(dataset, served, record, required, now);
    datasets[dataset.slug] = result.health;
    if (store) problems.push(...result.problems);
  }

  const overall: Health['status'] = database.status === 'error' ? 'error' : problems.length > 0 ? 'degraded' : 'ok';
  const timestamp = now.toISOString();
  return { status: overall, database, collection, datasets, problems, timestamp };
}

/**
 * How long health keeps what it read from the status store (deployments set it: src/server/runtime.ts):
 * health is polled often, and the store is files or a network call away; a collection is hourly.
 */
export const STATUS_CACHE_MS = 5_000;

/**
 * The status store with each dataset's read, and the run log's, kept for `ttlMs` (a failed read
 * too, so a failing store is not hammered): health and GET /api/v1/status are polled.
 */
export function cachedStatusStore(
  status: StatusStore,
  ttlMs: number,
  clock: () => number = () => performance.now(),
): StatusStore {
  const kept = new Map<string, { at: number; value: Promise<unknown> }>();
  function keptRead<T>(key: string, read: () => Promise<T>): Promise<T> {
    const at = clock();
    const hit = kept.get(key);
    if (hit && at - hit.at < ttlMs) return hit.value as Promise<T>;
    const value = read();
    value.catch(() => {}); // handled by whoever awaits it; kept for the window either way
    kept.set(key, { at, value });
    return value;
  }
  return {
    kind: status.kind,
    required: status.required,
    write: (dataset, record) => status.write(dataset, record),
    // Kept apart from the datasets' reads: no dataset's slug is a key with this prefix.
    readRuns: () => keptRead(' run-log', () => status.readRuns()),
    writeRuns: (runs) => status.writeRuns(runs),
    read: (dataset) => keptRead(dataset, () => status.read(dataset)),
  };
}
