/**
 * The history as the functions read it: an index and a file per dataset and year, read as a
 * request reaches them. A long history answers its time series from the years asked for, in order
 * across year boundaries; one answer holds at most MAX_TIME_SERIES_SNAPSHOTS snapshots, and past
 * it the documented 400 names the first part to ask for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { createApi } from '../src/service.ts';
import { MAX_TIME_SERIES_SNAPSHOTS } from '../src/api/time-series.ts';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { type CompiledStore, compileSnapshotTree, DatasetCompiler, newestOnly } from '../src/store/compile.ts';
import { PARTS_KEPT } from '../src/store/history-archive.ts';
import { historyFiles } from '../src/store/history-build.ts';
import { indexFile, partFile } from '../src/store/history-files.ts';
import { ServedStore } from '../src/store/served-store.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { NOW, ORIGIN, SITE } from './support/constants.ts';
import { EACH } from './support/datasets.ts';
import { firstRate, historyDir, newestSnapshots, tempDir, withFirstRate } from './support/history.ts';

const DAY = 86_400_000;
const dayAfter = (date: string, days: number) => new Date(Date.parse(date) + days * DAY).toISOString().slice(0, 10);

/**
 * A history of `dataset` of `count` daily snapshots from 2020-01-01: the test history's newest
 * snapshot, its first rate (firstRate) moved each day.
 */
async function longHistory(dataset: Dataset, count: number): Promise<CompiledStore> {
  const newest = (await newestSnapshots())[dataset.slug];
  const compiler = new DatasetCompiler();
  for (let n = 0; n < count; n++) {
    const data = withFirstRate(newest.data, 5 + (n % 100) / 100);
    compiler.add(dayAfter('2020-01-01', n), { data, lastUpdated: `${dayAfter('2020-01-01', n)}T21:00:00.000Z` });
  }
  return { format: 2, datasets: { [dataset.slug]: compiler.finish() } };
}

/** The API over a store whose history files are counted as they are read. */
async function apiReading(compiled: CompiledStore) {
  const files = historyFiles(compiled);
  const reads: string[] = [];
  // The newest snapshots as the build embeds them; the history through the counting reader.
  const store = new ServedStore(newestOnly(compiled), async (path) => {
    reads.push(path);
    return files.get(path)!;
  });
  const api = createApi({
    loadStore: async () => store,
    status: new FileStatusStore(await tempDir('rates-status-')),
    now: () => NOW,
    siteUrl: SITE,
  });
  const get = (path: string) => api(new Request(`${ORIGIN}${path}`));
  return { api, get, reads };
}

describe.each(EACH)('%s: a history of years, read as requests reach them', (slug, dataset) => {
  let compiled: CompiledStore;
  let service: Awaited<ReturnType<typeof apiReading>>;
  const count = MAX_TIME_SERIES_SNAPSHOTS + 200; // 1,200 days: 2020-01-01 to 2023-04-14, four years
  const series = endpointsOf(dataset).timeSeries.path;
  /** The value firstRate moved on the nth day, as the answer has it. */
  const movedRate = (snapshot: any) => firstRate(snapshot.data).value;
  beforeAll(async () => {
    compiled = await longHistory(dataset, count);
    service = await apiReading(compiled);
  });

  it('writes an index and one file per year that has snapshots', () => {
    const files = historyFiles(compiled);
    for (const year of ['2020', '2021', '2022', '2023']) expect(files.has(partFile(slug, year))).toBe(true);
    expect(files.has(partFile(slug, '2024'))).toBe(false);
    const index = JSON.parse(files.get(indexFile(slug))!);
    expect(index.parts.map((p: { year: string }) => p.year)).toEqual(['2020', '2021', '2022', '2023']);
    expect(index.dates).toHaveLength(count);
  });

  it('one date reads the index and that date’s year only', async () => {
    service.reads.length = 0;
    const response = await service.get(`${series}?date=2022-06-30`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body.timeSeries)).toEqual(['2022-06-30']);
    expect(movedRate(body.timeSeries['2022-06-30'])).toBe(
      5 + (((Date.parse('2022-06-30') - Date.parse('2020-01-01')) / DAY) % 100) / 100,
    );
    expect(service.reads).toEqual([indexFile(slug), partFile(slug, '2022')]);
  });

  it(`a range of ${MAX_TIME_SERIES_SNAPSHOTS} snapshots streams every one, in order across year boundaries`, async () => {
    const end = dayAfter('2020-01-01', MAX_TIME_SERIES_SNAPSHOTS - 1);
    const response = await service.get(`${series}?startDate=2019-06-01&endDate=${end}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBeNull(); // streamed
    const body = await response.json();
    const dates = Object.keys(body.timeSeries);
    expect(dates).toHaveLength(MAX_TIME_SERIES_SNAPSHOTS);
    expect(dates).toEqual(compiled.datasets[slug]!.dates.slice(0, MAX_TIME_SERIES_SNAPSHOTS));
    dates.forEach((date, n) => {
      expect(body.timeSeries[date].lastUpdated).toBe(`${date}T21:00:00.000Z`);
      expect(movedRate(body.timeSeries[date])).toBe(5 + (n % 100) / 100);
    });
  });

  it(`keeps at most ${PARTS_KEPT} years loaded: a year read long ago is read again`, async () => {
    const ask = (date: string) => service.get(`${series}?date=${date}`).then((r) => r.text());
    await ask('2020-02-01');
    for (const date of ['2021-02-01', '2022-02-01', '2023-02-01']) await ask(date);
    service.reads.length = 0;
    await ask('2020-02-02');
    expect(service.reads).toEqual([partFile(slug, '2020')]);
  });

  it(`an ${dataset.entity.kind} filter answers 404 from the index alone, before any year is read`, async () => {
    service.reads.length = 0;
    const { param, prefix, notFound } = dataset.entity;
    const response = await service.get(`${series}?startDate=2020-01-01&endDate=2020-12-31&${param}=${prefix}:nobody`);
    expect(response.status).toBe(404);
    expect((await response.json()).error).toBe(notFound);
    expect(service.reads).toEqual([]);
  });

  it(`past ${MAX_TIME_SERIES_SNAPSHOTS} snapshots: the documented 400, whose hint names the first part`, async () => {
    const response = await service.get(`${series}?startDate=2000-01-01&endDate=2099-12-31`);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(ErrorBody.parse(body)).toEqual(body);
    expect(body).toMatchObject({
      code: 400,
      error: 'invalid_request',
      message: `Too many snapshots in one answer: ${count} (at most ${MAX_TIME_SERIES_SNAPSHOTS})`,
    });
    expect(body.hint).toContain(
      `startDate=2020-01-01&endDate=${dayAfter('2020-01-01', MAX_TIME_SERIES_SNAPSHOTS - 1)}`,
    );
  });
});

describe("today's history", () => {
  let api: Handler;
  beforeAll(async () => {
    api = (await apiReading(await compileSnapshotTree(historyDir()))).api;
  });

  it('the full range (startDate=2000-01-01&endDate=2099-12-31) answers 200 with every snapshot', async () => {
    for (const dataset of DATASETS) {
      const response = await api(
        new Request(`${ORIGIN}/api/v1/${dataset.slug}/time-series?startDate=2000-01-01&endDate=2099-12-31`),
      );
      expect(response.status, dataset.slug).toBe(200);
      const body = await response.json();
      expect(Object.keys(body.timeSeries), dataset.slug).toEqual(body.availableDates);
    }
  });
});
