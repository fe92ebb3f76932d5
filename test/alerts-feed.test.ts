/**
 * `GET /api/v1/<dataset>/alerts` (JSON Feed 1.1) and `/feeds/<dataset>/alerts.atom` over the test
 * history on a real socket: an item each time the lowest open rate of one measure crosses the
 * threshold, either way, and each time it moves while past it, none while it is not; the rates
 * agree with /lowest; its errors are the documented body; it is cached like every data answer.
 */
import { parseAtomFeed } from 'feedsmith';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { EXPLORER, type ExplorerDefinition } from '../src/explorer/definitions.ts';
import { DATA_CACHE_CONTROL } from '../src/http/caching.ts';
import { alertsEndpointOf } from '../src/api/alerts.ts';
import { AlertsFeed } from '../src/schemas/alerts.ts';
import { bestRateOf } from '../src/explorer/best.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { createApiListener } from '../src/server/api-listener.ts';
import { DEFAULT_LIMITS } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import { rawServiceOver } from './support/core.ts';
import { ROOT, SITE } from './support/constants.ts';
import { documentOverHistory } from './support/openapi.ts';
import { EACH } from './support/datasets.ts';
import { historyDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';

let server: Listening;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
}, 60_000);
afterAll(() => server.close());

const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;
const alertsPath = (dataset: Dataset) => `/api/v1/${dataset.slug}/alerts`;
const get = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);
const feedOf = async (path: string) => {
  const response = await get(path);
  expect(response.status, path).toBe(200);
  return { response, feed: (await response.json()) as any };
};
/** The snapshot date an item is about: its id's last segment. */
const dateOf = (item: { id: string }) => item.id.slice(item.id.lastIndexOf('/') + 1);

/** The dataset with fixed mortgage terms: the one whose /lowest takes termInMonths. */
const termed = DATASETS.find((d) => d.filters.some((f) => f.name === 'termInMonths'))!;

describe('an alert feed over a history that crosses its threshold', () => {
  // The test history's lowest open 1-year rate: 6.69 from its first snapshot, 6.89 on 2024-04-23,
  // 6.85 on 2024-07-17, 6.69 again on 2024-07-18, then down in steps to 5.05.
  const path = `${alertsPath(termed)}?termInMonths=12&below=6.7`;

  it('has an item for each crossing, either way, and each move past the threshold, none while above it, newest first', async () => {
    const { feed } = await feedOf(path);
    expect(feed.items.map(dateOf)).toEqual([
      '2025-03-04',
      '2025-02-20',
      '2025-02-19',
      '2025-02-17',
      '2024-12-03',
      '2024-10-29',
      '2024-10-28',
      '2024-10-10',
      '2024-10-04',
      '2024-09-26',
      '2024-09-19',
      '2024-09-16',
      '2024-09-11',
      '2024-08-19',
      '2024-08-14',
      '2024-07-18',
      '2024-04-23',
      '2024-02-22',
    ]);
    const byDate = new Map(feed.items.map((item: any) => [dateOf(item), item]));
    const first = byDate.get('2024-02-22') as any;
    expect(first.title).toBe('Lowest 1-year fixed mortgage rate is below 6.7 %: 6.69 %');
    expect(first.content_text).toMatch(/Before: none\./);
    const out = byDate.get('2024-04-23') as any;
    expect(out.title).toBe('Lowest 1-year fixed mortgage rate is no longer below 6.7 %: 6.89 %');
    expect(out.content_text).toMatch(/Now: 6\.89 % from .+\nBefore: 6\.69 % from /);
    // 6.89 to 6.85 on 2024-07-17 moved the rate, but above the threshold: no item.
    const back = byDate.get('2024-07-18') as any;
    expect(back.title).toBe('Lowest 1-year fixed mortgage rate is below 6.7 %: 6.69 %');
    expect(back.content_text).toMatch(/Before: 6\.85 % from /);
    const moved = byDate.get('2024-08-14') as any;
    expect(moved.title).toBe('Lowest 1-year fixed mortgage rate moved down to 6.59 %, still below 6.7 %');
    expect(moved.content_text).toMatch(/Now: 6\.59 % from .+\(.+\)\.\nBefore: 6\.69 % from /);
    expect((byDate.get('2024-10-29') as any).title).toMatch(/moved up to 5\.65 %/);
  });

  it('agrees with /lowest: the newest item’s rate and lenders are what /lowest answers now', async () => {
    const { feed } = await feedOf(path);
    const lowest = (await (await get(`/api/v1/${termed.slug}/lowest?termInMonths=12`)).json()) as any;
    const [measure] = lowest.data;
    expect(feed.items[0].title).toContain(`${measure.rate} %`);
    for (const offer of measure.offers) expect(feed.items[0].content_text).toContain(offer.institutionName);
  });

  it('is a JSON Feed 1.1: application/feed+json, its items with an id, a title and text, a date and the comparison page', async () => {
    const { response, feed } = await feedOf(path);
    expect(response.headers.get('content-type')).toBe('application/feed+json; charset=utf-8');
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(AlertsFeed.parse(feed)).toEqual(feed);
    expect(feed.title).toBe('Lowest 1-year fixed mortgage rate below 6.7 %');
    expect(feed.feed_url).toBe(`${SITE}${alertsPath(termed)}?measure=12&below=6.7`);
    expect(new Set(feed.items.map((i: any) => i.id)).size).toBe(feed.items.length);
    for (const item of feed.items) {
      expect(item.id).toMatch(/^tag:[^,]+,2024:/);
      expect(item.title.length).toBeGreaterThan(0);
      expect(item.content_text.length).toBeGreaterThan(0);
      expect(new Date(item.date_published).toISOString()).toBe(item.date_published);
      expect(item.url).toBe(`${SITE}/rates/${definitionOf(termed).path}/1-year`);
    }
  });

  it('names the measure by termInMonths or by measure alike: the same body and ETag', async () => {
    const a = await get(path);
    const b = await get(`${alertsPath(termed)}?below=6.7&measure=12`);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    expect(await b.text()).toBe(await a.text());
  });

  it('is cached like every data answer: the data Cache-Control, an ETag, 304 to If-None-Match', async () => {
    const response = await get(path);
    expect(response.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const other = await get(`${alertsPath(termed)}?termInMonths=12&below=6`);
    expect(other.headers.get('etag')).not.toBe(etag);
    const again = await get(path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('is the same feed in Atom at /feeds/<dataset>/alerts.atom', async () => {
    const { feed } = await feedOf(path);
    const response = await get(`/feeds/${termed.slug}/alerts.atom?termInMonths=12&below=6.7`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
    const atom = parseAtomFeed(await response.text());
    const text = (t: unknown) => (typeof t === 'string' ? t : (t as { value: string }).value);
    expect(text(atom.title)).toBe(feed.title);
    expect(atom.entries?.map((e) => [e.id, text(e.title), e.links?.[0]?.href])).toEqual(
      feed.items.map((i: any) => [i.id, i.title, i.url]),
    );
    expect(atom.updated).toBe(feed.items[0].date_published);
  });

  it('for one lender, counts that lender’s offers alone', async () => {
    const { feed } = await feedOf(`${path}&institutionId=${termed.exampleEntityId}`);
    for (const item of feed.items) expect(item.id).toContain(`/${termed.exampleEntityId}/`);
  });
});

describe.each(EACH)('%s alerts', (_, dataset) => {
  const definition = definitionOf(dataset);
  const keys = definition.measures.map((m) => m.key);
  // The side its best rate is followed from (src/explorer/best.ts): below for a rate paid, above for one earned.
  const { side, paid } = bestRateOf(definition, keys[0]);
  const other = side === 'below' ? 'above' : 'below';
  /** A threshold every rate is past, and one none is. */
  const [past, never] = paid ? [1000, 0] : [0, 1000];

  it('answers a feed for each measure /lowest names, starting with a crossing when the history starts past it', async () => {
    const lowest = (await (await get(`/api/v1/${dataset.slug}/lowest`)).json()) as any;
    for (const { measure } of lowest.data) {
      const { side: own } = bestRateOf(definition, measure);
      const { feed } = await feedOf(`${alertsPath(dataset)}?measure=${measure}&${own}=${past}`);
      expect(feed.items.at(-1).title, measure).toMatch(new RegExp(` is ${own} ${past} %: `));
    }
  });

  it('a threshold no rate ever passed is a feed with no items, and still the JSON Feed 1.1 `items` array', async () => {
    const { response, feed } = await feedOf(`${alertsPath(dataset)}?measure=${keys[0]}&${side}=${never}`);
    expect(response.status).toBe(200);
    expect(feed.items).toEqual([]);
    expect(AlertsFeed.parse(feed)).toEqual(feed);
  });

  it('bad input is the documented error body: a bad threshold or selection is a 400 that says what is wrong', async () => {
    const measure = keys[0]!;
    const { param, prefix, notFound } = dataset.entity;
    const cases: [string, number, string, RegExp][] = [
      [`?measure=${measure}&${side}=six`, 400, 'invalid_request', new RegExp(`${side} must be a rate in percent`)],
      [`?measure=${measure}&${side}=-1`, 400, 'invalid_request', new RegExp(`${side} must be a rate in percent`)],
      [`?measure=${measure}&${side}=1e3`, 400, 'invalid_request', new RegExp(`${side} must be a rate in percent`)],
      [`?measure=${measure}`, 400, 'invalid_request', new RegExp(`Give a threshold: ${side}=`)],
      [`?measure=${measure}&below=6&above=5`, 400, 'invalid_request', /not both/],
      [
        `?measure=${measure}&${other}=5`,
        400,
        'invalid_request',
        new RegExp(`${other} applies only to a rate ${paid ? 'earned' : 'paid'}.*use ${side}, such as ${side}=6`),
      ],
      [`?${side}=6`, 400, 'invalid_request', new RegExp(`measure= one of ${keys.join(', ')}`)],
      [`?measure=no-such-measure&${side}=6`, 400, 'invalid_request', /no measure "no-such-measure"/],
      [`?measure=${measure}&${side}=6&colour=blue`, 400, 'invalid_request', /does not use "colour"/],
      [`?measure=${measure}&${side}=6&${param}=${prefix}:no-such-lender`, 404, notFound, /ever listed/],
    ];
    for (const [query, status, error, hint] of cases) {
      const response = await get(`${alertsPath(dataset)}${query}`);
      const body = (await response.json()) as any;
      expect(response.status, query).toBe(status);
      expect(ErrorBody.parse(body), query).toEqual(body);
      expect(body.error, query).toBe(error);
      expect(body.hint, query).toMatch(hint);
    }
  });
});

describe("npm start's server", () => {
  it('sends /feeds to the API listener: the Atom feed, and an unknown feed the API’s 404, never a page', async () => {
    const node = createNodeServer({
      api: createApiListener(await rawServiceOver(historyDir()), { stampRequestIds: true, site: SITE }),
      pages: async (_req, res) => void res.end('page'),
      limits: DEFAULT_LIMITS,
      site: SITE,
    });
    await new Promise<void>((done) => node.listen(0, '127.0.0.1', done));
    const base = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    try {
      const feed = await fetch(`${base}/feeds/${termed.slug}/alerts.atom?termInMonths=12&below=6`);
      expect(feed.status).toBe(200);
      expect(feed.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
      expect(await feed.text()).toMatch(/^<\?xml[\s\S]*<feed /);
      const unknown = await fetch(`${base}/feeds/${termed.slug}/nope.atom`);
      expect(unknown.status).toBe(404);
      expect(ErrorBody.parse(await unknown.json()).error).toBe('not_found');
      expect((await fetch(`${base}/rates`)).status).toBe(200);
    } finally {
      node.closeAllConnections();
      node.close();
    }
  });
});

describe('the notifications page', () => {
  it('gives working feed addresses, and item titles as the feed writes them', async () => {
    const text = await readFile(join(ROOT, 'content/docs/notifications.md'), 'utf8');
    const [json, atom] = [...text.matchAll(/`\{\{site\}\}(\/(?:api\/v1|feeds)\/[^`]*alerts[^`]*)`/g)].map((m) => m[1]!);
    const { feed } = await feedOf(json!);
    const response = await get(atom!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
    const titles = feed.items.map((i: any) => i.title);
    const shown = [...text.matchAll(/^`(Lowest [^`]+)`/gm)].map((m) => m[1]);
    expect(shown.length).toBe(2);
    for (const title of shown) expect(titles).toContain(title);
  });
});

describe('the OpenAPI document', () => {
  it('documents each alerts feed with its parameters, its JSON Feed schema and real examples', async () => {
    const { doc, ajv, service } = await documentOverHistory();
    for (const d of DATASETS) {
      const op = doc.paths[alertsPath(d)].get;
      expect(op.parameters.map((p: any) => p.name)).toEqual(Object.keys(alertsEndpointOf(d).query.shape));
      for (const [status, type] of [
        ['200', 'application/feed+json'],
        ['400', 'application/json'],
      ] as const) {
        const media = op.responses[status].content[type];
        const found = Object.values(media.examples ?? {}) as any[];
        expect(found.length, `${d.slug} ${status}`).toBeGreaterThan(0);
        const valid = ajv.compile(media.schema);
        for (const example of found) {
          expect(valid(example.value), `${d.slug} ${status}: ${ajv.errorsText(valid.errors)}`).toBe(true);
          const answer = await service(new Request(`${SITE}${example.summary.replace(/^GET /, '')}`));
          expect(answer.status).toBe(Number(status));
          expect(await answer.json()).toEqual(example.value);
        }
      }
      const [feed] = Object.values(op.responses['200'].content['application/feed+json'].examples) as any[];
      expect(feed.value.items.length, d.slug).toBeGreaterThan(0);
    }
  }, 60_000);
});
