/**
 * The compiled store against the uncompiled path: over the whole real history, every response
 * is byte-identical to the JSON built straight from the snapshot files. Also ETag/304 and
 * streaming.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { DATA_CACHE_CONTROL } from '../src/http/caching.ts';
import { DATASETS, filterEntities, filtersOf, type Dataset, type Entity } from '../src/datasets.ts';
import type { EndpointKind } from '../src/endpoints.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { apiOver, get } from './support/core.ts';
import { NOW } from './support/constants.ts';
import { EACH } from './support/datasets.ts';
import { historyDir, tempDir, withFirstRate } from './support/history.ts';

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
/**
 * The filter values each endpoint of a dataset is checked with: none, then each filter it takes with
 * its example and with each probe value its schema takes (one the data may well lack).
 */
const PROBES = ['18', '7'];
const filtersFor = (dataset: Dataset, kind: EndpointKind): Record<string, string>[] => [
  {},
  ...filtersOf(dataset, kind).flatMap((f) =>
    [f.example, ...PROBES.filter((v) => v !== f.example && f.schema.safeParse(v).success)].map((v) => ({
      [f.name]: v,
    })),
  ),
];
const qs = (values: Record<string, string>) => new URLSearchParams(values).toString();

describe.each(DATASETS.map((d) => [d.slug, d] as const))(
  '%s: compiled responses equal the uncompiled path',
  (slug, dataset) => {
    const seriesFilters = filtersFor(dataset, 'timeSeries');

    it('list and every detail of the newest snapshot, with every filter', async () => {
      const newest = files[slug]!.snapshots.at(-1)!;
      for (const values of filtersFor(dataset, 'list')) {
        const q = qs(values);
        expect(await text(`/api/v1/${slug}${q ? `?${q}` : ''}`)).toBe(
          envelope(dataset, newest, filterEntities(dataset, newest.data, values)),
        );
      }
      for (const values of filtersFor(dataset, 'detail')) {
        const q = qs(values);
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
        for (const values of seriesFilters) {
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
      for (const values of seriesFilters) {
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

it.each(EACH)('%s: an entity over a range: present dates hold it, absent dates are empty', async (slug, dataset) => {
  const { dates, snapshots } = files[slug]!;
  // An entity of the newest snapshot that some earlier one lacks, if any; else the newest's first.
  const ids = snapshots.at(-1)!.data.map((e) => e.id);
  const entity = ids.find((id) => snapshots.some((s) => !s.data.some((e) => e.id === id))) ?? ids[0]!;
  const values = filtersFor(dataset, 'timeSeries').at(-1)!;
  const q = qs(values);
  const body = await text(
    `/api/v1/${slug}/time-series?startDate=${dates[0]}&endDate=${dates.at(-1)}&${dataset.entity.param}=${entity.toUpperCase()}${q ? `&${q}` : ''}`,
  );
  expect(body).toBe(
    series(
      dataset,
      dates.map((date, i) => [
        date,
        snapshots[i]!,
        filterEntities(
          dataset,
          snapshots[i]!.data.filter((e) => e.id === entity),
          values,
        ),
      ]),
    ),
  );
});

describe('structural sharing', () => {
  it('stores each distinct product once: the longest compiled history is far smaller than its files', async () => {
    const compiled = await compileSnapshotTree(historyDir());
    const longest = DATASETS.map((d) => d.slug).sort((a, b) => files[b]!.dates.length - files[a]!.dates.length)[0]!;
    const history = compiled.datasets[longest]!;
    const refs = history.snapshots.reduce((n, s) => n + s.length, 0);
    expect(history.snapshots).toHaveLength(files[longest]!.dates.length);
    expect(history.entities.length).toBeLessThan(refs / 5);
    const filesBytes = files[longest]!.snapshots.reduce((n, s) => n + JSON.stringify(s).length, 0);
    expect(JSON.stringify(history).length).toBeLessThan(filesBytes / 10);
  });
});

describe('HTTP caching', () => {
  it('gives data responses a strong ETag and the CDN cache policy, and answers If-None-Match with 304', async () => {
    for (const path of DATASETS.flatMap((d) => [
      `/api/v1/${d.slug}`,
      `/api/v1/${d.slug}/${d.exampleEntityId}`,
      `/api/v1/${d.slug}/time-series?date=${files[d.slug]!.dates.at(-1)}`,
    ])) {
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

  it.each(EACH)('%s: the ETag follows the request: case of ids does not matter, a filter does', async (slug, d) => {
    const etag = async (path: string) => (await get(api, path)).headers.get('etag');
    const [one, other] = files[slug]!.snapshots.at(-1)!.data.map((e) => e.id);
    expect(await etag(`/api/v1/${slug}/${one!.toUpperCase()}`)).toBe(await etag(`/api/v1/${slug}/${one}`));
    for (const f of filtersOf(d, 'list'))
      expect(await etag(`/api/v1/${slug}?${f.name}=${f.example}`)).not.toBe(await etag(`/api/v1/${slug}`));
    expect(await etag(`/api/v1/${slug}/${one}`)).not.toBe(await etag(`/api/v1/${slug}/${other}`));
  });

  it('the ETag changes when the data changes', async () => {
    const dir = await tempDir();
    await cp(historyDir(), dir, { recursive: true });
    const before = await apiOver(dir);
    const etags = new Map<string, string>();
    for (const { slug } of DATASETS) {
      etags.set(slug, (await get(before, `/api/v1/${slug}`)).headers.get('etag')!);
      const file = join(dir, slug, `${files[slug]!.dates.at(-1)}.json`);
      const snapshot = JSON.parse(await readFile(file, 'utf8'));
      await writeFile(file, JSON.stringify({ ...snapshot, data: withFirstRate(snapshot.data, 33.33) }, null, 2));
    }
    const after = await apiOver(dir);
    for (const { slug } of DATASETS) {
      expect((await get(after, `/api/v1/${slug}`)).headers.get('etag'), slug).not.toBe(etags.get(slug));
      expect((await get(after, `/api/v1/${slug}`, { headers: { 'if-none-match': etags.get(slug)! } })).status).toBe(
        200,
      );
    }
  });

  it('varies on nothing, and keeps health, errors of the server and 405 out of caches', async () => {
    expect((await get(api, '/api/v1/health')).headers.get('cache-control')).toBe('no-store');
    expect((await get(api, '/api/v1/health')).headers.get('etag')).toBeNull();
    const empty = await apiOver(await tempDir());
    for (const { slug, entity } of DATASETS) {
      expect((await get(api, `/api/v1/${slug}`)).headers.get('vary')).toBeNull();
      expect((await get(api, `/api/v1/${slug}`, { method: 'POST' })).headers.get('cache-control')).toBe('no-store');
      expect((await get(empty, `/api/v1/${slug}`)).headers.get('cache-control')).toBe('no-store');
      expect((await get(api, `/api/v1/${slug}/${entity.prefix}:nobody`)).headers.get('cache-control')).toBe(
        DATA_CACHE_CONTROL,
      );
    }
  });
});
