/**
 * Fix for how long: `GET /api/v1/<dataset>/break-even` of each dataset whose measures are fixed
 * terms, and its MCP tool. The formula against figures worked by hand, and as properties (the
 * rate plugged back gives equal growth; it rises with the longer rate); the answer over a real
 * socket, from the lowest open rates as /lowest answers them and, for one lender, within each of
 * its products; its errors, caching and ETags; its OpenAPI description; the tool through a real
 * MCP request, equal to the REST JSON; and the comparison pages' sentence.
 */
import fc from 'fast-check';
import { size } from '../src/mcp/sizes.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakEvenEndpointOf } from '../src/api/break-even.ts';
import { DATASETS, type Dataset, itemsOf } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import {
  BREAK_EVEN_DATASETS,
  breakEvenExact,
  breakEvenRate,
  breakEvenSentence,
  type Fixed,
  growth,
} from '../src/explorer/break-even.ts';
import { EXPLORER, type ExplorerDefinition } from '../src/explorer/definitions.ts';
import { comparison, datasetViews, type DatasetView } from '../src/explorer/pages.ts';
import { DATA_CACHE_CONTROL } from '../src/http/caching.ts';
import { breakEvenToolName } from '../src/mcp/tools/break-even.ts';
import { OWN_TOOLS, TOOLS } from '../src/mcp/tool-table.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { modern, postMcp, sendMcp, toolCall } from './support/mcp.ts';
import { documentOverHistory } from './support/openapi.ts';

let server: Listening;
let views: DatasetView[];
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
  views = datasetViews(await compileSnapshotTree(historyDir()));
}, 60_000);
afterAll(() => server.close());

const fetchJson = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server.url}${path}`, init);
  return { response, body: (await response.json()) as any };
};
const pathOf = (dataset: Dataset) => breakEvenEndpointOf(dataset)!.path;
const months = (m: number, rate: number): Fixed => ({ months: m, rate });

describe('the formula, against figures worked by hand', () => {
  it.each([
    // The issue's own: 1 year at 5.05 %, 2 years at 4.99 %.
    // 1 + 4.99/1200 = 1.0041583333, ^24 = 1.1047213; 1 + 5.05/1200 = 1.0042083333, ^12 = 1.0516854;
    // 1.1047213 / 1.0516854 = 1.0504294, ^(1/12) = 1.00410834; (1.00410834 − 1) × 1200 = 4.930003 → 4.93.
    [months(12, 5.05), months(24, 4.99), 4.93],
    // 6 months at 5.65 %, 1 year at 5.05 %: 1.0042083333^12 = 1.0516854; 1.0047083333^6 = 1.0285846;
    // ratio 1.0224588, ^(1/6) = 1.00370858; × 1200 of 0.00370858 = 4.450299 → 4.45.
    [months(6, 5.65), months(12, 5.05), 4.45],
    // 3 years at 5.15 %, 4 years at 5.35 %: 1.0044583333^48 = 1.2380337; 1.0042916667^36 = 1.1666885;
    // ratio 1.0611518, ^(1/12) = 1.00495850; 0.00495850 × 1200 = 5.950199 → 5.95.
    [months(36, 5.15), months(48, 5.35), 5.95],
    // A rising curve, 1 year at 4.00 %, 2 years at 5.00 %: 1.0041666667^24 = 1.1049413;
    // 1.0033333333^12 = 1.0407415; ratio 1.0616866, ^(1/12) = 1.00500069; 0.00500069 × 1200 = 6.000831 → 6.00.
    [months(12, 4), months(24, 5), 6],
    // Equal rates: the ratio is (1 + i)^(b − a) itself, so x is the rate: 5.35.
    [months(48, 5.35), months(60, 5.35), 5.35],
  ])('%o against %o: %s', (shorter, longer, expected) => {
    expect(breakEvenRate(shorter, longer)).toBe(expected);
    // Rounded as the API rounds rates: 2 decimals.
    expect(Math.abs(breakEvenExact(shorter, longer) - expected)).toBeLessThan(0.005);
  });

  it('refuses a longer term that is not longer', () => {
    expect(() => breakEvenExact(months(24, 5), months(12, 5))).toThrow(RangeError);
    expect(() => breakEvenExact(months(12, 5), months(12, 5))).toThrow(RangeError);
  });

  it('says it in the issue’s words: below for a rate paid, above for a rate earned', () => {
    const [dataset] = BREAK_EVEN_DATASETS;
    const definition = EXPLORER[dataset!.slug] as ExplorerDefinition;
    expect(breakEvenSentence(definition, months(12, 5.05), months(24, 4.99), 4.93)).toBe(
      'Fixing 1 year at 5.05 % beats 2 years at 4.99 % if in a year you can refix for 1 year below 4.93 %.',
    );
    expect(breakEvenSentence(definition, months(6, 5.65), months(36, 5.15), 5.05)).toBe(
      'Fixing 6 months at 5.65 % beats 3 years at 5.15 % if in 6 months you can refix for 30 months below 5.05 %.',
    );
    const earned: ExplorerDefinition = { ...definition, best: 'highest' };
    expect(breakEvenSentence(earned, months(24, 5), months(36, 5.2), 5.6)).toBe(
      'Fixing 2 years at 5.00 % beats 3 years at 5.20 % if in 2 years you can refix for 1 year above 5.60 %.',
    );
  });
});

describe('the formula, as properties', () => {
  const TERMS = [6, 12, 18, 24, 36, 48, 60];
  const pair = fc
    .tuple(fc.integer({ min: 0, max: TERMS.length - 2 }), fc.integer({ min: 1, max: TERMS.length - 1 }))
    .filter(([a, b]) => a < b)
    .map(([a, b]) => [TERMS[a]!, TERMS[b]!] as const);
  /** A rate in percent a year as the source writes them: two decimals, 0 to 20 %. */
  const rate = fc.integer({ min: 0, max: 2000 }).map((n) => n / 100);

  it('plugged back, the break-even rate gives equal growth; rounded, within what 0.005 points moves it', () => {
    fc.assert(
      fc.property(pair, rate, rate, ([a, b], ra, rb) => {
        const shorter = months(a, ra);
        const longer = months(b, rb);
        const exact = breakEvenExact(shorter, longer);
        const refixed = (x: number) => growth(shorter) * growth(months(b - a, x));
        expect(refixed(exact) / growth(longer)).toBeCloseTo(1, 12);
        const rounded = breakEvenRate(shorter, longer);
        expect(Math.abs(rounded - exact)).toBeLessThanOrEqual(0.005 + 1e-9);
        // Growth rises with the rate: the rounded rate's lies between those half a hundredth either side.
        expect(refixed(rounded)).toBeGreaterThanOrEqual(refixed(exact - 0.005) * (1 - 1e-12));
        expect(refixed(rounded)).toBeLessThanOrEqual(refixed(exact + 0.005) * (1 + 1e-12));
      }),
      { numRuns: 2000 },
    );
  });

  it('is monotone in the longer rate: a higher longer rate never lowers it, and raises it unrounded', () => {
    fc.assert(
      fc.property(pair, rate, rate, rate, ([a, b], ra, r1, r2) => {
        fc.pre(r1 !== r2);
        const [low, high] = r1 < r2 ? [r1, r2] : [r2, r1];
        expect(breakEvenExact(months(a, ra), months(b, high))).toBeGreaterThan(
          breakEvenExact(months(a, ra), months(b, low)),
        );
        expect(breakEvenRate(months(a, ra), months(b, high))).toBeGreaterThanOrEqual(
          breakEvenRate(months(a, ra), months(b, low)),
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe('which datasets have it', () => {
  it('those whose measures are fixed terms, by their termInMonths filter; the others answer 404 not_found', async () => {
    expect(BREAK_EVEN_DATASETS.length).toBeGreaterThan(0);
    for (const dataset of DATASETS) {
      const termed = dataset.filters.some((f) => f.name === 'termInMonths');
      expect(BREAK_EVEN_DATASETS.includes(dataset), dataset.slug).toBe(termed);
      if (termed) continue;
      const { response, body } = await fetchJson(`${endpointsOf(dataset).list.path}/break-even`);
      expect(response.status).toBe(404);
      expect(body.error).toBe('not_found');
    }
  });
});

describe.each(BREAK_EVEN_DATASETS.map((d) => [d.slug, d] as const))('%s break-even rates', (_, dataset) => {
  const { param, prefix, notFound } = dataset.entity;
  const view = () => views.find((v) => v.dataset === dataset)!;

  it('pair every two terms from the lowest open rates, as /lowest answers them, the issue’s example among them', async () => {
    const { response, body } = await fetchJson(pathOf(dataset));
    expect(response.status).toBe(200);
    expect(body.type).toBe(`${dataset.type}BreakEven`);
    expect(body.lastUpdated).toBe(view().latest.lastUpdated);
    expect(body.termsOfUse).toMatch(/may be incorrect/);
    const { body: lowest } = await fetchJson(endpointsOf(dataset).lowest.path);
    const terms = lowest.data.filter((m: any) => /^\d+$/.test(m.measure));
    const expected = terms.flatMap((a: any, i: number) =>
      terms.slice(i + 1).map((b: any) => ({
        basis: 'lowest',
        shorterInMonths: Number(a.measure),
        longerInMonths: Number(b.measure),
        shorterRate: a.rate,
        longerRate: b.rate,
        breakEvenRate: breakEvenRate(months(Number(a.measure), a.rate), months(Number(b.measure), b.rate)),
        shorterOffers: a.offers,
        longerOffers: b.offers,
      })),
    );
    expect(expected.length).toBe(21);
    expect(body.data.map(({ text: _, ...entry }: any) => entry)).toEqual(expected);
    // The newest test snapshot is the "today": 1 year at 5.05 %, 2 years at 4.99 %, 4.93 %.
    const year = body.data.find((e: any) => e.shorterInMonths === 12 && e.longerInMonths === 24);
    expect(year).toMatchObject({ shorterRate: 5.05, longerRate: 4.99, breakEvenRate: 4.93 });
    expect(year.text).toBe(
      'Fixing 1 year at 5.05 % beats 2 years at 4.99 % if in a year you can refix for 1 year below 4.93 %.',
    );
  });

  it('for one lender, pair the terms within each of its products that offers both, its id matched case-insensitively', async () => {
    const definition = EXPLORER[dataset.slug] as ExplorerDefinition;
    let restricted = 0;
    for (const entity of view().latest.data) {
      const { response, body } = await fetchJson(`${pathOf(dataset)}?${param}=${entity.id.toUpperCase()}`);
      expect(response.status, entity.id).toBe(200);
      const expected = itemsOf(entity).flatMap((item) => {
        const offers = definition.offers(item, entity).filter((o) => /^\d+$/.test(o.key));
        offers.sort((x, y) => Number(x.key) - Number(y.key));
        return offers.flatMap((a, i) =>
          offers.slice(i + 1).map((b) => ({
            basis: 'product',
            shorterInMonths: Number(a.key),
            longerInMonths: Number(b.key),
            shorterRate: a.value,
            longerRate: b.value,
            breakEvenRate: breakEvenRate(months(Number(a.key), a.value), months(Number(b.key), b.value)),
            ids: [a.id, b.id],
            for: a.restricted,
          })),
        );
      });
      const seen = body.data.map((e: any) => {
        const [shorter, longer] = [e.shorterOffers, e.longerOffers].map((o: any[]) => {
          expect(o).toHaveLength(1);
          return o[0];
        });
        expect(shorter[param]).toBe(entity.id);
        expect(shorter.productId).toBe(longer.productId);
        expect(shorter.for).toBe(longer.for);
        if (shorter.for) restricted++;
        return {
          basis: e.basis,
          shorterInMonths: e.shorterInMonths,
          longerInMonths: e.longerInMonths,
          shorterRate: e.shorterRate,
          longerRate: e.longerRate,
          breakEvenRate: e.breakEvenRate,
          ids: [shorter.rateId, longer.rateId],
          for: shorter.for,
        };
      });
      expect(seen, entity.id).toEqual(expected);
    }
    // Some product set apart is paired too, saying whom it is for.
    expect(restricted).toBeGreaterThan(0);
  });

  it('bad input is the documented error body: 400 for a parameter it does not take or an empty id, 404 for an unknown lender', async () => {
    const cases: [string, number, string, RegExp][] = [
      [`${pathOf(dataset)}?colour=blue`, 400, 'invalid_request', /does not use "colour"/],
      [
        `${pathOf(dataset)}?termInMonths=12`,
        400,
        'invalid_request',
        new RegExp(`does not use "termInMonths".*accepts: ${param}`),
      ],
      [`${pathOf(dataset)}?${param}=`, 400, 'invalid_request', /must not be empty/],
      [`${pathOf(dataset)}?${param}=${prefix}:no-such-lender`, 404, notFound, /is in the newest snapshot/],
    ];
    for (const [path, status, error, hint] of cases) {
      const { response, body } = await fetchJson(path);
      expect(response.status, path).toBe(status);
      expect(ErrorBody.parse(body), path).toEqual(body);
      expect(body.error, path).toBe(error);
      expect(body.hint, path).toMatch(hint);
      expect(body.documentationUrl).toBe(`${SITE}/docs/errors#${error}`);
    }
  });

  it('is cached like every data answer, with a strong ETag answered 304, one per lender', async () => {
    const first = await fetch(`${server.url}${pathOf(dataset)}`);
    await first.arrayBuffer();
    expect(first.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await fetch(`${server.url}${pathOf(dataset)}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await fetch(`${server.url}${pathOf(dataset)}?${param}=${dataset.exampleEntityId}`);
    await other.arrayBuffer();
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('its MCP tool answers the REST body, as text and structuredContent; an unknown lender is an error result', async () => {
    const name = breakEvenToolName(dataset);
    expect(name).toBe(`get_${dataset.slug.replaceAll('-', '_')}_break_even`);
    for (const query of [{}, { [param]: dataset.exampleEntityId }]) {
      const { body: rest } = await fetchJson(`${pathOf(dataset)}?${new URLSearchParams(query)}`);
      const { json } = await sendMcp(server.url, modern('tools/call', { name, arguments: query }));
      expect(json.result.isError, name).toBeUndefined();
      expect(json.result.structuredContent).toEqual(rest);
      expect(JSON.parse(json.result.content[0].text)).toEqual(rest);
    }
    const { json } = await sendMcp(
      server.url,
      modern('tools/call', { name, arguments: { [param]: `${prefix}:no-such-lender` } }),
    );
    expect(json.result.isError).toBe(true);
    expect(JSON.parse(json.result.content[0].text).error).toBe(notFound);
  });

  it('its MCP tool refuses a bad argument as the contract says: isError from 2025-11-25, -32602 before', async () => {
    const name = breakEvenToolName(dataset);
    for (const args of [{ [param]: '' }, { termInMonths: '12' }]) {
      const { json } = await sendMcp(server.url, modern('tools/call', { name, arguments: args }));
      expect(json.result.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.parse(json.result.content[0].text).error).toBe('invalid_request');
      const old = await postMcp(server.url, toolCall(2, name, args), { 'mcp-protocol-version': '2025-06-18' });
      expect(old.json.error?.code, JSON.stringify(args)).toBe(-32602);
    }
  });

  it('a fixed-term comparison page says it against the next longer term of whole years; floating and the longest term do not', () => {
    const definition = EXPLORER[dataset.slug] as ExplorerDefinition;
    const says = (key: string) => comparison(view(), key, { type: 'all', restricted: false }).breakEven;
    expect(says('12')).toBe(
      'Fixing 1 year at 5.05 % beats 2 years at 4.99 % if in a year you can refix for 1 year below 4.93 %.',
    );
    expect(says('6')).toMatch(
      /^Fixing 6 months at \S+ % beats 1 year at \S+ % if in 6 months you can refix for 6 months below/,
    );
    expect(says('18')).toMatch(/^Fixing 18 months at .* beats 2 years at .* refix for 6 months below/);
    expect(says('48')).toMatch(
      /^Fixing 4 years at .* beats 5 years at .* if in 4 years you can refix for 1 year below/,
    );
    expect(says('floating')).toBeUndefined();
    expect(says(definition.measures.at(-1)!.key)).toBeUndefined();
    // The same on every view of the page: every lender's lowest open rates, whichever lenders it lists.
    expect(comparison(view(), '12', { type: 'non-bank', restricted: true }).breakEven).toBe(says('12'));
  });
});

describe('the MCP tool list and the OpenAPI document', () => {
  it('list each break-even tool after the twins of every dataset', async () => {
    const { json } = await sendMcp(server.url, modern('tools/list'));
    const names: string[] = json.result.tools.map((t: any) => t.name);
    expect(names).toEqual(TOOLS.map((t) => t.name));
    const tools = BREAK_EVEN_DATASETS.map(breakEvenToolName);
    expect(OWN_TOOLS.map((t) => t.name)).toEqual(expect.arrayContaining(tools));
    expect(names.slice(-OWN_TOOLS.length)).toEqual(OWN_TOOLS.map((t) => t.name));
    for (const dataset of BREAK_EVEN_DATASETS) {
      const tool = json.result.tools.find((t: any) => t.name === breakEvenToolName(dataset));
      expect(tool.description).toContain('1200 × [((1 + r_b/1200)^b ÷ (1 + r_a/1200)^a)^(1/(b − a)) − 1]');
      expect(tool.description).toMatch(/at most 21,/);
      // And the size of its default answer, as measured from the data it serves.
      const bytes = Buffer.byteLength(await (await fetch(`${server.url}${pathOf(dataset)}`)).text());
      expect(tool.description).toContain(`Size: about ${size(bytes)}.`);
      expect(Object.keys(tool.inputSchema.properties)).toEqual([dataset.entity.param]);
    }
  });

  it('describes each answer: its 200 schema takes the real answers and lets a field added later through; its examples are real', async () => {
    const { doc, ajv, service } = await documentOverHistory();
    for (const d of BREAK_EVEN_DATASETS) {
      const op = doc.paths[pathOf(d)].get;
      expect(op.operationId).toBe(`get${d.type}BreakEven`);
      expect(op.parameters.map((p: any) => p.name)).toEqual([d.entity.param]);
      expect(op.description).toContain('x = 1200 × [((1 + r_b/1200)^b ÷ (1 + r_a/1200)^a)^(1/(b − a)) − 1]');
      expect(op.description).toContain('rounded to 2 decimals');
      const check = ajv.compile(op.responses['200'].content['application/json'].schema);
      for (const query of ['', `?${d.entity.param}=${d.exampleEntityId}`]) {
        const { body } = await fetchJson(`${pathOf(d)}${query}`);
        expect(check(body), `${query}: ${ajv.errorsText(check.errors)}`).toBe(true);
        expect(check({ ...body, extra: 1 })).toBe(true);
        const entry = structuredClone(body.data[0]);
        entry.shorterOffers[0].extra = 1;
        expect(check({ ...body, data: [entry] })).toBe(true);
        // A wrong field type is refused: the schema says what each is.
        expect(check({ ...body, data: [{ ...body.data[0], breakEvenRate: '4.93' }] })).toBe(false);
      }
      for (const status of ['200', '400', '404', '500']) {
        const media = op.responses[status].content['application/json'];
        const found = Object.values(media.examples ?? {}) as any[];
        expect(found.length, status).toBeGreaterThan(0);
        const valid = ajv.compile(media.schema);
        for (const example of found) {
          expect(valid(example.value), status).toBe(true);
          if (status === '500') continue;
          const answer = await (await service(new Request(`${SITE}${example.summary.replace(/^GET /, '')}`))).json();
          // A 200's data is cut to its first entries, as the description says.
          const expected =
            status === '200' ? { ...answer, data: answer.data.slice(0, example.value.data.length) } : answer;
          expect({ ...example.value, timestamp: undefined }).toEqual({ ...expected, timestamp: undefined });
          if (status === '200' && answer.data.length > example.value.data.length)
            expect(example.description).toContain(`of ${answer.data.length} pairs`);
        }
      }
    }
  }, 120_000);
});
