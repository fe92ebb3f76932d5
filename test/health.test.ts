import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { healthTime } from '../src/status/health.ts';
import { STALE_AFTER } from '../src/lib/stale-after.ts';
import { createApi } from '../src/service.ts';
import { DATASET_SLUGS, DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { Health } from '../src/schemas/health.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';
import { BlobStatusStore, type BlobClient } from '../src/status/blob-status-store.ts';
import { statusStoreFromEnv } from '../src/status/from-env.ts';
import { FileStatusStore, type CollectionStatus, type StatusStore } from '../src/status/status-store.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { NOW } from './support/constants.ts';
import { EACH } from './support/datasets.ts';
import { historyDir, newestDates, newestSnapshots, tempDir } from './support/history.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3600_000).toISOString();
/** The stale threshold (src/lib/stale-after.ts), in hours. */
const STALE_HOURS = STALE_AFTER.ms / 3600_000;

async function statusWith(lastChecked: Record<string, string>, required = false) {
  const status = new FileStatusStore(await tempDir('rates-status-'), required);
  for (const [slug, when] of Object.entries(lastChecked)) {
    await status.write(slug, { lastChecked: when, lastChanged: null, lastError: null, lastErrorAt: null });
  }
  return status;
}

const allChecked = (when: string) => Object.fromEntries(DATASET_SLUGS.map((s) => [s, when]));
/** When each dataset's newest snapshot of the test history was collected (what the deployment serves), as health writes it. */
const served = {} as Record<DatasetSlug, string>;
beforeAll(async () => {
  for (const [slug, snapshot] of Object.entries(await newestSnapshots()))
    served[slug as DatasetSlug] = healthTime(snapshot.lastUpdated);
});
const [A, B] = [DATASETS[0], DATASETS.at(-1)!];

describe('health', () => {
  it(`reports every dataset fresh when each was checked within ${STALE_AFTER.words}`, async () => {
    const status = await statusWith(Object.fromEntries(DATASET_SLUGS.map((s) => [s, hoursAgo(1)])));
    const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(Health.parse(body)).toEqual(body);
    expect(body.status).toBe('ok');
    expect(body.database).toEqual({ status: 'ok' });
    expect(body.collection).toEqual({ status: 'ok', store: 'filesystem', required: false });
    expect(body.problems).toEqual([]);
    expect(Object.keys(body.datasets)).toEqual(DATASET_SLUGS);
    for (const slug of DATASET_SLUGS)
      expect(body.datasets[slug]).toEqual({
        lastUpdated: served[slug],
        lastChecked: '2025-03-05 11:00:00',
        stale: false,
        lastChanged: null,
        deployment: 'current',
      });
  });

  it.each(EACH)(
    `marks %s stale after ${STALE_AFTER.words} without a successful check, and the service degraded`,
    async (slug) => {
      const [fresh, ...unchecked] = DATASET_SLUGS.filter((s) => s !== slug);
      const late = hoursAgo(STALE_HOURS + 0.01);
      const status = await statusWith({ [slug]: late, ...(fresh ? { [fresh]: hoursAgo(STALE_HOURS - 0.01) } : {}) });
      const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
      expect(response.status).toBe(200);
      expect(body.status).toBe('degraded');
      expect(body.datasets[slug].stale).toBe(true);
      if (fresh) expect(body.datasets[fresh].stale).toBe(false);
      for (const other of unchecked)
        expect(body.datasets[other]).toMatchObject({ lastChecked: null, stale: null, deployment: 'unknown' });
      expect(body.problems).toEqual([
        `${slug}: no successful collection since ${healthTime(late)} (more than ${STALE_AFTER.words}).`,
      ]);
    },
  );

  it.each(EACH)('a stale dataset (%s) names its last collection error', async (slug) => {
    const status = await statusWith(allChecked(hoursAgo(1)));
    await status.write(slug, {
      lastChecked: hoursAgo(STALE_HOURS + 2),
      lastChanged: null,
      lastError: 'HTTP 500 from the source',
      lastErrorAt: hoursAgo(0.5),
    });
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.status).toBe('degraded');
    expect(body.problems).toEqual([
      `${slug}: no successful collection since ${healthTime(hoursAgo(STALE_HOURS + 2))} (more than ${STALE_AFTER.words}). The last error (2025-03-05 11:30:00): HTTP 500 from the source`,
    ]);
  });

  it('a status store that cannot be read: health answers 200 degraded, collection unavailable, lastChecked null', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken: StatusStore = {
      kind: 'filesystem',
      required: false,
      read: () => Promise.reject(new Error('EACCES: permission denied')),
      write: () => Promise.reject(new Error('EACCES: permission denied')),
      readRuns: () => Promise.reject(new Error('EACCES: permission denied')),
      writeRuns: () => Promise.reject(new Error('EACCES: permission denied')),
    };
    const { response, body } = await getJson(await apiOver(historyDir(), { status: broken }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(Health.parse(body)).toEqual(body);
    expect(body.status).toBe('degraded');
    expect(body.collection).toMatchObject({ status: 'unavailable', store: 'filesystem' });
    expect(body.problems).toEqual([body.collection.message]);
    expect(JSON.stringify(body)).not.toContain('EACCES');
    for (const slug of DATASET_SLUGS)
      expect(body.datasets[slug]).toMatchObject({ lastChecked: null, stale: null, deployment: 'unknown' });
    expect(logged).toHaveBeenCalled();
  });

  it.each(EACH)(
    'a dataset with no snapshot (%s): health degraded, its data endpoints 500 server_error pointing at health',
    async (slug, dataset) => {
      // Every other dataset's newest snapshot, and none of this one.
      const dir = await tempDir();
      for (const other of DATASETS.filter((d) => d !== dataset)) {
        const date = newestDates()[other.slug];
        await mkdir(join(dir, other.slug), { recursive: true });
        await copyFile(join(historyDir(), other.slug, `${date}.json`), join(dir, other.slug, `${date}.json`));
      }
      const api = await apiOver(dir);
      const health = await getJson(api, '/api/v1/health');
      expect(health.body.status).toBe('degraded');
      expect(health.body.datasets[slug].lastUpdated).toBeNull();
      for (const other of DATASETS.filter((d) => d !== dataset))
        expect(health.body.datasets[other.slug].lastUpdated).toBe(served[other.slug]);
      const { list, timeSeries } = endpointsOf(dataset);
      for (const path of [
        list.path,
        `${list.path}/${dataset.exampleEntityId}`,
        `${timeSeries.path}?date=${newestDates()[slug]}`,
      ]) {
        const { response, body } = await getJson(api, path);
        expect(response.status, path).toBe(500);
        expect(body).toMatchObject({
          code: 500,
          error: 'server_error',
          message: `An error occurred while retrieving ${dataset.label} data`,
        });
        expect(body.hint).toContain('/api/v1/health');
      }
      for (const other of DATASETS.filter((d) => d !== dataset))
        expect((await get(api, endpointsOf(other).list.path)).status).toBe(200);
    },
  );

  it('an empty tree still answers, and a client mistake is still a 400 rather than a 500', async () => {
    const api = await apiOver(await tempDir());
    expect((await getJson(api, '/api/v1/health')).body.status).toBe('degraded');
    for (const d of DATASETS) {
      expect((await get(api, `${endpointsOf(d).timeSeries.path}?date=5-5-5`)).status).toBe(400);
      expect((await get(api, `${endpointsOf(d).timeSeries.path}?startDate=2025-01-01`)).status).toBe(400);
      for (const f of d.filters) expect((await get(api, `${endpointsOf(d).list.path}?${f.name}=abc`)).status).toBe(400);
    }
  });

  it('an unreadable snapshot store: health 503 with database error, data endpoints 500', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const api = createApi({
      loadStore: () => Promise.reject(new Error('EACCES: permission denied')),
      status: await statusWith({}),
      now: () => NOW,
    });
    const { response, body } = await getJson(api, '/api/v1/health');
    expect(response.status).toBe(503);
    expect(Health.parse(body)).toEqual(body);
    expect(body.status).toBe('error');
    expect(body.database.status).toBe('error');
    expect(body.database.message).not.toContain('EACCES');
    for (const d of DATASETS) {
      const data = await getJson(api, endpointsOf(d).list.path);
      expect(data.response.status).toBe(500);
      expect(data.body).toMatchObject({
        error: 'server_error',
        message: `An error occurred while retrieving ${d.label} data`,
      });
    }
    // The cause goes to the server log, not to the caller: once for health, once for each dataset.
    expect(logged.mock.calls.map((c) => String(c[1]))).toEqual(
      Array(1 + DATASETS.length).fill('Error: EACCES: permission denied'),
    );
  });

  it('refuses query parameters', async () => {
    const api = createApi({
      loadStore: async () => servedStoreOf(await compileSnapshotTree(historyDir())),
      status: await statusWith({}),
    });
    expect((await get(api, '/api/v1/health?verbose=1')).status).toBe(400);
  });
});

describe('health sees the whole chain: collected against deployed', () => {
  const changedAt =
    (ago: number, slug: string = A.slug, extra: Partial<CollectionStatus> = {}) =>
    async (status: StatusStore) =>
      status.write(slug, {
        lastChecked: hoursAgo(ago),
        lastChanged: hoursAgo(ago),
        lastError: null,
        lastErrorAt: null,
        ...extra,
      });

  it('a change collected more than 30 minutes ago that this deployment does not serve: degraded, deployment behind, and says why', async () => {
    const status = await statusWith(allChecked(hoursAgo(0.1)));
    await changedAt(0.75)(status); // 45 minutes ago, after the served 01:32:05
    const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(Health.parse(body)).toEqual(body);
    expect(body.status).toBe('degraded');
    expect(body.datasets[A.slug]).toEqual({
      lastUpdated: served[A.slug],
      lastChecked: '2025-03-05 11:15:00',
      stale: false,
      lastChanged: '2025-03-05 11:15:00',
      deployment: 'behind',
    });
    expect(body.problems).toEqual([
      `${A.slug}: the collector recorded a change at 2025-03-05 11:15:00 that this deployment does not serve ` +
        `(it serves data collected at ${served[A.slug]}); the commit, push or deployment has stalled.`,
    ]);
  });

  it('within 30 minutes the change is pending (its deployment is on the way) and health stays ok', async () => {
    const status = await statusWith(allChecked(hoursAgo(0.1)));
    await changedAt(0.4)(status); // 24 minutes ago
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.status).toBe('ok');
    expect(body.datasets[A.slug].deployment).toBe('pending');
  });

  it('a change the deployment serves is current, whenever it was collected', async () => {
    const status = await statusWith(allChecked(hoursAgo(0.1)));
    for (const slug of DATASET_SLUGS)
      await status.write(slug, {
        lastChecked: hoursAgo(0.1),
        lastChanged: `${served[slug].replace(' ', 'T')}.000Z`,
        lastError: null,
        lastErrorAt: null,
      });
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.status).toBe('ok');
    for (const slug of DATASET_SLUGS)
      expect(body.datasets[slug]).toMatchObject({ lastChanged: served[slug], deployment: 'current' });
  });

  it('production without a status store (no BLOB_READ_WRITE_TOKEN on Vercel): degraded, collection not_configured, naming the secret', async () => {
    const status = statusStoreFromEnv({ VERCEL: '1', VERCEL_ENV: 'production' });
    const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(Health.parse(body)).toEqual(body);
    expect(body.status).toBe('degraded');
    expect(body.collection).toMatchObject({ status: 'not_configured', store: 'none', required: true });
    expect(body.collection.message).toContain('BLOB_READ_WRITE_TOKEN');
    expect(body.problems).toEqual([body.collection.message]);
    for (const slug of DATASET_SLUGS)
      expect(body.datasets[slug]).toMatchObject({ lastChecked: null, stale: null, deployment: 'unknown' });
  });

  it('a preview deployment without a store is not degraded by it, but says so', async () => {
    const status = statusStoreFromEnv({ VERCEL: '1', VERCEL_ENV: 'preview' });
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.status).toBe('ok');
    expect(body.collection).toMatchObject({ status: 'not_configured', store: 'none', required: false });
  });

  it('production with its Blob store down: degraded, collection unavailable', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const down: BlobClient = {
      read: () => Promise.reject(new Error('fetch failed')),
      write: () => Promise.reject(new Error('fetch failed')),
    };
    const { body } = await getJson(
      await apiOver(historyDir(), { status: new BlobStatusStore(down, true) }),
      '/api/v1/health',
    );
    expect(body.status).toBe('degraded');
    expect(body.collection).toMatchObject({ status: 'unavailable', store: 'vercel-blob', required: true });
    expect(body.problems).toEqual([expect.stringContaining('Vercel Blob')]);
    expect(logged).toHaveBeenCalled();
  });

  it('production with a reachable store where the collector never ran, or skipped a dataset: degraded, naming each', async () => {
    const empty = await statusWith({}, true);
    const none = await getJson(await apiOver(historyDir(), { status: empty }), '/api/v1/health');
    expect(none.body.status).toBe('degraded');
    expect(none.body.collection.status).toBe('not_configured');

    const partial = await statusWith(allChecked(hoursAgo(1)), true);
    await partial.write(B.slug, {
      lastChecked: null,
      lastChanged: null,
      lastError: 'HTTP 500',
      lastErrorAt: hoursAgo(1),
    });
    const { body } = await getJson(await apiOver(historyDir(), { status: partial }), '/api/v1/health');
    expect(body.status).toBe('degraded');
    expect(body.collection.status).toBe('ok');
    expect(body.problems).toEqual([`${B.slug}: no collection has been recorded, so its freshness is unknown.`]);
  });

  it('a record dated more than 5 minutes ahead of the clock is read as none (freshness unknown), logged once; 4 minutes ahead is believed', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const status = await statusWith(allChecked(hoursAgo(1)), true);
    const aDayAhead = hoursAgo(-24);
    await status.write(A.slug, { lastChecked: aDayAhead, lastChanged: null, lastError: null, lastErrorAt: null });
    await status.write(B.slug, {
      lastChecked: hoursAgo(-4 / 60),
      lastChanged: hoursAgo(-6 / 60), // a change "collected" 6 minutes from now: never served, never pending
      lastError: null,
      lastErrorAt: null,
    });
    // Two servers, as health's answer is kept for its second: each reads the store.
    for (let n = 0; n < 2; n++) {
      const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
      expect(response.status).toBe(200);
      expect(body.status).toBe('degraded');
      for (const slug of [A.slug, B.slug])
        expect(body.datasets[slug]).toEqual({
          lastUpdated: served[slug],
          lastChecked: null,
          stale: null,
          lastChanged: null,
          deployment: 'unknown',
        });
      expect(body.problems).toEqual([
        `${A.slug}: no collection has been recorded, so its freshness is unknown.`,
        `${B.slug}: no collection has been recorded, so its freshness is unknown.`,
      ]);
    }
    const aheadLogs = logged.mock.calls.filter(([message]) => String(message).includes('ahead of this server'));
    // Once per record, in the order the reads end.
    expect(aheadLogs).toHaveLength(2);
    expect(aheadLogs.map(([message, detail]) => [message, detail])).toEqual(
      expect.arrayContaining([
        [
          `health: ${A.slug}'s collection status is dated ahead of this server's clock, so it is read as unknown:`,
          expect.stringContaining(aDayAhead),
        ],
        [
          `health: ${B.slug}'s collection status is dated ahead of this server's clock, so it is read as unknown:`,
          expect.stringContaining(hoursAgo(-6 / 60)),
        ],
      ]),
    );

    // Within the skew a record is believed: checked "just now", fresh.
    await status.write(B.slug, {
      lastChecked: hoursAgo(-4 / 60),
      lastChanged: null,
      lastError: null,
      lastErrorAt: null,
    });
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.datasets[B.slug]).toMatchObject({ lastChecked: healthTime(hoursAgo(-4 / 60)), stale: false });
  });

  it('locally, with no collector: ok, and the body says collection is not configured; the dataset records keep their fields', async () => {
    const { response, body } = await getJson(
      await apiOver(historyDir(), { status: await statusWith({}) }),
      '/api/v1/health',
    );
    expect(response.status).toBe(200);
    expect(body.status).toBe('ok');
    expect(Object.keys(body.collection)).toEqual(['status', 'store', 'required', 'message']);
    expect(body.collection).toEqual({
      status: 'not_configured',
      store: 'filesystem',
      required: false,
      message: expect.stringContaining('npm run collect'),
    });
    expect(body.problems).toEqual([]);
    for (const slug of DATASET_SLUGS)
      expect(body.datasets[slug]).toEqual({
        lastUpdated: served[slug],
        lastChecked: null,
        stale: null,
        lastChanged: null,
        deployment: 'unknown',
      });
  });

  it('STATUS_REQUIRED makes a self-hosted server require collection status', async () => {
    const dir = await tempDir('rates-status-');
    const required = statusStoreFromEnv({ STATUS_DIR: dir, STATUS_REQUIRED: 'true' });
    expect(required.required).toBe(true);
    expect((await getJson(await apiOver(historyDir(), { status: required }), '/api/v1/health')).body.status).toBe(
      'degraded',
    );
    expect(statusStoreFromEnv({ STATUS_DIR: dir, VERCEL_ENV: 'production', STATUS_REQUIRED: 'false' }).required).toBe(
      false,
    );
  });
});
