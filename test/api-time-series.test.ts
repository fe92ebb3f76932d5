import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { DATASETS } from '../src/datasets.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { SITE } from './support/constants.ts';
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

  it('date only: exactly that snapshot', async () => {
    const date = dates[slug]![3]!;
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
    const [start, , end] = [dates[slug]![2]!, undefined, dates[slug]![6]!];
    const { response, body } = await getJson(api, `${path}?startDate=${start}&endDate=${end}`);
    expect(response.status).toBe(200);
    expect(Object.keys(body.timeSeries)).toEqual(dates[slug]!.slice(2, 7));
    expect(body.timeSeries[end]).toEqual(await snapshot(slug, end));
  });

  it('overlapping ranges, each asked twice: every entry is its snapshot, whether it opens the range or follows another', async () => {
    const all = dates[slug]!;
    for (const [from, to] of [
      [2, 6],
      [4, 8],
      [0, 8],
      [4, 8],
      [6, 6],
    ] as const) {
      const [start, end] = [all[from]!, all[Math.min(to, all.length - 1)]!];
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
  it('credit cards ignore institutionId and return every issuer', async () => {
    const date = dates['credit-card-rates']!.at(-1)!;
    const plain = await getJson(api, `/api/v1/credit-card-rates/time-series?date=${date}`);
    const withInstitution = await getJson(
      api,
      `/api/v1/credit-card-rates/time-series?date=${date}&institutionId=institution:nobody`,
    );
    expect(withInstitution.response.status).toBe(200);
    expect(withInstitution.body.timeSeries).toEqual(plain.body.timeSeries);
    expect(plain.body.timeSeries[date].data.length).toBeGreaterThan(10);
  });

  it('only the credit-card series takes issuerId', async () => {
    await expectError(
      '/api/v1/mortgage-rates/time-series?date=2025-03-05&issuerId=issuer:amex',
      400,
      'invalid_request',
      'Invalid request parameters',
    );
  });

  it('the mortgage series filters by termInMonths in every snapshot', async () => {
    const { body } = await getJson(
      api,
      '/api/v1/mortgage-rates/time-series?startDate=2025-03-01&endDate=2025-03-05&termInMonths=24',
    );
    const snapshots = Object.values(body.timeSeries) as any[];
    expect(snapshots.length).toBeGreaterThan(1);
    for (const s of snapshots) {
      const rates = s.data.flatMap((i: any) => i.products.flatMap((p: any) => p.rates));
      expect(rates.length).toBeGreaterThan(0);
      expect(rates.every((r: any) => r.termInMonths === 24)).toBe(true);
    }
  });

  it('the personal loan series has no termInMonths parameter', async () => {
    await expectError(
      '/api/v1/personal-loan-rates/time-series?date=2025-02-04&termInMonths=12',
      400,
      'invalid_request',
      'Invalid request parameters',
    );
  });

  it('over a range, an institution present on some dates keeps every date, empty where it is absent', async () => {
    const mortgageDates = dates['mortgage-rates']!;
    // Find an institution missing from the first snapshot but present in the newest.
    const first = new Set((await snapshot('mortgage-rates', mortgageDates[0]!)).data.map((i: any) => i.id));
    const latest = (await snapshot('mortgage-rates', mortgageDates.at(-1)!)).data.map((i: any) => i.id);
    const newcomer = latest.find((id: string) => !first.has(id));
    if (newcomer === undefined) return expect.fail('history has no institution that appears later');
    const { response, body } = await getJson(
      api,
      `/api/v1/mortgage-rates/time-series?startDate=${mortgageDates[0]}&endDate=${mortgageDates.at(-1)}&institutionId=${newcomer}`,
    );
    expect(response.status).toBe(200);
    expect(Object.keys(body.timeSeries)).toEqual(mortgageDates);
    expect(body.timeSeries[mortgageDates[0]!].data).toEqual([]);
    expect(body.timeSeries[mortgageDates.at(-1)!].data.map((i: any) => i.id)).toEqual([newcomer]);
  });
});
