import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApi } from '../src/service.ts';
import { DATASET_SLUGS } from '../src/datasets.ts';
import { Health } from '../src/schemas/health.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';
import { BlobStatusStore, type BlobClient } from '../src/status/blob-status-store.ts';
import { statusStoreFromEnv } from '../src/status/from-env.ts';
import { FileStatusStore, type CollectionStatus, type StatusStore } from '../src/status/status-store.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { NOW } from './support/constants.ts';
import { historyDir, tempDir } from './support/history.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3600_000).toISOString();

async function statusWith(lastChecked: Record<string, string>, required = false) {
  const status = new FileStatusStore(await tempDir('rates-status-'), required);
  for (const [slug, when] of Object.entries(lastChecked)) {
    await status.write(slug, { lastChecked: when, lastChanged: null, lastError: null, lastErrorAt: null });
  }
  return status;
}

const allChecked = (when: string) => Object.fromEntries(DATASET_SLUGS.map((s) => [s, when]));
/** When the newest mortgage snapshot of the test history was collected (what the deployment serves). */
const SERVED_MORTGAGES = '2025-03-05T01:32:05.000Z';

describe('health', () => {
  it('reports every dataset fresh when each was checked within 3 hours', async () => {
    const status = await statusWith(Object.fromEntries(DATASET_SLUGS.map((s) => [s, hoursAgo(1)])));
    const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(Health.parse(body)).toEqual(body);
    expect(body.status).toBe('ok');
    expect(body.database).toEqual({ status: 'ok' });
    expect(body.collection).toEqual({ status: 'ok', store: 'filesystem', required: false });
    expect(body.problems).toEqual([]);
    expect(Object.keys(body.datasets)).toEqual(DATASET_SLUGS);
    expect(body.datasets['mortgage-rates']).toEqual({
      lastUpdated: '2025-03-05 01:32:05',
      lastChecked: '2025-03-05 11:00:00',
      stale: false,
      lastChanged: null,
      deployment: 'current',
    });
    expect(body.datasets['credit-card-rates'].lastUpdated).toBe('2025-01-07 08:06:01');
  });

  it('marks a dataset stale after 3 hours without a successful check, and the service degraded', async () => {
    const status = await statusWith({ 'mortgage-rates': hoursAgo(3.01), 'car-loan-rates': hoursAgo(2.99) });
    const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.datasets['mortgage-rates'].stale).toBe(true);
    expect(body.datasets['car-loan-rates'].stale).toBe(false);
    expect(body.datasets['personal-loan-rates']).toMatchObject({
      lastChecked: null,
      stale: null,
      deployment: 'unknown',
    });
    expect(body.problems).toEqual([
      'mortgage-rates: no successful collection since 2025-03-05 08:59:24 (more than 3 hours).',
    ]);
  });

  it('a stale dataset names its last collection error', async () => {
    const status = await statusWith(allChecked(hoursAgo(1)));
    await status.write('car-loan-rates', {
      lastChecked: hoursAgo(5),
      lastChanged: null,
      lastError: 'HTTP 500 from the source',
      lastErrorAt: hoursAgo(0.5),
    });
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.status).toBe('degraded');
    expect(body.problems).toEqual([
      'car-loan-rates: no successful collection since 2025-03-05 07:00:00 (more than 3 hours). The last error (2025-03-05 11:30:00): HTTP 500 from the source',
    ]);
  });

  it('a status store that cannot be read: health answers 200 degraded, collection unavailable, lastChecked null', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken: StatusStore = {
      kind: 'filesystem',
      required: false,
      read: () => Promise.reject(new Error('EACCES: permission denied')),
      write: () => Promise.reject(new Error('EACCES: permission denied')),
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

  it('a dataset with no snapshot: health degraded, its data endpoints 500 server_error pointing at health', async () => {
    const dir = await tempDir();
    const source = join(historyDir(), 'personal-loan-rates', '2025-02-04.json');
    await mkdir(join(dir, 'personal-loan-rates'), { recursive: true });
    await copyFile(source, join(dir, 'personal-loan-rates', '2025-02-04.json'));
    const api = await apiOver(dir);
    const health = await getJson(api, '/api/v1/health');
    expect(health.body.status).toBe('degraded');
    expect(health.body.datasets['mortgage-rates'].lastUpdated).toBeNull();
    expect(health.body.datasets['personal-loan-rates'].lastUpdated).toBe('2025-02-04 20:04:55');
    for (const path of [
      '/api/v1/mortgage-rates',
      '/api/v1/mortgage-rates/institution:anz',
      '/api/v1/mortgage-rates/time-series?date=2025-03-05',
    ]) {
      const { response, body } = await getJson(api, path);
      expect(response.status, path).toBe(500);
      expect(body).toMatchObject({
        code: 500,
        error: 'server_error',
        message: 'An error occurred while retrieving mortgage rates data',
      });
      expect(body.hint).toContain('/api/v1/health');
    }
    expect((await get(api, '/api/v1/personal-loan-rates')).status).toBe(200);
  });

  it('an empty tree still answers, and a client mistake is still a 400 rather than a 500', async () => {
    const api = await apiOver(await tempDir());
    expect((await getJson(api, '/api/v1/health')).body.status).toBe('degraded');
    expect((await get(api, '/api/v1/mortgage-rates?termInMonths=abc')).status).toBe(400);
    expect((await get(api, '/api/v1/car-loan-rates/time-series?startDate=2025-01-01')).status).toBe(400);
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
    const data = await getJson(api, '/api/v1/credit-card-rates');
    expect(data.response.status).toBe(500);
    expect(data.body).toMatchObject({
      error: 'server_error',
      message: 'An error occurred while retrieving credit card rates data',
    });
    // The cause goes to the server log, not to the caller.
    expect(logged.mock.calls.map((c) => String(c[1]))).toEqual([
      'Error: EACCES: permission denied',
      'Error: EACCES: permission denied',
    ]);
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
    (ago: number, slug = 'mortgage-rates', extra: Partial<CollectionStatus> = {}) =>
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
    expect(body.datasets['mortgage-rates']).toEqual({
      lastUpdated: '2025-03-05 01:32:05',
      lastChecked: '2025-03-05 11:15:00',
      stale: false,
      lastChanged: '2025-03-05 11:15:00',
      deployment: 'behind',
    });
    expect(body.problems).toEqual([
      'mortgage-rates: the collector recorded a change at 2025-03-05 11:15:00 that this deployment does not serve ' +
        '(it serves data collected at 2025-03-05 01:32:05); the commit, push or deployment has stalled.',
    ]);
  });

  it('within 30 minutes the change is pending (its deployment is on the way) and health stays ok', async () => {
    const status = await statusWith(allChecked(hoursAgo(0.1)));
    await changedAt(0.4)(status); // 24 minutes ago
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.status).toBe('ok');
    expect(body.datasets['mortgage-rates'].deployment).toBe('pending');
  });

  it('a change the deployment serves is current, whenever it was collected', async () => {
    const status = await statusWith(allChecked(hoursAgo(0.1)));
    await status.write('mortgage-rates', {
      lastChecked: hoursAgo(0.1),
      lastChanged: SERVED_MORTGAGES,
      lastError: null,
      lastErrorAt: null,
    });
    const { body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(body.status).toBe('ok');
    expect(body.datasets['mortgage-rates']).toMatchObject({
      lastChanged: '2025-03-05 01:32:05',
      deployment: 'current',
    });
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
    await partial.write('credit-card-rates', {
      lastChecked: null,
      lastChanged: null,
      lastError: 'HTTP 500',
      lastErrorAt: hoursAgo(1),
    });
    const { body } = await getJson(await apiOver(historyDir(), { status: partial }), '/api/v1/health');
    expect(body.status).toBe('degraded');
    expect(body.collection.status).toBe('ok');
    expect(body.problems).toEqual(['credit-card-rates: no collection has been recorded, so its freshness is unknown.']);
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
    expect(body.datasets['car-loan-rates']).toEqual({
      lastUpdated: '2025-02-24 22:04:32',
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
