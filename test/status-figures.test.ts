/**
 * GET /api/v1/status: each dataset's collection reliability over thirty days of the run log, as a
 * caller gets it through the core, counted from runs a real FileStatusStore holds; what it says
 * with no run recorded or a log it cannot read; and its OpenAPI schema and real examples.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { StatusFigures } from '../src/schemas/status.ts';
import { appendRun, type CollectionRun, type DatasetRun } from '../src/status/run-log.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { NOW } from './support/constants.ts';
import { documentOverHistory } from './support/openapi.ts';
import { apiOver, getJson } from './support/core.ts';
import { historyDir, tempDir } from './support/history.ts';

const HOUR = 3_600_000;
const [A, B] = DATASETS;
/** The run `hoursAgo` hours before NOW, its datasets as given (every other dataset unchanged). */
const runAt = (hoursAgo: number, datasets: Record<string, DatasetRun> = {}): CollectionRun => ({
  at: new Date(NOW.getTime() - hoursAgo * HOUR).toISOString(),
  outcome: 'unchanged',
  datasets: {
    ...Object.fromEntries(DATASETS.map((d) => [d.slug, { outcome: 'unchanged', institutions: 10, rates: 100 }])),
    ...datasets,
  },
});

async function storeWith(runs: readonly CollectionRun[]) {
  const store = new FileStatusStore(await tempDir('rates-status-'));
  for (const run of runs) await appendRun(store, run);
  return store;
}

const statusOf = async (store: FileStatusStore) =>
  getJson(await apiOver(historyDir(), { status: store, now: () => NOW }), '/api/v1/status', {
    headers: { 'x-request-id': 'trace-status' },
  });

describe('GET /api/v1/status over a seeded run log', () => {
  // Hours before NOW: a run 31 days ago (outside the window), then A's story within it.
  const runs = [
    runAt(31 * 24, { [A!.slug]: { outcome: 'failed', reason: 'HTTP 503' } }),
    runAt(100, { [A!.slug]: { outcome: 'unchanged', institutions: 9, rates: 90 } }),
    runAt(99, {
      [A!.slug]: {
        outcome: 'refused',
        reason: 'refused (shrink): only 2 institutions',
        rule: 'shrink',
        institutions: 2,
        rates: 20,
      },
    }),
    // An older build's refusal: no rule recorded, the rule read from its reason.
    runAt(98, {
      [A!.slug]: { outcome: 'refused', reason: 'refused (growth): 500 rates where the newest snapshot has 249' },
    }),
    runAt(97, { [A!.slug]: { outcome: 'refused', reason: 'refused (shrink): only 3 institutions' } }),
    // A reason that names no rule, and a failure.
    runAt(96, { [A!.slug]: { outcome: 'refused', reason: 'something odd' } }),
    runAt(95, { [A!.slug]: { outcome: 'failed', reason: 'HTTP 500' } }),
    runAt(90, { [A!.slug]: { outcome: 'ok', institutions: 12, rates: 130 } }),
    runAt(3.5, { [A!.slug]: { outcome: 'unchanged', institutions: 11, rates: 120 } }),
    // An older build's run: no counts.
    runAt(2, { [A!.slug]: { outcome: 'failed', reason: 'HTTP 503' } }),
    // A run limited to A: B's figures leave it out.
    {
      at: new Date(NOW.getTime() - HOUR).toISOString(),
      outcome: 'refused',
      datasets: {
        [A!.slug]: { outcome: 'refused', reason: 'refused (no rate table): 0 tables', rule: 'no rate table' },
      },
    },
  ] satisfies CollectionRun[];

  it("counts each dataset's share of good runs, hours since the last and the longest gap between two, refusals by rule, and the counts its good runs listed", async () => {
    const { response, body } = await statusOf(await storeWith(runs));
    expect(response.status).toBe(200);
    expect(StatusFigures.parse(body)).toEqual(body);
    expect(Object.keys(body.datasets)).toEqual(DATASETS.map((d) => d.slug));
    expect(body.window).toEqual({
      days: 30,
      from: new Date(NOW.getTime() - 720 * HOUR).toISOString(),
      to: NOW.toISOString(),
      runs: runs.length - 1,
    });
    expect(body.runLog).toEqual({ status: 'ok', store: 'filesystem' });
    expect(body.datasets[A!.slug]).toEqual({
      runs: 10,
      succeeded: 3,
      successShare: 0.3,
      outcomes: { ok: 1, unchanged: 2, refused: 5, failed: 2 },
      lastGoodRun: new Date(NOW.getTime() - 3.5 * HOUR).toISOString(),
      hoursSinceLastGood: 3.5,
      longestGapHours: 86.5,
      refusals: { shrink: 2, growth: 1, unrecorded: 1, 'no rate table': 1 },
      institutions: { latest: 11, min: 9, max: 12 },
      rates: { latest: 120, min: 90, max: 130 },
    });
    expect(body.datasets[B!.slug]).toEqual({
      runs: 9,
      succeeded: 9,
      successShare: 1,
      outcomes: { ok: 0, unchanged: 9, refused: 0, failed: 0 },
      lastGoodRun: new Date(NOW.getTime() - 2 * HOUR).toISOString(),
      hoursSinceLastGood: 2,
      longestGapHours: 86.5,
      refusals: {},
      institutions: { latest: 10, min: 10, max: 10 },
      rates: { latest: 100, min: 100, max: 100 },
    });
  });

  it('is stamped with the request id and never cached: it counts to the time of the request', async () => {
    const { response } = await statusOf(await storeWith(runs));
    expect(response.headers.get('x-request-id')).toBe('trace-status');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('vercel-cdn-cache-control')).toBeNull();
  });

  it('refuses a query parameter with the documented error body', async () => {
    const api = await apiOver(historyDir(), { status: await storeWith([]), now: () => NOW });
    const { response, body } = await getJson(api, '/api/v1/status?verbose=1');
    expect(response.status).toBe(400);
    expect(body).toMatchObject({ code: 400, error: 'invalid_request', documentationUrl: expect.any(String) });
    expect(body.hint).toContain('verbose');
    expect((await getJson(api, '/api/v1/status/more')).response.status).toBe(404);
  });
});

describe('GET /api/v1/status with nothing to count', () => {
  it('with no run recorded, every dataset says so: runs 0, null figures and a message, never zeros as success', async () => {
    const { response, body } = await statusOf(await storeWith([]));
    expect(response.status).toBe(200);
    expect(StatusFigures.parse(body)).toEqual(body);
    expect(body.runLog).toMatchObject({ status: 'empty', store: 'filesystem' });
    expect(body.runLog.message).toContain('npm run collect');
    expect(Object.keys(body.datasets)).toEqual(DATASETS.map((d) => d.slug));
    for (const d of DATASETS)
      expect(body.datasets[d.slug]).toEqual({
        runs: 0,
        succeeded: 0,
        successShare: null,
        outcomes: { ok: 0, unchanged: 0, refused: 0, failed: 0 },
        lastGoodRun: null,
        hoursSinceLastGood: null,
        longestGapHours: null,
        refusals: {},
        institutions: null,
        rates: null,
        message: expect.stringMatching(
          /^No run is recorded, so its reliability is unknown: No collection run has been recorded here/,
        ),
      });
  });

  it('a dataset no run of the window collected says so while the others count', async () => {
    const { body } = await statusOf(await storeWith([{ ...runAt(1), datasets: { [A!.slug]: { outcome: 'ok' } } }]));
    expect(body.datasets[A!.slug]).toMatchObject({ runs: 1, successShare: 1, institutions: null, rates: null });
    expect(body.datasets[B!.slug]).toMatchObject({ runs: 0, successShare: null });
    expect(body.datasets[B!.slug].message).toBe(
      'No recorded run collected it in the last 30 days, so its reliability is unknown.',
    );
  });

  it('a run log it cannot read: every dataset unknown, and the reason, short and clean', async () => {
    const dir = await tempDir('rates-status-');
    await writeFile(join(dir, 'run-log.json'), '[{"at": ');
    const { response, body } = await statusOf(new FileStatusStore(dir));
    expect(response.status).toBe(200);
    expect(body.runLog).toEqual({
      status: 'unreadable',
      store: 'filesystem',
      message: 'The run log could not be read (run-log.json is not JSON (Unexpected end of JSON input)).',
    });
    for (const d of DATASETS) expect(body.datasets[d.slug]).toMatchObject({ runs: 0, successShare: null });
  });
});

describe('the OpenAPI document of GET /api/v1/status', () => {
  it('has its schema, which lets a field added later through, and real examples that satisfy it: a collector’s thirty days, and no run recorded', async () => {
    const { doc, ajv } = await documentOverHistory();
    const op = doc.paths['/api/v1/status'].get;
    expect(op.operationId).toBe('getStatus');
    const media = op.responses['200'].content['application/json'];
    const valid = ajv.compile(media.schema);
    const values = Object.values(media.examples).map((e: any) => e.value);
    expect(values.length).toBe(2);
    for (const value of values) expect(valid(value), ajv.errorsText(valid.errors)).toBe(true);
    // Open: a release may add a field (/docs/stability#where-new-fields-may-appear).
    expect(valid({ ...values[0], extra: 1 })).toBe(true);
    const [collected, none] = values as any[];
    for (const d of DATASETS) {
      expect(collected.datasets[d.slug].runs).toBe(720);
      expect(collected.datasets[d.slug].successShare).toBeGreaterThan(0.99);
      expect(collected.datasets[d.slug].rates.latest).toBeGreaterThan(0);
      expect(none.datasets[d.slug]).toMatchObject({ runs: 0, successShare: null });
    }
    expect(collected.datasets[A!.slug].refusals).toEqual({ shrink: 2 });
    const bad = op.responses['400'].content['application/json'];
    expect(Object.keys(bad.examples)).toEqual(['invalid_request']);
  }, 60_000);
});
