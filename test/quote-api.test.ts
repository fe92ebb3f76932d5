/**
 * `GET /api/v1/<dataset>/quote` and its MCP twins over the test history: for every dataset, every
 * measure and rates on every side of its offers (below the best, equal to an offer, between two,
 * above all, the bounds), the answer is what a recomputation from the newest snapshot's open
 * offers gives — by the explorer's own rules of what is open, the best end read from the dataset's
 * declaration — with a named lender's own offers; "better" flips where the best is the highest;
 * its errors are the documented body; it is cached with strong ETags like /lowest; its answers and
 * examples satisfy the OpenAPI document; and each tool's structuredContent is the REST JSON, in
 * process and over a real socket. The page's words for an answer are src/lib/quote-words.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset, type Entity, itemsOf } from '../src/datasets.ts';
import type { Handler } from '../src/api/app.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { EXPLORER, type ExplorerDefinition, type Offer } from '../src/explorer/definitions.ts';
import { datasetViews } from '../src/explorer/pages.ts';
import { quoteOf } from '../src/explorer/quote.ts';
import { DATA_CACHE_CONTROL } from '../src/http/caching.ts';
import { ordinal, quoteInWords } from '../src/lib/quote-words.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { SITE } from './support/constants.ts';
import { coreOver, getJson, rawServiceOver } from './support/core.ts';
import { EACH } from './support/datasets.ts';
import { historyDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { modern, postMcp, sendMcp, toolCall } from './support/mcp.ts';
import { size } from '../src/mcp/sizes.ts';
import { documentOverHistory } from './support/openapi.ts';

let core: Handler;
let server: Listening;
let newest: Map<Dataset, Entity[]>;

beforeAll(async () => {
  core = await coreOver(historyDir());
  server = await serveService(await rawServiceOver(historyDir()));
  newest = new Map(datasetViews(await compileSnapshotTree(historyDir())).map((v) => [v.dataset, v.latest.data]));
}, 60_000);
afterAll(() => server?.close());

const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;
const quotePath = (dataset: Dataset) => `/api/v1/${dataset.slug}/quote`;
const fetchJson = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server.url}${path}`, init);
  return { response, body: (await response.json()) as any };
};

/** An offer's id as the answers name it: its rate's id, or its plan and field. */
const idOf = (dataset: Dataset, offer: any) =>
  offer.rateId ?? `${offer[`${dataset.itemsKey === 'plans' ? 'plan' : 'product'}Id`]}#${offer.field}`;

/** Every offer of the measure in a snapshot with its lender, as the explorer's definition lists them. */
function offersOf(dataset: Dataset, data: readonly Entity[], measure: string) {
  const definition = definitionOf(dataset);
  return data.flatMap((entity) =>
    itemsOf(entity).flatMap((item) =>
      definition
        .offers(item, entity)
        .filter((o) => o.key === measure)
        .map((offer) => ({ entity, offer })),
    ),
  );
}

/**
 * What the answer must be, worked out here from the snapshot: the open offers (no `restricted`),
 * counted against the rate; "better" from the declaration itself (the measure's `best`, else the
 * dataset's): below the rate where the best is the lowest, above it where it is the highest.
 */
function expected(dataset: Dataset, data: readonly Entity[], measure: string, rate: number, lender?: Entity) {
  const definition = definitionOf(dataset);
  const end = definition.measures.find((m) => m.key === measure)!.best ?? definition.best;
  const open = offersOf(dataset, data, measure).filter(({ offer }) => !offer.restricted);
  const rates = open.map(({ offer }) => offer.value);
  const better = rates.filter((r) => (end === 'lowest' ? r < rate : r > rate)).length;
  const best = rates.length === 0 ? null : end === 'lowest' ? Math.min(...rates) : Math.max(...rates);
  const sorted = [...rates].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length === 0
      ? null
      : sorted.length % 2 === 1
        ? sorted[mid]!
        : Math.round(((sorted[mid - 1]! + sorted[mid]!) / 2) * 1000) / 1000;
  return {
    count: rates.length,
    lower: rates.filter((r) => r < rate).length,
    equal: rates.filter((r) => r === rate).length,
    higher: rates.filter((r) => r > rate).length,
    percentile: rates.length === 0 ? null : Math.round((1000 * (rates.length - better)) / rates.length) / 10,
    lowest: best,
    median,
    lowestIds: open
      .filter(({ offer }) => offer.value === best)
      .map(({ offer }) => offer.id)
      .sort(),
    lenderOffers: lender
      ? offersOf(dataset, [lender], measure)
          .map(({ offer }) => ({ id: offer.id, rate: offer.value, open: !offer.restricted, for: offer.restricted }))
          .sort((a, b) => a.id.localeCompare(b.id))
      : undefined,
  };
}

/** The answer's figures in the shape `expected` gives them. */
const figuresOf = (dataset: Dataset, data: any) => ({
  count: data.count,
  lower: data.lower,
  equal: data.equal,
  higher: data.higher,
  percentile: data.percentile,
  lowest: data.lowest,
  median: data.median,
  lowestIds: data.lowestOffers.map((o: any) => idOf(dataset, o)).sort(),
  lenderOffers: data.lenderOffers
    ?.map((o: any) => ({ id: idOf(dataset, o), rate: o.rate, open: o.open, for: o.for }))
    .sort((a: any, b: any) => a.id.localeCompare(b.id)),
});

/** Rates on every side of a measure's open offers: below the best, each bound, equal to offers, between two, above all. */
function ratesAround(values: readonly number[]): number[] {
  const distinct = [...new Set(values)].sort((a, b) => a - b);
  if (distinct.length === 0) return [0, 6, 100];
  const [low, high] = [distinct[0]!, distinct.at(-1)!];
  const middle = distinct[Math.floor(distinct.length / 2)]!;
  const between = distinct.length > 1 ? (distinct[0]! + distinct[1]!) / 2 : low + 0.005;
  return [...new Set([0, Math.max(0, low - 1), low, middle, between, high, Math.min(100, high + 1), 100])];
}

/** A rate as a query writes it: digits and a point, never an exponent. */
const written = (rate: number) => String(Math.round(rate * 10_000) / 10_000);

describe.each(EACH)('%s quote check', (_, dataset) => {
  const definition = definitionOf(dataset);
  const { param, prefix, notFound } = dataset.entity;

  it('for every measure and rates on every side of its offers, is what the newest snapshot’s open offers give', async () => {
    const data = newest.get(dataset)!;
    const lowest = (await getJson(core, `/api/v1/${dataset.slug}/lowest`)).body;
    let checked = 0;
    for (const measure of definition.measures) {
      const open = offersOf(dataset, data, measure.key).filter(({ offer }) => !offer.restricted);
      for (const rate of ratesAround(open.map(({ offer }) => offer.value)).map((r) => Number(written(r)))) {
        const path = `${quotePath(dataset)}?measure=${measure.key}&rate=${written(rate)}`;
        const { response, body } = await getJson(core, path);
        expect(response.status, path).toBe(200);
        expect(body.type).toBe(`${dataset.type}Quote`);
        expect(body.termsOfUse).toMatch(/may be incorrect/);
        expect(body.data).toMatchObject({
          measure: measure.key,
          label: measure.label,
          description: definition.valueNoun(measure),
          rate,
        });
        expect(body.data.lenderOffers, path).toBeUndefined();
        expect(figuresOf(dataset, body.data), path).toEqual(expected(dataset, data, measure.key, rate));
        // `lowest` and the offers that make it are /lowest's, offer for offer.
        const best = lowest.data.find((m: any) => m.measure === measure.key);
        expect(body.data.lowestOffers, path).toEqual(best?.offers ?? []);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(definition.measures.length * 3);
  });

  it('the percentile is the share of open offers no better than the rate: 100 at or past the best, 0 past the worst', async () => {
    const measure = definition.measures.find((m) => definition.compared.includes(m.key))!;
    const values = offersOf(dataset, newest.get(dataset)!, measure.key)
      .filter(({ offer }) => !offer.restricted)
      .map(({ offer }) => offer.value);
    const ask = async (rate: number) =>
      (await getJson(core, `${quotePath(dataset)}?measure=${measure.key}&rate=${written(rate)}`)).body.data;
    const [low, high] = [Math.min(...values), Math.max(...values)];
    const paid = (measure.best ?? definition.best) === 'lowest';
    const [best, worst] = paid ? [low, high] : [high, low];
    expect((await ask(best)).percentile).toBe(100);
    // Past the worst every offer is better; at the worst, only those tied on it are not.
    const past = await ask(paid ? Math.min(100, worst + 1) : Math.max(0, worst - 1));
    expect(past.percentile).toBe(0);
    expect(paid ? past.lower : past.higher).toBe(values.length);
    const atWorst = await ask(worst);
    expect(atWorst.percentile).toBe(Math.round((1000 * atWorst.equal) / atWorst.count) / 10);
  });

  it('for a named lender, adds its own offers of the measure, open and restricted, saying which, and places the rate among every lender’s', async () => {
    const data = newest.get(dataset)!;
    let restricted = 0;
    for (const lender of data) {
      for (const measure of definition.measures) {
        const rate = 6.5;
        const path = `${quotePath(dataset)}?measure=${measure.key}&rate=${rate}&${param}=${lender.id.toUpperCase()}`;
        const { response, body } = await getJson(core, path);
        expect(response.status, path).toBe(200);
        expect(figuresOf(dataset, body.data), path).toEqual(expected(dataset, data, measure.key, rate, lender));
        for (const offer of body.data.lenderOffers) {
          expect(offer[param]).toBe(lender.id);
          expect(offer.open).toBe(offer.for === undefined);
          if (!offer.open) restricted++;
        }
        // Best first, as the measure's best is declared.
        const rates = body.data.lenderOffers.map((o: any) => o.rate);
        const paid = (measure.best ?? definition.best) === 'lowest';
        expect(rates).toEqual([...rates].sort((a, b) => (paid ? a - b : b - a)));
      }
    }
    // The test history has restricted offers of every dataset a restriction rule applies to: at least one lender's answer shows one.
    if (definition.restrictions.length > 0) expect(restricted).toBeGreaterThan(0);
  });

  it('names the measure by termInMonths or measure alike, and a rate however it is written: one body, one ETag', async () => {
    const measure = definition.measures.find((m) => definition.measureQuery?.(m)) ?? definition.measures[0]!;
    const byTerm = definition.measureQuery?.(measure);
    const first = await fetch(`${server.url}${quotePath(dataset)}?measure=${measure.key}&rate=6.1`);
    const same = [
      `${quotePath(dataset)}?rate=6.10&measure=${measure.key}`,
      ...(byTerm
        ? [
            `${quotePath(dataset)}?${byTerm}&rate=6.1`,
            `${quotePath(dataset)}?${byTerm}&measure=${measure.key}&rate=6.1`,
          ]
        : []),
    ];
    const body = ((await first.json()) as any).data;
    for (const path of same) {
      const { response, body: other } = await fetchJson(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('etag'), path).toBe(first.headers.get('etag'));
      expect(other.data, path).toEqual(body);
    }
  });

  it('bad input is the documented error body: 400 for a rate missing, malformed or past 100, a measure unknown or missing, a parameter it does not take; 404 for an unknown lender', async () => {
    const measure = definition.measures[0]!.key;
    const takesTerm = endpointsOf(dataset).quote.query.shape.termInMonths !== undefined;
    const cases: [string, number, string, RegExp][] = [
      [`?measure=${measure}`, 400, 'invalid_request', /^rate is required/],
      [`?measure=${measure}&rate=abc`, 400, 'invalid_request', /^rate must be a rate in percent .*\(got "abc"\)\.$/],
      [`?measure=${measure}&rate=-1`, 400, 'invalid_request', /^rate must be a rate in percent .*\(got "-1"\)\.$/],
      [`?measure=${measure}&rate=1e2`, 400, 'invalid_request', /^rate must be a rate in percent/],
      [`?measure=${measure}&rate=101`, 400, 'invalid_request', /^rate must be at most 100.*\(got "101"\)\.$/],
      [`?measure=${measure}&rate=100.5`, 400, 'invalid_request', /^rate must be at most 100/],
      [`?measure=${measure}&rate=`, 400, 'invalid_request', /^rate must be a rate in percent/],
      [
        `?rate=6`,
        400,
        'invalid_request',
        new RegExp(`^Name a measure: give measure= one of ${definition.measures.map((m) => m.key).join(', ')}`),
      ],
      [`?measure=nope&rate=6`, 400, 'invalid_request', /have no measure "nope": give measure= one of/],
      [`?measure=${measure}&rate=6&colour=blue`, 400, 'invalid_request', /does not use "colour"/],
      [`?measure=${measure}&rate=6&rate=7`, 400, 'invalid_request', /"rate" was given more than once/],
      [
        `?measure=${measure}&rate=6&${param}=${prefix}:no-such-lender`,
        404,
        notFound,
        /No \w+ with that id is in the newest snapshot/,
      ],
      ...(takesTerm
        ? ([
            ['?termInMonths=7&rate=6', 400, 'invalid_request', /have no measure "7"/],
            ['?termInMonths=12&measure=24&rate=6', 400, 'invalid_request', /name different measures/],
            ['?termInMonths=one&rate=6', 400, 'invalid_request', /^termInMonths must be a whole number/],
          ] as [string, number, string, RegExp][])
        : ([['?termInMonths=12&rate=6', 400, 'invalid_request', /does not use "termInMonths"/]] as [
            string,
            number,
            string,
            RegExp,
          ][])),
    ];
    for (const [query, status, error, hint] of cases) {
      const path = `${quotePath(dataset)}${query}`;
      for (const { response, body } of [await fetchJson(path), await getJson(core, path)]) {
        expect(response.status, path).toBe(status);
        expect(ErrorBody.parse(body), path).toEqual(body);
        expect(body.error, path).toBe(error);
        expect(body.hint, path).toMatch(hint);
        expect(body.documentationUrl).toBe(`${SITE}/docs/errors#${error}`);
      }
    }
    // The bounds are rates too.
    for (const rate of ['0', '100', '100.0', '5.25'])
      expect((await fetchJson(`${quotePath(dataset)}?measure=${measure}&rate=${rate}`)).response.status, rate).toBe(
        200,
      );
  });

  it('is cached like every data answer, with a strong ETag answered 304, one per rate, measure and lender', async () => {
    const measure = definition.measures[0]!.key;
    const path = `${quotePath(dataset)}?measure=${measure}&rate=6`;
    const first = await fetch(`${server.url}${path}`);
    await first.arrayBuffer();
    expect(first.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const others = [
      `${quotePath(dataset)}?measure=${measure}&rate=6.5`,
      `${quotePath(dataset)}?measure=${definition.measures[1]!.key}&rate=6`,
      `${path}&${param}=${dataset.exampleEntityId}`,
    ];
    const etags = await Promise.all(
      others.map(async (other) => {
        const response = await fetch(`${server.url}${other}`);
        await response.arrayBuffer();
        return response.headers.get('etag');
      }),
    );
    expect(new Set([etag, ...etags]).size).toBe(others.length + 1);
  });

  it('its MCP tool answers the REST body as text and structuredContent; a bad argument or an unknown lender is an error result', async () => {
    const name = `check_${dataset.slug.replaceAll('-', '_')}_quote`;
    const measure = definition.measures[0]!.key;
    const calls: Record<string, string>[] = [
      { rate: '6', measure },
      { rate: '12.5', measure: definition.measures.at(-1)!.key, [param]: dataset.exampleEntityId },
      ...(endpointsOf(dataset).quote.query.shape.termInMonths ? [{ rate: '5', termInMonths: '12' }] : []),
    ];
    for (const args of calls) {
      const { body: rest } = await fetchJson(`${quotePath(dataset)}?${new URLSearchParams(args)}`);
      const { json } = await sendMcp(server.url, modern('tools/call', { name, arguments: args }));
      expect(json.result.isError, JSON.stringify(args)).toBeUndefined();
      expect(json.result.structuredContent).toEqual(rest);
      expect(JSON.parse(json.result.content[0].text)).toEqual(rest);
    }
    // A rate given as a JSON number, as agents often send it, answers as its string would.
    const { body: rest } = await fetchJson(`${quotePath(dataset)}?${new URLSearchParams({ rate: '7.5', measure })}`);
    const numbered = await sendMcp(server.url, modern('tools/call', { name, arguments: { rate: 7.5, measure } }));
    expect(numbered.json.result.isError).toBeUndefined();
    expect(numbered.json.result.structuredContent).toEqual(rest);
    const error = async (args: Record<string, unknown>) => {
      const { json } = await sendMcp(server.url, modern('tools/call', { name, arguments: args }));
      expect(json.result.isError, JSON.stringify(args)).toBe(true);
      return JSON.parse(json.result.content[0].text);
    };
    expect((await error({ rate: '6', measure, [param]: `${prefix}:no-such-lender` })).error).toBe(notFound);
    expect((await error({ rate: '101', measure })).hint).toMatch(/^rate must be at most 100/);
    expect((await error({ rate: -1, measure })).hint).toMatch(/rate must be a rate in percent/);
    expect((await error({ rate: true, measure })).hint).toMatch(/rate must be a string/);
    expect((await error({ measure })).hint).toMatch(/^rate is required/);
    expect((await error({ rate: '6', measure: 'nope' })).hint).toMatch(/have no measure "nope"/);
    // Before 2025-11-25 a bad argument is JSON-RPC -32602.
    const legacy = await postMcp(server.url, toolCall(1, name, { rate: 'abc', measure }), {
      'mcp-protocol-version': '2025-06-18',
    });
    expect(legacy.json.error.code).toBe(-32602);
    expect(legacy.json.error.message).toMatch(/rate must be a rate in percent/);
  });
});

describe('a dataset whose best is the highest (a rate earned)', () => {
  // The first dataset with its explorer facts turned round, as a dataset of rates earned would declare them.
  const base = DATASETS[0];
  const slug = `${base.slug}-earned`;
  (EXPLORER as Record<string, unknown>)[slug] = { ...EXPLORER[base.slug], best: 'highest' };
  const earned = { ...base, slug } as unknown as Dataset;

  it('counts the offers above the rate as better, and its `lowest` is the highest open rate', () => {
    const data = newest.get(base)!;
    for (const measure of definitionOf(earned).measures) {
      const values = offersOf(base, data, measure.key)
        .filter(({ offer }) => !offer.restricted)
        .map(({ offer }: { offer: Offer }) => offer.value);
      for (const rate of ratesAround(values)) {
        const quote = quoteOf(earned, data, measure.key, rate);
        const want = expected(earned, data, measure.key, rate);
        expect(figuresOf(earned, quote), `${measure.key} ${rate}`).toEqual(want);
        if (values.length > 0) expect(quote.lowest).toBe(Math.max(...values));
      }
      if (values.length > 0) {
        expect(quoteOf(earned, data, measure.key, Math.max(...values)).percentile).toBe(100);
        expect(quoteOf(earned, data, measure.key, Math.min(...values)).percentile).not.toBe(100);
      }
    }
  });
});

describe('the tool list and the OpenAPI document', () => {
  it('lists the quote tools together, in table order, after the lowest-rate tools', async () => {
    const { json } = await sendMcp(server.url, modern('tools/list'));
    const names: string[] = json.result.tools.map((t: any) => t.name);
    const lowest = DATASETS.map((d) => `get_lowest_${d.slug.replaceAll('-', '_')}`);
    const quote = DATASETS.map((d) => `check_${d.slug.replaceAll('-', '_')}_quote`);
    const at = names.indexOf(quote[0]!);
    expect(names.slice(at, at + DATASETS.length)).toEqual(quote);
    expect(at).toBeGreaterThan(names.indexOf(lowest.at(-1)!));
    expect(names).toEqual(TOOLS.map((t) => t.name));
    const tool = json.result.tools.find((t: any) => t.name === quote[0]);
    expect(tool.inputSchema.required).toEqual(['rate']);
    expect(tool.outputSchema.properties.data.properties.percentile.description).toMatch(/no better than/);
    // Each states the sizes of its example's answers, alone and with the example entity, as measured here.
    for (const d of DATASETS) {
      const described = json.result.tools.find((t: any) => t.name === `check_${d.slug.replaceAll('-', '_')}_quote`);
      const example = `${quotePath(d)}?measure=${EXPLORER[d.slug].chartFirst}&rate=6`;
      const bytes = async (path: string) => Buffer.byteLength(await (await fetch(`${server.url}${path}`)).text());
      expect(described.description, d.slug).toContain(`Sizes: about ${size(await bytes(example))}; `);
      expect(described.description, d.slug).toContain(
        `(${size(await bytes(`${example}&${d.entity.param}=${d.exampleEntityId}`))} for ${d.exampleEntityId})`,
      );
      // The lowest-rate tool beside it states its whole answer's size the same way.
      const lowestTool = json.result.tools.find((t: any) => t.name === `get_lowest_${d.slug.replaceAll('-', '_')}`);
      expect(lowestTool.description, d.slug).toContain(
        `Size: ${size(await bytes(`/api/v1/${d.slug}/lowest`))} for every measure`,
      );
    }
  });

  it('each answer satisfies its 200 schema (open to fields added later), the rate is required, and every example is real', async () => {
    const { doc, ajv, service } = await documentOverHistory();
    for (const d of DATASETS) {
      const op = doc.paths[quotePath(d)].get;
      expect(op.operationId).toBe(`check${d.type}Quote`);
      expect(op.parameters.map((p: any) => p.name)).toEqual(Object.keys(endpointsOf(d).quote.query.shape));
      expect(op.parameters.filter((p: any) => p.required).map((p: any) => p.name)).toEqual(['rate']);
      const check = ajv.compile(op.responses['200'].content['application/json'].schema);
      const measure = definitionOf(d).measures[0]!.key;
      for (const query of [
        `?measure=${measure}&rate=6`,
        `?measure=${measure}&rate=6&${d.entity.param}=${d.exampleEntityId}`,
      ]) {
        const { body } = await fetchJson(`${quotePath(d)}${query}`);
        expect(check(body), `${d.slug}${query}: ${ajv.errorsText(check.errors)}`).toBe(true);
        expect(check({ ...body, extra: 1 })).toBe(true);
        expect(check({ ...body, data: { ...body.data, extra: 1 } })).toBe(true);
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
      // The first example places a rate among offers on both sides of it.
      const first = op.responses['200'].content['application/json'].examples.example.value.data;
      expect(first.lower).toBeGreaterThan(0);
      expect(first.higher).toBeGreaterThan(0);
    }
  }, 60_000);
});

describe('the words a comparison page writes for an answer', () => {
  const wording = { best: 'lowest' as const, entityName: 'institutionName', itemName: 'productName' };
  const answer = {
    count: 21,
    lower: 4,
    equal: 1,
    higher: 16,
    percentile: 81,
    lowest: 4.99,
    lowestOffers: [{ institutionName: 'ANZ', productName: 'Special', rateText: '4.99 %' }],
  };

  it('say how many offers are better, the percentile and the best with who makes it', () => {
    expect(quoteInWords(answer, wording)).toBe(
      '4 of 21 open offers are lower, 1 equal to it; your rate is at the 81st percentile; the lowest is 4.99 %, from ANZ (Special).',
    );
    expect(quoteInWords({ ...answer, lower: 1, equal: 0, percentile: 95.2 }, wording)).toMatch(
      /^1 of 21 open offers is lower; your rate is at the 95th percentile;/,
    );
    expect(
      quoteInWords(
        {
          ...answer,
          lowestOffers: [
            { institutionName: 'Gem', productName: 'Personal Loan', rateText: '8.99–28.99 %' },
            { institutionName: 'ASB', productName: '', rateText: '8.99 %' },
          ],
        },
        wording,
      ),
    ).toMatch(/from Gem \(Personal Loan, 8\.99–28\.99 %\) and ASB \(unnamed\)\.$/);
    expect(quoteInWords({ ...answer, count: 0, lowest: null, percentile: null }, wording)).toMatch(/^No offer/);
    // Where the best is the highest, the better offers are the higher ones.
    expect(quoteInWords(answer, { ...wording, best: 'highest' })).toMatch(
      /^16 of 21 open offers are higher, .* the highest is/,
    );
  });

  it('never round to the 100th percentile while an offer is better, nor to the 0th while one is not', () => {
    const many = { ...answer, count: 400, lower: 1, equal: 0, higher: 399, percentile: 99.8 };
    expect(quoteInWords(many, wording)).toContain('at the 99th percentile');
    expect(quoteInWords({ ...many, lower: 399, higher: 1, percentile: 0.3 }, wording)).toContain(
      'at the 1st percentile',
    );
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 100].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '100th',
    ]);
  });
});
