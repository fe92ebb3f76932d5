import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { DATASETS, filterEntities, filtersOf, itemsOf } from '../src/datasets.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { SITE } from './support/constants.ts';
import { EACH, filtersAt, IGNORING } from './support/datasets.ts';
import { historyDir } from './support/history.ts';

let api: Handler;
const dates: Record<string, string[]> = {};
const snapshot = async (slug: string, date: string) =>
  JSON.parse(await readFile(join(historyDir(), slug, `${date}.json`), 'utf8'));

beforeAll(async () => {
  api = await apiOver(historyDir());
  for (const d of DATASETS)
    dates[d.slug] = (await readdir(join(historyDir(), d.slug))).map((f) => f.slice(0, 10)).sort();
});

async function expectError(path: string, status: number, error: string, message: string, requestId = true) {
  const response = await get(api, path);
  const body = await response.json();
  expect(response.status, path).toBe(status);
  expect(ErrorBody.parse(body)).toEqual(body);
  expect(body).toMatchObject({ code: status, error, message });
  expect(body.documentationUrl).toBe(`${SITE}/docs/errors#${error}`);
  expect(response.headers.get('x-request-id') !== null, `x-request-id on ${path}`).toBe(requestId);
  return body;
}

describe.each(DATASETS.map((d) => [d.slug, d] as const))('%s time series', (slug, dataset) => {
  const path = `/api/v1/${slug}/time-series`;

  it('without dates: 200, empty timeSeries, the message, and every available date oldest first', async () => {
    const { response, body } = await getJson(api, path);
    expect(response.status).toBe(200);
    expect(dataset.schemas.timeSeries.parse(body)).toEqual(body);
    expect(body.type).toBe(`${dataset.type}TimeSeries`);
    expect(body.timeSeries).toEqual({});
    expect(body.availableDates).toEqual(dates[slug]);
    expect(body.message).toMatch(/date/);
    expect(body.termsOfUse).toMatch(/may be incorrect/);
  });

  // The history has at least LEAST_HISTORY (3) snapshots: a first, a last and one between.
  it('date only: exactly that snapshot', async () => {
    const date = dates[slug]![1]!;
    const { response, body } = await getJson(api, `${path}?date=${date}`);
    expect(response.status).toBe(200);
    expect(dataset.schemas.timeSeries.parse(body)).toEqual(body);
    expect(body.message).toBeUndefined();
    expect(Object.keys(body.timeSeries)).toEqual([date]);
    expect(body.timeSeries[date]).toEqual(await snapshot(slug, date));
  });

  it('date with no snapshot: 404 no_data', async () => {
    await expectError(`${path}?date=2023-01-01`, 404, 'no_data', 'No data available for date: 2023-01-01');
  });

  it('startDate and endDate: every snapshot of the inclusive range', async () => {
    const all = dates[slug]!;
    for (const [from, to] of [
      [1, all.length - 1],
      [0, all.length - 2],
    ] as const) {
      const [start, end] = [all[from]!, all[to]!];
      const { response, body } = await getJson(api, `${path}?startDate=${start}&endDate=${end}`);
      expect(response.status).toBe(200);
      expect(Object.keys(body.timeSeries)).toEqual(all.slice(from, to + 1));
      expect(body.timeSeries[end]).toEqual(await snapshot(slug, end));
    }
  });

  it('overlapping ranges, each asked twice: every entry is its snapshot, whether it opens the range or follows another', async () => {
    const all = dates[slug]!;
    const [mid, last] = [Math.floor(all.length / 2), all.length - 1];
    for (const [from, to] of [
      [0, mid],
      [mid, last],
      [0, last],
      [mid, last],
      [last, last],
    ] as const) {
      const [start, end] = [all[from]!, all[to]!];
      const { response, body } = await getJson(api, `${path}?startDate=${start}&endDate=${end}`);
      expect(response.status).toBe(200);
      expect(dataset.schemas.timeSeries.parse(body)).toEqual(body);
      const expected = all.filter((d) => d >= start && d <= end);
      expect(Object.keys(body.timeSeries)).toEqual(expected);
      for (const date of expected) expect(body.timeSeries[date], date).toEqual(await snapshot(slug, date));
    }
  });

  it('a range with no snapshot: 404 no_data', async () => {
    await expectError(
      `${path}?startDate=2020-01-01&endDate=2020-12-31`,
      404,
      'no_data',
      'No data available between 2020-01-01 and 2020-12-31',
    );
  });

  it.each([
    ['startDate without endDate', '?startDate=2024-05-01'],
    ['endDate without startDate', '?endDate=2024-05-01'],
    ['date with startDate', '?date=2024-05-01&startDate=2024-05-01'],
    ['date with endDate', '?date=2024-05-01&endDate=2024-05-02'],
  ])('%s: 400 invalid_request', async (_, query) => {
    await expectError(`${path}${query}`, 400, 'invalid_request', 'Invalid request parameters');
  });

  it('startDate after endDate: 400 with its own message', async () => {
    await expectError(
      `${path}?startDate=2024-06-01&endDate=2024-05-01`,
      400,
      'invalid_request',
      'Start date cannot be after end date',
    );
  });

  it.each(['2024-5-01', '20240501', 'yesterday', '2024-02-30', '2024-13-01'])(
    'a date not in the format (%s): 400, no x-request-id',
    async (date) => {
      await expectError(`${path}?date=${date}`, 400, 'invalid_request', 'Invalid request parameters', false);
      await expectError(
        `${path}?startDate=${date}&endDate=2025-01-01`,
        400,
        'invalid_request',
        'Invalid request parameters',
        false,
      );
    },
  );

  it(`filters by ${dataset.entity.param}, case-insensitively`, async () => {
    const date = dates[slug]!.at(-1)!;
    const entity = (await snapshot(slug, date)).data[1];
    const { body } = await getJson(api, `${path}?date=${date}&${dataset.entity.param}=${entity.id.toUpperCase()}`);
    expect(body.timeSeries[date].data).toEqual([entity]);
  });

  it(`an ${dataset.entity.param} absent on the date: 404 ${dataset.entity.notFound}`, async () => {
    const date = dates[slug]![0]!;
    await expectError(
      `${path}?date=${date}&${dataset.entity.param}=${dataset.entity.prefix}:nobody`,
      404,
      dataset.entity.notFound,
      `${dataset.entity.label} not found for date: ${date}`,
    );
  });

  it(`an ${dataset.entity.param} absent from a whole range: 404 ${dataset.entity.notFound}`, async () => {
    await expectError(
      `${path}?startDate=2024-01-01&endDate=2025-12-31&${dataset.entity.param}=${dataset.entity.prefix}:nobody`,
      404,
      dataset.entity.notFound,
      `${dataset.entity.label} not found for date range: 2024-01-01 to 2025-12-31`,
    );
  });

  it('refuses a parameter the endpoint does not use', async () => {
    await expectError(`${path}?interval=weekly`, 400, 'invalid_request', 'Invalid request parameters');
  });
});

describe('dataset differences', () => {
  const newestOf = (slug: string) => dates[slug]!.at(-1)!;

  it.each(IGNORING.flatMap((d) => d.ignoredTimeSeriesParams.map((param) => [d.slug, param, d] as const)))(
    '%s ignores %s and returns every entity',
    async (slug, param, dataset) => {
      const date = newestOf(slug);
      const plain = await getJson(api, `/api/v1/${slug}/time-series?date=${date}`);
      const other = dataset.entity.prefix === 'issuer' ? 'institution' : 'issuer';
      const ignored = await getJson(api, `/api/v1/${slug}/time-series?date=${date}&${param}=${other}:nobody`);
      expect(ignored.response.status).toBe(200);
      expect(ignored.body.timeSeries).toEqual(plain.body.timeSeries);
      expect(plain.body.timeSeries[date].data.length).toBeGreaterThan(0);
    },
  );

  it.each(EACH)('%s takes its own entity parameter only: the others’ are mistakes', async (slug, dataset) => {
    const others = [...new Set(DATASETS.map((d) => d.entity.param))].filter(
      (p) => p !== dataset.entity.param && !(dataset.ignoredTimeSeriesParams as readonly string[]).includes(p),
    );
    for (const param of others)
      await expectError(
        `/api/v1/${slug}/time-series?date=${newestOf(slug)}&${param}=x:${param}`,
        400,
        'invalid_request',
        'Invalid request parameters',
      );
  });

  it.each(filtersAt('timeSeries').map(({ dataset, filter }) => [dataset.slug, filter.name, dataset, filter] as const))(
    'the %s series filters by %s in every snapshot',
    async (slug, name, dataset, filter) => {
      const range = dates[slug]!.slice(-3);
      const { body } = await getJson(
        api,
        `/api/v1/${slug}/time-series?startDate=${range[0]}&endDate=${range.at(-1)}&${name}=${filter.example}`,
      );
      expect(Object.keys(body.timeSeries)).toEqual(range);
      for (const date of range) {
        const expected = filterEntities(dataset, (await snapshot(slug, date)).data, { [name]: filter.example });
        expect(expected.flatMap(itemsOf).length, date).toBeGreaterThan(0);
        expect(body.timeSeries[date].data, date).toEqual(expected);
      }
      // The datasets that do not declare it refuse it.
      for (const other of DATASETS.filter((d) => !filtersOf(d, 'timeSeries').some((f) => f.name === name)))
        await expectError(
          `/api/v1/${other.slug}/time-series?date=${newestOf(other.slug)}&${name}=${filter.example}`,
          400,
          'invalid_request',
          'Invalid request parameters',
        );
    },
  );

  /** Each dataset's entities of the newest snapshot that some earlier snapshot lacks. */
  const newcomers = async (slug: string) => {
    const listed = await Promise.all(
      dates[slug]!.map(async (date) => new Set((await snapshot(slug, date)).data.map((i: any) => i.id))),
    );
    return [...listed.at(-1)!].filter((id) => listed.some((ids) => !ids.has(id)));
  };

  it('some dataset lists an entity on some dates only', async () => {
    const found = await Promise.all(DATASETS.map((d) => newcomers(d.slug)));
    expect(found.flat().length).toBeGreaterThan(0);
  });

  it.each(EACH)(
    '%s over a range: an entity present on some dates keeps every date, empty where it is absent',
    async (slug, dataset) => {
      const [id] = await newcomers(slug);
      if (id === undefined) return;
      const all = dates[slug]!;
      const { response, body } = await getJson(
        api,
        `/api/v1/${slug}/time-series?startDate=${all[0]}&endDate=${all.at(-1)}&${dataset.entity.param}=${id}`,
      );
      expect(response.status).toBe(200);
      expect(Object.keys(body.timeSeries)).toEqual(all);
      for (const date of all) {
        const present = (await snapshot(slug, date)).data.some((i: any) => i.id === id);
        expect(
          body.timeSeries[date].data.map((i: any) => i.id),
          date,
        ).toEqual(present ? [id] : []);
      }
    },
  );
});
