import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import {
  DATASETS,
  type Dataset,
  type DatasetSlug,
  filterEntities,
  filtersOf,
  type ItemFilter,
  itemsOf,
} from '../src/datasets.ts';
import { type EndpointKind, endpointsOf } from '../src/endpoints.ts';
import { lowestSchemaOf } from '../src/explorer/lowest.ts';
import { CreditCardIssuer } from '../src/schemas/rates.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { NOW, PLAN_FIELDS } from './support/constants.ts';
import { datasetOfSchema, EACH, FILTERS } from './support/datasets.ts';
import { historyDir, newestDates, newestSnapshots, type SnapshotFile } from './support/history.ts';

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

/** Every endpoint a filter may be declared for (ItemFilter's `only`). */
const KINDS: readonly EndpointKind[] = ['list', 'detail', 'timeSeries', 'lowest'];

/**
 * What the `kind` endpoint of `dataset` does with a parameter `name`, as the table declares it: the
 * dataset's own filter of that name is taken where the filter's `only` says (everywhere without
 * one); else the endpoint ignores it if it lists it as ignored, and refuses it (400) otherwise.
 */
function declared(dataset: Dataset, kind: EndpointKind, name: string): 'takes' | 'ignores' | 'refuses' {
  const own = (dataset.filters as readonly ItemFilter[]).find((f) => f.name === name);
  if (own && (own.only?.includes(kind) ?? true)) return 'takes';
  return endpointsOf(dataset)[kind].ignoredQuery.includes(name) ? 'ignores' : 'refuses';
}

/** A request of the `kind` endpoint with `values` in its query: the detail of the example entity, the time series on the newest date. */
function requestOf(dataset: Dataset, kind: EndpointKind, values: Record<string, string>): string {
  const endpoint = endpointsOf(dataset)[kind];
  const path = endpoint.path.replace(`{${dataset.entity.param}}`, dataset.exampleEntityId);
  const date: Record<string, string> = kind === 'timeSeries' ? { date: newestDates()[dataset.slug] } : {};
  const query = new URLSearchParams({ ...date, ...values }).toString();
  return query ? `${path}?${query}` : path;
}

describe.each(FILTERS.map(({ dataset, filter }) => [`${dataset.slug} ${filter.name}`, dataset, filter] as const))(
  '%s',
  (_, dataset, filter) => {
    const slug = dataset.slug;
    const values = (value: string) => ({ [filter.name]: value });

    it('is taken by each endpoint exactly where its `only` says, ignored where declared, and refused elsewhere, of every dataset', async () => {
      const seen = { takes: 0, ignores: 0, refuses: 0 };
      for (const other of DATASETS)
        for (const kind of KINDS) {
          const what = `${other.slug} ${kind}`;
          const expected = declared(other, kind, filter.name);
          seen[expected]++;
          const { response, body } = await getJson(api, requestOf(other, kind, values(filter.example)));
          if (expected === 'refuses') {
            expect(response.status, what).toBe(400);
            expect(ErrorBody.parse(body), what).toEqual(body);
            expect(body.error, what).toBe('invalid_request');
            expect(body.message, what).toBe('Invalid request parameters');
            expect(body.hint, what).toContain(`This endpoint does not use "${filter.name}".`);
            expect(body.documentationUrl, what).toMatch(/\/docs\/errors#invalid_request$/);
            continue;
          }
          expect(response.status, what).toBe(200);
          const unfiltered = (await getJson(api, requestOf(other, kind, {}))).body;
          if (expected === 'ignores') {
            expect(body, what).toEqual(unfiltered);
            continue;
          }
          const own = newest[other.slug].data.filter((e) => kind !== 'detail' || e.id === other.exampleEntityId);
          const kept = filterEntities(other, own, values(filter.example));
          if (kind === 'list' || kind === 'detail') expect(body.data, what).toEqual(kept);
          if (kind === 'timeSeries') expect(body.timeSeries[newestDates()[other.slug]].data, what).toEqual(kept);
          if (kind === 'lowest') {
            expect(lowestSchemaOf(other).parse(body), what).toEqual(body);
            expect(body.data, what).not.toEqual(unfiltered.data);
          }
        }
      // Its own dataset takes it somewhere.
      expect(KINDS.filter((kind) => declared(dataset, kind, filter.name) === 'takes').length).toBeGreaterThan(0);
      expect(seen.takes + seen.ignores + seen.refuses).toBe(DATASETS.length * KINDS.length);
    });

    it.runIf(filtersOf(dataset, 'list').includes(filter))(
      'keeps only the items the filter keeps on the list, drops items left empty and keeps every entity',
      async () => {
        const { response, body } = await getJson(api, `/api/v1/${slug}?${filter.name}=${filter.example}`);
        expect(response.status).toBe(200);
        expect(body.data.map((i: any) => i.id)).toEqual(newest[slug].data.map((i: any) => i.id));
        expect(body.data.flatMap(itemsOf).length).toBeGreaterThan(0);
        expect(body.data).toEqual(filterEntities(dataset, newest[slug].data, values(filter.example)));
      },
    );

    it.runIf(filtersOf(dataset, 'detail').includes(filter))('filters the detail endpoint the same way', async () => {
      const id = dataset.exampleEntityId;
      const { body } = await getJson(api, `/api/v1/${slug}/${id}?${filter.name}=${filter.example}`);
      expect(body.data).toHaveLength(1);
      expect(body.data.flatMap(itemsOf).length).toBeGreaterThan(0);
      const entity = newest[slug].data.filter((e) => e.id === id);
      expect(body.data).toEqual(filterEntities(dataset, entity, values(filter.example)));
    });

    // The value rules, on the list, of a filter taking whole numbers.
    if (!filter.wholeNumber || !filtersOf(dataset, 'list').includes(filter)) return;

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
