import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { DATASETS, type DatasetSlug, filterEntities, filtersOf, itemsOf } from '../src/datasets.ts';
import { CreditCardIssuer } from '../src/schemas/rates.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { NOW, PLAN_FIELDS } from './support/constants.ts';
import { datasetOfSchema, EACH, FILTERED } from './support/datasets.ts';
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

describe.each(EACH)('%s ids of the other kind', (slug, dataset) => {
  it(`does not accept the other kind's prefix on the ${dataset.entity.kind} detail path`, async () => {
    const other = dataset.entity.prefix === 'issuer' ? 'institution' : 'issuer';
    const bare = dataset.exampleEntityId.slice(dataset.exampleEntityId.indexOf(':') + 1);
    const { response, body } = await getJson(api, `/api/v1/${slug}/${other}:${bare}`);
    expect(response.status).toBe(404);
    expect(body.error).toBe(dataset.entity.notFound);
    expect(body.message).toBe(`${dataset.entity.label} not found`);
  });
});

describe('card issuers', () => {
  const cards = datasetOfSchema(CreditCardIssuer);

  it('serves issuers with plans in the new field names, duplicates merged into one issuer', async () => {
    const { body } = await getJson(api, `/api/v1/${cards.slug}/${cards.exampleEntityId}`);
    expect(body.data).toHaveLength(1);
    const plans = body.data[0].plans;
    for (const plan of plans) expect(Object.keys(plan)).toEqual(PLAN_FIELDS);
    expect(plans).toEqual(newest[cards.slug].data.find((i) => i.id === cards.exampleEntityId)!.plans);
    const planIds = plans.map((p: { id: string }) => p.id);
    expect(new Set(planIds).size).toBe(planIds.length);
  });
});

describe.each(FILTERED.map(({ dataset, filter }) => [`${dataset.slug} ${filter.name}`, dataset, filter] as const))(
  '%s',
  (_, dataset, filter) => {
    const slug = dataset.slug;
    const values = (value: string) => ({ [filter.name]: value });

    it('keeps only the items the filter keeps, drops items left empty and keeps every entity', async () => {
      const { response, body } = await getJson(api, `/api/v1/${slug}?${filter.name}=${filter.example}`);
      expect(response.status).toBe(200);
      expect(body.data.map((i: any) => i.id)).toEqual(newest[slug].data.map((i: any) => i.id));
      expect(body.data.flatMap(itemsOf).length).toBeGreaterThan(0);
      expect(body.data).toEqual(filterEntities(dataset, newest[slug].data, values(filter.example)));
    });

    it('filters the detail endpoint too', async () => {
      const id = dataset.exampleEntityId;
      const { body } = await getJson(api, `/api/v1/${slug}/${id}?${filter.name}=${filter.example}`);
      expect(body.data).toHaveLength(1);
      const entity = newest[slug].data.filter((e) => e.id === id);
      expect(body.data).toEqual(filterEntities(dataset, entity, values(filter.example)));
    });

    it('is not a parameter of the datasets that do not declare it', async () => {
      for (const other of DATASETS.filter((d) => !filtersOf(d, 'list').some((f) => f.name === filter.name))) {
        const { response, body } = await getJson(api, `/api/v1/${other.slug}?${filter.name}=${filter.example}`);
        expect(response.status, other.slug).toBe(400);
        expect(body.error).toBe('invalid_request');
      }
    });

    if (!filter.wholeNumber) return;

    it('gives empty item arrays for a whole number no item has', async () => {
      const none = Array.from({ length: 999 }, (_, i) => String(i + 1)).find(
        (v) =>
          filter.schema.safeParse(v).success &&
          filterEntities(dataset, newest[slug].data, values(v)).every((e) => itemsOf(e).length === 0),
      )!;
      expect(none).toBeDefined();
      const { response, body } = await getJson(api, `/api/v1/${slug}?${filter.name}=${none}`);
      expect(response.status).toBe(200);
      expect(body.data.length).toBe(newest[slug].data.length);
      expect(body.data.every((i: any) => itemsOf(i).length === 0)).toBe(true);
    });

    it.each(['abc', '12.5', '-12', '', '1e2', '12 '])(
      'answers a value of %j, not a whole number, with 400 and no x-request-id',
      async (value) => {
        const response = await get(api, `/api/v1/${slug}?${filter.name}=${encodeURIComponent(value)}`);
        expect(response.status).toBe(400);
        const body = await response.json();
        expect(ErrorBody.parse(body)).toEqual(body);
        expect(body.error).toBe('invalid_request');
        expect(response.headers.get('x-request-id')).toBeNull();
      },
    );
  },
);
