import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApi } from '../src/api/app.ts';
import { DATASET_SLUGS } from '../src/datasets.ts';
import { Health } from '../src/schemas/health.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { ServedStore } from '../src/store/served-store.ts';
import { FileStatusStore, type StatusStore } from '../src/status/status-store.ts';
import { apiOver, get, getJson, historyDir, NOW, tempDir } from './helpers.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3600_000).toISOString();

async function statusWith(lastChecked: Record<string, string>) {
  const status = new FileStatusStore(await tempDir('rates-status-'));
  for (const [slug, when] of Object.entries(lastChecked)) {
    await status.write(slug, { lastChecked: when, lastChanged: null, lastError: null, lastErrorAt: null });
  }
  return status;
}

describe('health', () => {
  it('reports every dataset fresh when each was checked within 3 hours', async () => {
    const status = await statusWith(Object.fromEntries(DATASET_SLUGS.map((s) => [s, hoursAgo(1)])));
    const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(Health.parse(body)).toEqual(body);
    expect(body.status).toBe('ok');
    expect(body.database).toEqual({ status: 'ok' });
    expect(Object.keys(body.datasets)).toEqual(DATASET_SLUGS);
    expect(body.datasets['mortgage-rates']).toEqual({ lastUpdated: '2025-03-05 01:32:05', lastChecked: '2025-03-05 11:00:00', stale: false });
    expect(body.datasets['credit-card-rates'].lastUpdated).toBe('2025-01-07 08:06:01');
  });

  it('marks a dataset stale after 3 hours without a successful check, and the service degraded', async () => {
    const status = await statusWith({ 'mortgage-rates': hoursAgo(3.01), 'car-loan-rates': hoursAgo(2.99) });
    const { response, body } = await getJson(await apiOver(historyDir(), { status }), '/api/v1/health');
    expect(response.status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.datasets['mortgage-rates'].stale).toBe(true);
    expect(body.datasets['car-loan-rates'].stale).toBe(false);
    expect(body.datasets['personal-loan-rates']).toMatchObject({ lastChecked: null, stale: null });
  });

  it('keeps answering with lastChecked null when the status store cannot be read', async () => {
    const broken: StatusStore = {
      read: () => Promise.reject(new Error('blob store unreachable')),
      write: () => Promise.reject(new Error('blob store unreachable')),
    };
    const { response, body } = await getJson(await apiOver(historyDir(), { status: broken }), '/api/v1/health');
    expect(response.status).toBe(200);
    for (const slug of DATASET_SLUGS) expect(body.datasets[slug]).toMatchObject({ lastChecked: null, stale: null });
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
    for (const path of ['/api/v1/mortgage-rates', '/api/v1/mortgage-rates/institution:anz', '/api/v1/mortgage-rates/time-series?date=2025-03-05']) {
      const { response, body } = await getJson(api, path);
      expect(response.status, path).toBe(500);
      expect(body).toMatchObject({ code: 500, error: 'server_error', message: 'An error occurred while retrieving mortgage rates data' });
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
    expect(data.body).toMatchObject({ error: 'server_error', message: 'An error occurred while retrieving credit card rates data' });
    // The cause goes to the server log, not to the caller.
    expect(logged.mock.calls.map((c) => String(c[1]))).toEqual(['Error: EACCES: permission denied', 'Error: EACCES: permission denied']);
  });

  it('refuses query parameters', async () => {
    const api = createApi({ loadStore: async () => ServedStore.from(await compileSnapshotTree(historyDir())), status: await statusWith({}) });
    expect((await get(api, '/api/v1/health?verbose=1')).status).toBe(400);
  });
});
