import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BlobStatusStore, type BlobClient } from '../src/status/blob-status-store.ts';
import { statusStoreFromEnv } from '../src/status/from-env.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { appendRun, type CollectionRun, RUN_LOG_LENGTH, refusalRule } from '../src/status/run-log.ts';
import { statusReport } from '../src/status/report.ts';
import { datasetFailures } from '../scripts/hourly/collector.ts';
import { apiOver, getJson } from './support/core.ts';
import { NOW } from './support/constants.ts';
import { healthTime } from '../src/status/health.ts';
import { DATASETS } from '../src/datasets.ts';
import { historyDir, newestSnapshots, tempDir } from './support/history.ts';
import { memoryBlob } from './support/blob.ts';

const STATUS = {
  lastChecked: '2025-03-05T11:30:00.000Z',
  lastChanged: null,
  lastError: 'HTTP 500',
  lastErrorAt: '2025-03-05T10:30:00.000Z',
};

describe('status stores', () => {
  it('the file store round-trips a status and answers null before anything was recorded', async () => {
    const store = new FileStatusStore(await tempDir());
    for (const { slug } of DATASETS) {
      expect(await store.read(slug)).toBeNull();
      await store.write(slug, { ...STATUS, lastError: slug });
    }
    for (const { slug } of DATASETS) expect(await store.read(slug)).toEqual({ ...STATUS, lastError: slug });
  });

  it('the Blob store keeps one JSON object per dataset under status/', async () => {
    const blob = memoryBlob();
    const store = new BlobStatusStore(blob);
    for (const { slug } of DATASETS) {
      expect(await store.read(slug)).toBeNull();
      await store.write(slug, { ...STATUS, lastError: slug });
    }
    expect([...blob.objects.keys()]).toEqual(DATASETS.map((d) => `status/${d.slug}.json`));
    for (const { slug } of DATASETS) {
      expect(JSON.parse(blob.objects.get(`status/${slug}.json`)!)).toEqual({ ...STATUS, lastError: slug });
      expect(await store.read(slug)).toEqual({ ...STATUS, lastError: slug });
    }
  });

  it('health reads the Blob store: lastChecked and stale come from it', async () => {
    const store = new BlobStatusStore(memoryBlob());
    const [checked, ...unchecked] = DATASETS;
    await store.write(checked!.slug, STATUS);
    const { body } = await getJson(await apiOver(historyDir(), { status: store, now: () => NOW }), '/api/v1/health');
    expect(body.datasets[checked!.slug]).toMatchObject({ lastChecked: '2025-03-05 11:30:00', stale: false });
    for (const { slug } of unchecked) expect(body.datasets[slug]).toMatchObject({ lastChecked: null });
  });

  it('a Blob store that cannot be reached: health still answers (degraded), with lastChecked null', async () => {
    const unreachable: BlobClient = {
      read: () => Promise.reject(Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } })),
      write: () => Promise.reject(new Error('fetch failed')),
    };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { response, body } = await getJson(
      await apiOver(historyDir(), { status: new BlobStatusStore(unreachable), now: () => NOW }),
      '/api/v1/health',
    );
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ status: 'degraded', collection: { status: 'unavailable', store: 'vercel-blob' } });
    expect(Object.keys(body.datasets)).toEqual(DATASETS.map((d) => d.slug));
    const newest = await newestSnapshots();
    for (const { slug } of DATASETS)
      expect(body.datasets[slug]).toMatchObject({
        lastChecked: null,
        stale: null,
        lastUpdated: healthTime(newest[slug].lastUpdated),
      });
    logged.mockRestore();
  });

  it('the environment picks Blob only when its token is set', () => {
    expect(statusStoreFromEnv({ BLOB_READ_WRITE_TOKEN: 'vercel_blob_rw_x_y' })).toBeInstanceOf(BlobStatusStore);
    const local = statusStoreFromEnv({ STATUS_DIR: '/tmp/somewhere' });
    expect(local).toBeInstanceOf(FileStatusStore);
    expect((local as FileStatusStore).dir).toBe('/tmp/somewhere');
    expect((statusStoreFromEnv({}) as FileStatusStore).dir).toBe('.status');
  });

  it("on Vercel without a token there is no store (a function's disk is not where the collector writes); production requires one", () => {
    expect(statusStoreFromEnv({ VERCEL: '1', VERCEL_ENV: 'production' })).toMatchObject({
      kind: 'none',
      required: true,
    });
    expect(statusStoreFromEnv({ VERCEL: '1', VERCEL_ENV: 'preview' })).toMatchObject({ kind: 'none', required: false });
    expect(statusStoreFromEnv({ VERCEL: '1', VERCEL_ENV: 'production', BLOB_READ_WRITE_TOKEN: 't' })).toMatchObject({
      kind: 'vercel-blob',
      required: true,
    });
    expect(statusStoreFromEnv({})).toMatchObject({ kind: 'filesystem', required: false });
  });

  it('the unconfigured store reads nothing and refuses writes, naming the missing token', async () => {
    const store = statusStoreFromEnv({ VERCEL: '1' });
    for (const { slug } of DATASETS) {
      expect(await store.read(slug)).toBeNull();
      await expect(store.write(slug, STATUS)).rejects.toThrow('BLOB_READ_WRITE_TOKEN');
    }
    expect(await store.readRuns()).toEqual([]);
    await expect(appendRun(store, runAt(0))).rejects.toThrow('BLOB_READ_WRITE_TOKEN');
  });
});

/** The nth hourly run after 2026-11-01 00:00 UTC: every dataset unchanged, but the first failed on odd hours. */
function runAt(n: number): CollectionRun {
  const [first, ...rest] = DATASETS;
  const failed = n % 2 === 1;
  return {
    at: new Date(Date.UTC(2026, 10, 1, n)).toISOString(),
    outcome: failed ? 'failed' : 'unchanged',
    datasets: {
      [first!.slug]: failed ? { outcome: 'failed', reason: `HTTP 503 in run ${n}` } : { outcome: 'unchanged' },
      ...Object.fromEntries(rest.map((d) => [d.slug, { outcome: 'unchanged' }])),
    },
  };
}

describe('the run log', () => {
  const RUNS = Array.from({ length: RUN_LOG_LENGTH + 5 }, (_, n) => runAt(n));

  it('the file store keeps the last RUN_LOG_LENGTH runs, oldest first, in run-log.json beside the datasets', async () => {
    const dir = await tempDir();
    const store = new FileStatusStore(dir);
    expect(await store.readRuns()).toEqual([]);
    for (const run of RUNS) await appendRun(store, run);
    expect(await store.readRuns()).toEqual(RUNS.slice(-RUN_LOG_LENGTH));
    const text = await readFile(join(dir, 'run-log.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify(RUNS.slice(-RUN_LOG_LENGTH), null, 2)}\n`);
    // The datasets' records are untouched by the log, and no dataset's file can be the log's.
    for (const { slug } of DATASETS) expect(await store.read(slug)).toBeNull();
    expect(DATASETS.map((d) => `${d.slug}.json`)).not.toContain('run-log.json');
  });

  it('the Blob store keeps the same bounded log as one object, status/run-log.json', async () => {
    const blob = memoryBlob();
    const store = new BlobStatusStore(blob);
    expect(await store.readRuns()).toEqual([]);
    for (const run of RUNS) await appendRun(store, run);
    expect([...blob.objects.keys()]).toEqual(['status/run-log.json']);
    expect(JSON.parse(blob.objects.get('status/run-log.json')!)).toEqual(RUNS.slice(-RUN_LOG_LENGTH));
    expect(await store.readRuns()).toEqual(RUNS.slice(-RUN_LOG_LENGTH));
  });

  it('a stored log longer than the limit (written by another build) is read as its newest runs; a malformed one is an error, not an empty log', async () => {
    const blob = memoryBlob();
    const store = new BlobStatusStore(blob);
    blob.objects.set('status/run-log.json', JSON.stringify(RUNS));
    expect(await store.readRuns()).toEqual(RUNS.slice(-RUN_LOG_LENGTH));
    blob.objects.set('status/run-log.json', JSON.stringify([{ at: 'yesterday' }]));
    await expect(store.readRuns()).rejects.toThrow();
  });

  it("reads an older build's log, whose runs record no rule and no counts, as it was written; the rule is read from a refusal's reason", async () => {
    const dir = await tempDir();
    const [first] = DATASETS;
    const older = [
      { ...runAt(1), datasets: { [first!.slug]: { outcome: 'refused', reason: 'refused (growth): 500 rates' } } },
      runAt(2),
    ];
    await writeFile(join(dir, 'run-log.json'), `${JSON.stringify(older, null, 2)}\n`);
    const store = new FileStatusStore(dir);
    const runs = await store.readRuns();
    expect(runs).toEqual(older);
    expect(refusalRule(runs[0]!.datasets[first!.slug]!)).toBe('growth');
    // A run of this build beside them, with its rule and counts, keeps them.
    const newer = {
      ...runAt(3),
      datasets: {
        [first!.slug]: {
          outcome: 'refused' as const,
          reason: 'refused (shrink): 2',
          rule: 'shrink',
          institutions: 2,
          rates: 9,
        },
      },
    };
    await appendRun(store, newer);
    expect(await store.readRuns()).toEqual([...older, newer]);
  });

  it('the status page leaves out a run dated more than 5 minutes ahead of the clock, and logs it once', async () => {
    const store = new FileStatusStore(await tempDir());
    const now = new Date(Date.UTC(2026, 10, 1, 3, 30)); // half an hour after runAt(3)
    const ahead = { ...runAt(3), at: new Date(now.getTime() + 24 * 3600_000).toISOString() };
    const soon = { ...runAt(3), at: new Date(now.getTime() + 4 * 60_000).toISOString() }; // within the skew
    for (const run of [runAt(2), runAt(3), soon, ahead]) await appendRun(store, run);
    const logged = vi.fn();
    const noStore = () => Promise.reject(new Error('no snapshots here'));
    for (let n = 0; n < 2; n++)
      expect((await statusReport(noStore, store, now, logged)).runs).toEqual([runAt(2), runAt(3), soon]);
    const aheadLogs = logged.mock.calls.filter(([message]) => String(message).includes('ahead of'));
    expect(aheadLogs).toEqual([
      [
        "status: a run in the run log is dated ahead of this server's clock, so it is read as unknown:",
        expect.stringContaining(ahead.at),
      ],
    ]);
  });

  it("the hourly chain names a run log the collector could not write among the run's failures", () => {
    const output = `collect: 0 changed, ${DATASETS.length} unchanged, 0 failed\ncollect: could not record the run in the run log: EACCES\n`;
    expect(datasetFailures(output)).toEqual([
      { dataset: 'run log', reason: 'could not record the run in the run log: EACCES' },
    ]);
  });
});
