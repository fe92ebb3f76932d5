/**
 * The compiled store against the uncompiled path: over the whole real history, every response
 * is byte-identical to the JSON built straight from the snapshot files. Also ETag/304 and
 * streaming.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { DATA_CACHE_CONTROL } from '../src/api/caching.ts';
import { DATASETS, filterEntities, type Dataset, type Entity } from '../src/datasets.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { apiOver, get } from './support/core.ts';
import { NOW } from './support/constants.ts';
import { historyDir, tempDir } from './support/history.ts';

interface SnapshotFile {
  type: string;
  data: Entity[];
  lastUpdated: string;
}

let api: Handler;
const files: Record<string, { dates: string[]; snapshots: SnapshotFile[] }> = {};

beforeAll(async () => {
  api = await apiOver(historyDir());
  for (const d of DATASETS) {
    const dates = (await readdir(join(historyDir(), d.slug))).map((f) => f.slice(0, 10)).sort();
    const snapshots = await Promise.all(
      dates.map(async (date) => JSON.parse(await readFile(join(historyDir(), d.slug, `${date}.json`), 'utf8'))),
    );
    files[d.slug] = { dates, snapshots };
  }
});

/** The uncompiled path: the response built with JSON.stringify from the snapshot files. */
function envelope(d: Dataset, s: SnapshotFile, data: Entity[]) {
  return JSON.stringify({
    type: d.type,
    data,
    lastUpdated: s.lastUpdated,
    termsOfUse: TERMS_OF_USE,
    timestamp: NOW.toISOString(),
  });
}
function series(d: Dataset, picked: [string, SnapshotFile, Entity[]][]) {
  return JSON.stringify({
    type: d.timeSeriesType,
    timeSeries: Object.fromEntries(
      picked.map(([date, s, data]) => [date, { type: s.type, data, lastUpdated: s.lastUpdated }]),
    ),
    availableDates: files[d.slug]!.dates,
    termsOfUse: TERMS_OF_USE,
    timestamp: NOW.toISOString(),
  });
}
const text = async (path: string) => {
  const response = await get(api, path);
  expect(response.status, path).toBe(200);
  return response.text();
};
const FILTERS: Record<string, Record<string, string>[]> = {
  'mortgage-rates': [{}, { termInMonths: '12' }, { termInMonths: '18' }, { termInMonths: '7' }],
};
const qs = (values: Record<string, string>) => new URLSearchParams(values).toString();

describe.each(DATASETS.map((d) => [d.slug, d] as const))(
  '%s: compiled responses equal the uncompiled path',
  (slug, dataset) => {
    const filters = FILTERS[slug] ?? [{}];

    it('list and every detail of the newest snapshot, with every filter', async () => {
      const newest = files[slug]!.snapshots.at(-1)!;
      for (const values of filters) {
        const q = qs(values);
        expect(await text(`/api/v1/${slug}${q ? `?${q}` : ''}`)).toBe(
          envelope(dataset, newest, filterEntities(dataset, newest.data, values)),
        );
        for (const entity of newest.data) {
          expect(await text(`/api/v1/${slug}/${entity.id}${q ? `?${q}` : ''}`), entity.id).toBe(
            envelope(dataset, newest, filterEntities(dataset, [entity], values)),
          );
        }
      }
    });

    it('every date of the history, whole and per entity, with every filter', async () => {
      const { dates, snapshots } = files[slug]!;
      for (const [i, date] of dates.entries()) {
        const s = snapshots[i]!;
        for (const values of filters) {
          const q = qs(values);
          expect(await text(`/api/v1/${slug}/time-series?date=${date}${q ? `&${q}` : ''}`), date).toBe(
            series(dataset, [[date, s, filterEntities(dataset, s.data, values)]]),
          );
        }
        for (const entity of s.data) {
          const body = await text(`/api/v1/${slug}/time-series?date=${date}&${dataset.entity.param}=${entity.id}`);
          expect(body, `${date} ${entity.id}`).toBe(series(dataset, [[date, s, [entity]]]));
        }
      }
    });

    it('the full range, streamed, equals the whole body built at once', async () => {
      const { dates, snapshots } = files[slug]!;
      for (const values of filters) {
        const q = qs(values);
        const response = await get(
          api,
          `/api/v1/${slug}/time-series?startDate=${dates[0]}&endDate=${dates.at(-1)}${q ? `&${q}` : ''}`,
        );
        expect(response.body).toBeInstanceOf(ReadableStream);
        const chunks: Uint8Array[] = [];
        for await (const chunk of response.body!) chunks.push(chunk);
        expect(chunks.length, 'one piece per snapshot, not one string').toBeGreaterThan(dates.length);
        const streamed = Buffer.concat(chunks).toString('utf8');
        expect(streamed).toBe(
          series(
            dataset,
            dates.map((date, i) => [date, snapshots[i]!, filterEntities(dataset, snapshots[i]!.data, values)]),
          ),
        );
      }
    });
  },
);

it('an entity over a range: present dates hold it, absent dates are empty', async () => {
  const { dates, snapshots } = files['mortgage-rates']!;
  const newcomer = snapshots
    .at(-1)!
    .data.map((e) => e.id)
    .find((id) => !snapshots[0]!.data.some((e) => e.id === id))!;
  const body = await text(
    `/api/v1/mortgage-rates/time-series?startDate=${dates[0]}&endDate=${dates.at(-1)}&institutionId=${newcomer.toUpperCase()}&termInMonths=24`,
  );
  const dataset = DATASETS[0];
  expect(body).toBe(
    series(
      dataset,
      dates.map((date, i) => [
        date,
        snapshots[i]!,
        filterEntities(
          dataset,
          snapshots[i]!.data.filter((e) => e.id === newcomer),
          { termInMonths: '24' },
        ),
      ]),
    ),
  );
});

describe('structural sharing', () => {
  it('stores each distinct product once: the compiled history is far smaller than the files', async () => {
    const compiled = await compileSnapshotTree(historyDir());
    const mortgage = compiled.datasets['mortgage-rates']!;
    const refs = mortgage.snapshots.reduce((n, s) => n + s.length, 0);
    expect(mortgage.snapshots).toHaveLength(178);
    expect(mortgage.entities.length).toBeLessThan(refs / 5);
    const filesBytes = files['mortgage-rates']!.snapshots.reduce((n, s) => n + JSON.stringify(s).length, 0);
    expect(JSON.stringify(mortgage).length).toBeLessThan(filesBytes / 10);
  });
});

describe('HTTP caching', () => {
  it('gives data responses a strong ETag and the CDN cache policy, and answers If-None-Match with 304', async () => {
    for (const path of [
      '/api/v1/mortgage-rates',
      '/api/v1/credit-card-rates/issuer:amex',
      '/api/v1/car-loan-rates/time-series?date=2025-02-24',
    ]) {
      const first = await get(api, path);
      const etag = first.headers.get('etag')!;
      expect(etag, path).toMatch(/^"[\w.-]+"$/);
      expect(first.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
      expect((await get(api, path)).headers.get('etag')).toBe(etag);
      for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await get(api, path, { headers: { 'if-none-match': condition, 'x-request-id': 'again-1' } });
        expect(again.status, condition).toBe(304);
        expect(await again.text()).toBe('');
        expect(again.headers.get('etag')).toBe(etag);
        expect(again.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
        expect(again.headers.get('x-request-id')).toBe('again-1');
        expect(again.headers.get('access-control-allow-origin')).toBe('*');
      }
      expect((await get(api, path, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
    }
  });

  it('the ETag follows the request: case of ids does not matter, a filter does', async () => {
    const etag = async (path: string) => (await get(api, path)).headers.get('etag');
    expect(await etag('/api/v1/mortgage-rates/INSTITUTION:ANZ')).toBe(
      await etag('/api/v1/mortgage-rates/institution:anz'),
    );
    expect(await etag('/api/v1/mortgage-rates?termInMonths=12')).not.toBe(await etag('/api/v1/mortgage-rates'));
    expect(await etag('/api/v1/mortgage-rates/institution:anz')).not.toBe(
      await etag('/api/v1/mortgage-rates/institution:asb'),
    );
  });

  it('the ETag changes when the data changes', async () => {
    const dir = await tempDir();
    await cp(historyDir(), dir, { recursive: true });
    const before = (await get(await apiOver(dir), '/api/v1/car-loan-rates')).headers.get('etag');
    const file = join(dir, 'car-loan-rates', '2025-02-24.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/"rate": ([\d.]+)/, '"rate": 33.33'));
    const after = await apiOver(dir);
    expect((await get(after, '/api/v1/car-loan-rates')).headers.get('etag')).not.toBe(before);
    expect((await get(after, '/api/v1/car-loan-rates', { headers: { 'if-none-match': before! } })).status).toBe(200);
  });

  it('varies on nothing, and keeps health, errors of the server and 405 out of caches', async () => {
    expect((await get(api, '/api/v1/mortgage-rates')).headers.get('vary')).toBeNull();
    expect((await get(api, '/api/v1/health')).headers.get('cache-control')).toBe('no-store');
    expect((await get(api, '/api/v1/health')).headers.get('etag')).toBeNull();
    expect((await get(api, '/api/v1/mortgage-rates', { method: 'POST' })).headers.get('cache-control')).toBe(
      'no-store',
    );
    const empty = await apiOver(await tempDir());
    expect((await get(empty, '/api/v1/mortgage-rates')).headers.get('cache-control')).toBe('no-store');
    expect((await get(api, '/api/v1/mortgage-rates/institution:nobody')).headers.get('cache-control')).toBe(
      DATA_CACHE_CONTROL,
    );
  });
});
