import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { NOW, PLAN_FIELDS } from './support/constants.ts';
import { historyDir, newestSnapshots, type SnapshotFile } from './support/history.ts';

let api: Handler;
/** The newest snapshot file of each dataset, read straight from disk as the oracle. */
let newest: Record<DatasetSlug, SnapshotFile>;

beforeAll(async () => {
  api = await apiOver(historyDir());
  newest = await newestSnapshots();
});

describe.each(DATASETS.map((d) => [d.slug, d] as const))('%s list and detail', (slug, dataset) => {
  it('lists every institution of the newest snapshot in the strict envelope, with terms of use', async () => {
    const { response, body } = await getJson(api, `/api/v1/${slug}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(dataset.schemas.envelope.parse(body)).toEqual(body);
    expect(Object.keys(body)).toEqual(['type', 'data', 'lastUpdated', 'termsOfUse', 'timestamp']);
    expect(body.type).toBe(dataset.type);
    expect(body.data).toEqual(newest[slug].data);
    expect(body.lastUpdated).toBe(newest[slug].lastUpdated);
    expect(body.termsOfUse).toBe(TERMS_OF_USE);
    expect(body.termsOfUse).toMatch(/may be incorrect/);
    expect(body.timestamp).toBe(NOW.toISOString());
  });

  it('ids in the response are unique', async () => {
    const { body } = await getJson(api, `/api/v1/${slug}`);
    const ids = JSON.stringify(body).match(/"id":"[^"]+"/g)!;
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('returns one institution or issuer by id, matched case-insensitively', async () => {
    const first = newest[slug].data[0];
    for (const id of [first.id, first.id.toUpperCase(), encodeURIComponent(first.id), first.id.split(':')[1]]) {
      const { response, body } = await getJson(api, `/api/v1/${slug}/${id}`);
      expect(response.status, id).toBe(200);
      expect(dataset.schemas.envelope.parse(body)).toEqual(body);
      expect(body.data).toEqual([first]);
    }
  });

  it(`answers an unknown id with 404 ${dataset.entity.notFound}`, async () => {
    const { response, body } = await getJson(api, `/api/v1/${slug}/${dataset.entity.prefix}:no-such-lender`);
    expect(response.status).toBe(404);
    expect(ErrorBody.parse(body)).toEqual(body);
    expect(body.error).toBe(dataset.entity.notFound);
    expect(body.message).toBe(`${dataset.entity.label} not found`);
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses a query parameter the endpoint does not use', async () => {
    const { response, body } = await getJson(api, `/api/v1/${slug}?colour=blue`);
    expect(response.status).toBe(400);
    expect(body).toMatchObject({ code: 400, error: 'invalid_request', message: 'Invalid request parameters' });
    expect(body.hint).toContain('colour');
  });
});

describe('credit cards', () => {
  it('serves issuers with plans in the new field names, duplicates merged into one issuer', async () => {
    const { body } = await getJson(api, '/api/v1/credit-card-rates/issuer:amex');
    expect(body.data).toHaveLength(1);
    const plan = body.data[0].plans[0];
    expect(Object.keys(plan)).toEqual(PLAN_FIELDS);
    expect(plan.interestFreeDays).toBe(55);
    const planIds = body.data[0].plans.map((p: { id: string }) => p.id);
    expect(planIds).toContain('plan:amex:airpoints-card');
    expect(planIds).toContain('plan:amex:airpoints-card-2');
  });

  it('does not accept an institution: id on the issuer detail path', async () => {
    const { response, body } = await getJson(api, '/api/v1/credit-card-rates/institution:amex');
    expect(response.status).toBe(404);
    expect(body.error).toBe('issuer_not_found');
    expect(body.message).toBe('Issuer not found');
  });
});

describe('mortgage termInMonths', () => {
  const allRates = (body: any) => body.data.flatMap((i: any) => i.products.flatMap((p: any) => p.rates));

  it('keeps only fixed rates of that term, drops products left empty and keeps every institution', async () => {
    const { response, body } = await getJson(api, '/api/v1/mortgage-rates?termInMonths=12');
    expect(response.status).toBe(200);
    const rates = allRates(body);
    expect(rates.length).toBeGreaterThan(0);
    expect(rates.every((r: any) => r.termInMonths === 12 && r.term === '1 year')).toBe(true);
    expect(body.data.map((i: any) => i.id)).toEqual(newest['mortgage-rates'].data.map((i: any) => i.id));
    expect(body.data.flatMap((i: any) => i.products).every((p: any) => p.rates.length > 0)).toBe(true);
    const expected = newest['mortgage-rates'].data
      .flatMap((i: any) => i.products.flatMap((p: any) => p.rates))
      .filter((r: any) => r.termInMonths === 12);
    expect(rates).toEqual(expected);
  });

  it('gives empty product arrays for a term the data does not have', async () => {
    const { response, body } = await getJson(api, '/api/v1/mortgage-rates?termInMonths=7');
    expect(response.status).toBe(200);
    expect(body.data.length).toBe(newest['mortgage-rates'].data.length);
    expect(body.data.every((i: any) => Array.isArray(i.products) && i.products.length === 0)).toBe(true);
  });

  it('filters the detail endpoint too', async () => {
    const { body } = await getJson(api, '/api/v1/mortgage-rates/institution:anz?termInMonths=18');
    expect(body.data).toHaveLength(1);
    expect(allRates(body).map((r: any) => r.id)).toEqual(['rate:anz:standard:18-months', 'rate:anz:special:18-months']);
  });

  it.each(['abc', '12.5', '-12', '', '1e2', '12 '])(
    'answers termInMonths=%j with 400 and no x-request-id',
    async (value) => {
      const response = await get(api, `/api/v1/mortgage-rates?termInMonths=${encodeURIComponent(value)}`);
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(ErrorBody.parse(body)).toEqual(body);
      expect(body.error).toBe('invalid_request');
      expect(response.headers.get('x-request-id')).toBeNull();
    },
  );

  it('is not a parameter of the other datasets', async () => {
    for (const slug of ['personal-loan-rates', 'car-loan-rates', 'credit-card-rates']) {
      const { response, body } = await getJson(api, `/api/v1/${slug}?termInMonths=12`);
      expect(response.status, slug).toBe(400);
      expect(body.error).toBe('invalid_request');
    }
  });
});
