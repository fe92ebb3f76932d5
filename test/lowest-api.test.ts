/**
 * `GET /api/v1/<dataset>/lowest` and its MCP twin, over the test history on a real socket: it
 * answers what the explorer's pages show (their best cards, computed by src/explorer/pages.ts from
 * the same history), with the list's filters and one lender; its errors are the documented body;
 * it has the caching and ETags of every data answer; its 200s satisfy its OpenAPI schema; and the
 * twin tool's result is the REST body, listed after the tools that were there before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset, itemsOf } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { EXPLORER, type ExplorerDefinition, itemName } from '../src/explorer/definitions.ts';
import { bestCards, datasetViews, type DatasetView, type OfferRef } from '../src/explorer/pages.ts';
import { DATA_CACHE_CONTROL } from '../src/http/caching.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { rawServiceOver } from './support/core.ts';
import { SITE } from './support/constants.ts';
import { documentOverHistory } from './support/openapi.ts';
import { EACH } from './support/datasets.ts';
import { historyDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { modern, sendMcp } from './support/mcp.ts';

let server: Listening;
let views: DatasetView[];

beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
  views = datasetViews(await compileSnapshotTree(historyDir()));
}, 60_000);
afterAll(() => server.close());

const lowestPath = (dataset: Dataset) => `/api/v1/${dataset.slug}/lowest`;
const fetchJson = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server.url}${path}`, init);
  return { response, body: (await response.json()) as any };
};
const viewOf = (dataset: Dataset) => views.find((v) => v.dataset === dataset)!;

/**
 * An offer as the explorer's cards name it, from the answer's names (whatever the dataset calls
 * them): a grade ladder by its label, an item by its name on the pages (a second listing of one
 * name marked, src/explorer/definitions.ts itemName), found in the newest snapshot by its id.
 */
function refOfAnswer(dataset: Dataset, offer: any) {
  const item = dataset.itemsKey === 'products' ? 'product' : 'plan';
  const entity = viewOf(dataset).latest.data.find((e) => e.id === offer[`${dataset.entity.kind}Id`])!;
  const own = itemsOf(entity).find((i) => i.id === offer[`${item}Id`])!;
  expect(own.name).toBe(offer[`${item}Name`]);
  return {
    entity: offer[`${dataset.entity.kind}Name`],
    product: offer.label ?? itemName(entity, own),
    id: offer.rateId ?? `${offer[`${item}Id`]}#${offer.field}`,
    value: offer.rate,
    rate: offer.rateText,
    ranged: offer.range !== undefined,
    note: offer.note,
    details: offer.details,
    restricted: offer.for,
  };
}
/** An offer as a card shows it, less what only the pages carry (its address, the word before its range). */
const refOfCard = ({ url: _, lead: __, ...ref }: OfferRef) => ({ note: undefined, details: undefined, ...ref });

/** What the explorer's best cards show for a view: every restricted offer below the best, none cut. */
function explorerShows(view: DatasetView) {
  return bestCards(view, Number.POSITIVE_INFINITY).map((card) => ({
    measure: card.measure.key,
    rate: card.value,
    fromRange: card.fromRange,
    offers: card.who.map(refOfCard),
    restricted: card.restricted.map(refOfCard),
  }));
}
const answerShows = (dataset: Dataset, data: any[]) =>
  data.map((m) => ({
    measure: m.measure,
    rate: m.rate,
    fromRange: m.fromRange,
    offers: m.offers.map((o: any) => refOfAnswer(dataset, o)),
    restricted: m.restricted.map((o: any) => refOfAnswer(dataset, o)),
  }));

describe.each(EACH)('%s lowest rates', (_, dataset) => {
  const definition = EXPLORER[dataset.slug] as ExplorerDefinition;

  it('equal what the explorer shows: per measure the lowest open rate, who offers it, and the restricted offers below it', async () => {
    const { response, body } = await fetchJson(lowestPath(dataset));
    expect(response.status).toBe(200);
    const view = viewOf(dataset);
    expect(body.type).toBe(`${dataset.type}Lowest`);
    expect(body.lastUpdated).toBe(view.latest.lastUpdated);
    expect(body.termsOfUse).toMatch(/may be incorrect/);
    const shown = explorerShows(view);
    expect(shown.length).toBeGreaterThan(0);
    expect(answerShows(dataset, body.data)).toEqual(shown);
    for (const m of body.data) {
      const measure = definition.measures.find((x) => x.key === m.measure)!;
      expect(m.label).toBe(measure.label);
      expect(m.description).toBe(definition.valueNoun(measure));
    }
  });

  it('for one lender, equal what the explorer shows of that lender alone, its id matched case-insensitively', async () => {
    const view = viewOf(dataset);
    const { param } = dataset.entity;
    for (const entity of view.latest.data) {
      const { body } = await fetchJson(`${lowestPath(dataset)}?${param}=${entity.id.toUpperCase()}`);
      const alone = { ...view, latest: { ...view.latest, data: [entity] } };
      expect(answerShows(dataset, body.data), entity.id).toEqual(explorerShows(alone));
      for (const m of body.data)
        for (const o of [...m.offers, ...m.restricted]) expect(o[param], entity.id).toBe(entity.id);
    }
  });

  it("each of the list's filters keeps its measure's offers alone, as the explorer's measureQuery says", async () => {
    const { body: all } = await fetchJson(lowestPath(dataset));
    const queried = definition.measures.filter((m) => definition.measureQuery?.(m));
    expect(queried.length > 0).toBe(Object.keys(endpointsOf(dataset).list.query.shape).length > 0);
    for (const measure of queried) {
      const { response, body } = await fetchJson(`${lowestPath(dataset)}?${definition.measureQuery!(measure)}`);
      expect(response.status).toBe(200);
      expect(body.data).toEqual(all.data.filter((m: any) => m.measure === measure.key));
    }
  });

  it('bad input is the documented error body: 400 for a parameter it does not take or a malformed one, 404 for an unknown lender', async () => {
    const { param, prefix, notFound } = dataset.entity;
    const other = param === 'issuerId' ? 'institutionId' : 'issuerId';
    const cases: [string, number, string][] = [
      [`${lowestPath(dataset)}?colour=blue`, 400, 'invalid_request'],
      [`${lowestPath(dataset)}?${other}=${dataset.exampleEntityId}`, 400, 'invalid_request'],
      [`${lowestPath(dataset)}?${param}=${prefix}:no-such-lender`, 404, notFound],
      ...(endpointsOf(dataset).lowest.query.shape.termInMonths
        ? ([[`${lowestPath(dataset)}?termInMonths=one`, 400, 'invalid_request']] as [string, number, string][])
        : []),
    ];
    for (const [path, status, error] of cases) {
      const { response, body } = await fetchJson(path);
      expect(response.status, path).toBe(status);
      expect(ErrorBody.parse(body), path).toEqual(body);
      expect(body.error, path).toBe(error);
      expect(body.documentationUrl).toBe(`${SITE}/docs/errors#${error}`);
    }
  });

  it('is cached like every data answer, with a strong ETag answered 304', async () => {
    const first = await fetch(`${server.url}${lowestPath(dataset)}`);
    await first.arrayBuffer();
    expect(first.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await fetch(`${server.url}${lowestPath(dataset)}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await fetch(`${server.url}${lowestPath(dataset)}?${dataset.entity.param}=${dataset.exampleEntityId}`);
    await other.arrayBuffer();
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('its MCP tool answers the REST body, as text and as structuredContent', async () => {
    const name = `get_lowest_${dataset.slug.replaceAll('-', '_')}`;
    for (const query of [{}, { [dataset.entity.param]: dataset.exampleEntityId }]) {
      const { body: rest } = await fetchJson(`${lowestPath(dataset)}?${new URLSearchParams(query)}`);
      const { json } = await sendMcp(server.url, modern('tools/call', { name, arguments: query }));
      expect(json.result.isError, name).toBeUndefined();
      expect(json.result.structuredContent).toEqual(rest);
      expect(JSON.parse(json.result.content[0].text)).toEqual(rest);
    }
    const { json } = await sendMcp(
      server.url,
      modern('tools/call', { name, arguments: { [dataset.entity.param]: `${dataset.entity.prefix}:no-such-lender` } }),
    );
    expect(json.result.isError).toBe(true);
    expect(JSON.parse(json.result.content[0].text).error).toBe(dataset.entity.notFound);
  });
});

describe('the MCP tool list', () => {
  it('lists the lowest-rate tools after the list, detail and time-series tools, which keep their names and order', async () => {
    const { json } = await sendMcp(server.url, modern('tools/list'));
    const names: string[] = json.result.tools.map((t: any) => t.name);
    const before = DATASETS.flatMap((d) => {
      const base = d.slug.replaceAll('-', '_');
      return [`list_${base}`, `get_${base}_by_${d.entity.kind}`, `get_${base}_time_series`];
    });
    expect(names.slice(0, before.length)).toEqual(before);
    expect(names.slice(before.length, before.length + DATASETS.length)).toEqual(
      DATASETS.map((d) => `get_lowest_${d.slug.replaceAll('-', '_')}`),
    );
    expect(names).toEqual(TOOLS.map((t) => t.name));
  });
});

describe('the OpenAPI document', () => {
  it('each lowest answer satisfies its 200 schema (which lets a field added later through), and every example in the document is real', async () => {
    const { doc, ajv, service } = await documentOverHistory();
    for (const d of DATASETS) {
      const op = doc.paths[lowestPath(d)].get;
      expect(op.operationId).toBe(`getLowest${d.type}`);
      expect(op.parameters.map((p: any) => p.name)).toEqual(Object.keys(endpointsOf(d).lowest.query.shape));
      const check = ajv.compile(op.responses['200'].content['application/json'].schema);
      for (const query of ['', `?${d.entity.param}=${d.exampleEntityId}`]) {
        const { body } = await fetchJson(`${lowestPath(d)}${query}`);
        expect(check(body), `${d.slug}${query}: ${ajv.errorsText(check.errors)}`).toBe(true);
        // Open: a release may add a field (/docs/stability#where-new-fields-may-appear).
        expect(check({ ...body, extra: 1 })).toBe(true);
        const measure = structuredClone(body.data[0]);
        measure.offers[0].extra = 1;
        expect(check({ ...body, data: [measure] })).toBe(true);
      }
      for (const status of ['200', '400', '404']) {
        const media = op.responses[status].content['application/json'];
        const found = Object.values(media.examples ?? {}) as any[];
        expect(found.length, `${d.slug} ${status}`).toBeGreaterThan(0);
        const valid = ajv.compile(media.schema);
        for (const example of found) {
          expect(valid(example.value), `${d.slug} ${status}`).toBe(true);
          const answer = await service(new Request(`${SITE}${example.summary.replace(/^GET /, '')}`));
          expect({ ...(await answer.json()), timestamp: undefined }).toEqual({
            ...example.value,
            timestamp: undefined,
          });
        }
      }
    }
  }, 60_000);
});
