/**
 * Which way each change of the change log went and by how much, over the real history and a real
 * socket: `direction` and `bps` as worked out from the change's two snapshots (the time-series
 * answers of its two dates, independently of src/changes/), the `direction=` and `minBps=` filters
 * alone and together equal to the whole log filtered by hand, their 400s, the OpenAPI schema the
 * answers meet, the words the feeds and the collector's summary say a move in, and the MCP twins,
 * whose JSON is the REST answer's and whose descriptions state their sizes.
 */
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { atomFeed } from '../src/changes/feeds.ts';
import { changeDays, type SnapshotData } from '../src/changes/model.ts';
import { changesEndpointOf } from '../src/changes/endpoint.ts';
import { describeChanges } from '../src/collect/summary.ts';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { LIMITS, mib } from '../src/mcp/protocol.ts';
import { size } from '../src/mcp/sizes.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { CreditCardIssuer, MortgageInstitution } from '../src/schemas/rates.ts';
import { expectedMovement, valuesOf } from './support/changes-diff.ts';
import { apiOver, get, rawServiceOver } from './support/core.ts';
import { SITE } from './support/constants.ts';
import { datasetOfSchema, EACH, toolNamesOf } from './support/datasets.ts';
import { historyDir, newestDates, newestSnapshots, treeOfNewest } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { modern, postMcp, sendMcp, toolCall } from './support/mcp.ts';
import { documentOverHistory } from './support/openapi.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const DIRECTIONS = ['up', 'down', 'new', 'gone'] as const;

let server: Listening;
/** The REST API as callers see it, in process: for the x-request-id rules of the 400s. */
let api: Handler;
/** Per dataset: its snapshot dates, and the whole change log's answer. */
const dates: Record<string, string[]> = {};
const whole: Record<string, any> = {};

const rest = async (path: string) => {
  const response = await fetch(`${server.url}${path}`);
  return { response, text: await response.text() };
};
const json = async (path: string) => JSON.parse((await rest(path)).text);
const changesPath = (d: Dataset) => changesEndpointOf(d).path;

beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
  api = await apiOver(historyDir());
  for (const d of DATASETS) {
    dates[d.slug] = (await json(`/api/v1/${d.slug}/time-series`)).availableDates;
    whole[d.slug] = await json(`${changesPath(d)}?since=${dates[d.slug]![0]}`);
  }
}, 60_000);
afterAll(() => server?.close());

const KINDS = ['changed', 'added', 'removed'] as const;
/** Every change of a log's answer, with its kind and date. */
const everyChange = (body: any) =>
  body.changes.flatMap((day: any) =>
    KINDS.flatMap((kind) => day[kind].map((change: any) => ({ kind, date: day.date, day, change }))),
  );

/** The whole log as the filters should leave it, worked out here: a date none of whose changes is kept is dropped. */
function filtered(body: any, directions: readonly string[] | undefined, minBps: number | undefined) {
  const keep = (c: any) =>
    (directions === undefined || directions.includes(c.direction)) &&
    (minBps === undefined || (c.bps !== null && Math.abs(c.bps) >= minBps));
  const changes = body.changes
    .map((day: any) => ({ ...day, ...Object.fromEntries(KINDS.map((k) => [k, day[k].filter(keep)])) }))
    .filter((day: any) => KINDS.some((k) => day[k].length > 0));
  return { ...body, changes };
}

describe.each(EACH)('%s: direction and bps', (slug, dataset) => {
  it('each change says which way it went and, for a rate, by how many basis points, as its two snapshots say', async () => {
    const changes = everyChange(whole[slug]);
    expect(changes.length).toBeGreaterThan(0);
    const snapshot = new Map<string, Map<string, { value: unknown }>>();
    const valuesAt = async (date: string) => {
      if (!snapshot.has(date))
        snapshot.set(date, valuesOf((await json(`/api/v1/${slug}/time-series?date=${date}`)).timeSeries[date].data));
      return snapshot.get(date)!;
    };
    const item = dataset.itemsKey === 'products' ? 'product' : 'plan';
    for (const { kind, day, change } of changes) {
      const id = change.rateId ?? `${change[`${item}Id`]}#${change.field}`;
      const [before, after] = [await valuesAt(day.previousDate), await valuesAt(day.date)];
      const from = before.get(id)?.value;
      const to = after.get(id)?.value;
      expect({ from: change.from, to: change.to }, `${day.date} ${id}`).toEqual({ from, to });
      expect({ direction: change.direction, bps: change.bps }, `${day.date} ${id}`).toEqual(
        expectedMovement({ ...change, kind, id, from, to }),
      );
    }
  });

  it('a rate that moved has a signed whole bps, down negative, up positive; new and gone have none', () => {
    for (const { kind, change } of everyChange(whole[slug])) {
      if (kind === 'added') expect(change).toMatchObject({ direction: 'new', bps: null });
      if (kind === 'removed') expect(change).toMatchObject({ direction: 'gone', bps: null });
      if (change.bps !== null) {
        expect(Number.isInteger(change.bps)).toBe(true);
        expect(Math.sign(change.bps)).toBe(change.direction === 'up' ? 1 : -1);
      }
    }
  });
});

describe('the history has every kind of move the fields tell apart', () => {
  const all = () => DATASETS.flatMap((d) => everyChange(whole[d.slug]).map((c: any) => ({ ...c, dataset: d })));

  it('rate moves up and down with bps, new and gone values', () => {
    for (const direction of ['up', 'down'])
      expect(all().some(({ change }) => change.direction === direction && change.bps !== null)).toBe(true);
    for (const direction of ['new', 'gone'])
      expect(all().some(({ change }) => change.direction === direction)).toBe(true);
  });

  it('an annual fee in dollars moves up or down with no bps; reworded text has no direction', () => {
    const fees = all().filter(({ change }) => change.field === 'annualFeeNZD' && typeof change.from === 'number');
    expect(fees.length).toBeGreaterThan(0);
    for (const { change } of fees) {
      expect(change.bps).toBeNull();
      expect(change.direction).toBe(change.to > change.from ? 'up' : 'down');
    }
    const texts = all().filter(({ kind, change }) => kind === 'changed' && typeof change.to === 'string');
    expect(texts.length).toBeGreaterThan(0);
    for (const { change } of texts) expect(change).toMatchObject({ direction: null, bps: null });
  });
});

describe.each(EACH)('%s: direction= and minBps=', (slug, dataset) => {
  const directionSets = [
    undefined,
    ['up'],
    ['down'],
    ['new'],
    ['gone'],
    ['up', 'down'],
    ['down', 'new'],
    [...DIRECTIONS],
  ];
  const thresholds = [undefined, 0, 10, 25, 100];
  const cases = directionSets.flatMap((directions) =>
    thresholds
      .filter((minBps) => directions !== undefined || minBps !== undefined)
      .map((minBps) => ({ directions, minBps })),
  );

  it('alone and together, keep exactly the changes they name, and only the dates left with one', async () => {
    const since = dates[slug]![0];
    let kept = 0;
    for (const { directions, minBps } of cases) {
      const query = [
        `since=${since}`,
        ...(directions ? [`direction=${directions.join(',')}`] : []),
        ...(minBps === undefined ? [] : [`minBps=${minBps}`]),
      ].join('&');
      const { response, text } = await rest(`${changesPath(dataset)}?${query}`);
      expect(response.status, query).toBe(200);
      const body = JSON.parse(text);
      expect(body, query).toEqual(filtered(whole[slug], directions, minBps));
      kept += everyChange(body).length;
    }
    expect(kept).toBeGreaterThan(0);
  });

  it(`with ${dataset.entity.param}, of that ${dataset.entity.kind} alone`, async () => {
    const since = dates[slug]![0];
    const { param } = dataset.entity;
    const id = everyChange(whole[slug])[0].change[param];
    const one = await json(`${changesPath(dataset)}?since=${since}&${param}=${id}`);
    for (const [directions, minBps] of [
      [['down'], 10],
      [['new', 'gone'], undefined],
      [undefined, 0],
    ] as const) {
      const query = `since=${since}&${param}=${id}${directions ? `&direction=${directions.join(',')}` : ''}${minBps === undefined ? '' : `&minBps=${minBps}`}`;
      expect(await json(`${changesPath(dataset)}?${query}`), query).toEqual(filtered(one, directions, minBps));
    }
  });

  it('minBps leaves out new and gone values (they have no bps), and every number that is not a rate', async () => {
    const since = dates[slug]![0];
    const withBps = everyChange(await json(`${changesPath(dataset)}?since=${since}&minBps=0`));
    expect(withBps.every(({ change }: any) => change.bps !== null)).toBe(true);
    expect(withBps.length).toBe(everyChange(whole[slug]).filter(({ change }: any) => change.bps !== null).length);
    for (const direction of ['new', 'gone']) {
      expect(everyChange(await json(`${changesPath(dataset)}?since=${since}&direction=${direction}`)).length).toBe(
        everyChange(whole[slug]).filter(({ change }: any) => change.direction === direction).length,
      );
      expect((await json(`${changesPath(dataset)}?since=${since}&direction=${direction}&minBps=0`)).changes).toEqual(
        [],
      );
    }
  });

  it('the same changes asked differently are one answer with one ETag; another filter is another', async () => {
    const base = `${changesPath(dataset)}?since=${dates[slug]![0]}`;
    const etag = async (query: string) => (await rest(`${base}&${query}`)).response.headers.get('etag');
    expect(await etag('direction=up,down&minBps=10')).toBe(await etag('direction=down,up,down&minBps=010'));
    expect(await etag('direction=up,down&minBps=10')).not.toBe(await etag('direction=up&minBps=10'));
    expect(await etag('minBps=10')).not.toBe(await etag('minBps=11'));
    expect(await etag('minBps=10')).not.toBe((await rest(base)).response.headers.get('etag'));
    const tag = (await etag('direction=down'))!;
    const again = await fetch(`${server.url}${base}&direction=down`, { headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
  });
});

describe('a direction or minBps not of its format', () => {
  const A = DATASETS[0];
  const bad = [
    ['direction', 'sideways'],
    ['direction', 'UP'],
    ['direction', 'up,'],
    ['direction', ',down'],
    ['direction', 'up,,down'],
    ['direction', 'up down'],
    ['direction', ''],
    ['minBps', '-5'],
    ['minBps', '2.5'],
    ['minBps', 'ten'],
    ['minBps', '1e3'],
    ['minBps', ''],
  ] as const;

  it.each(bad)(
    '%s=%s: 400 invalid_request, the documented body, a hint saying what it takes, no x-request-id',
    async (name, value) => {
      const path = `${changesPath(A)}?${name}=${encodeURIComponent(value)}`;
      for (const response of [
        await get(api, path, { headers: { 'x-request-id': 'req-1' } }),
        await fetch(`${server.url}${path}`, { headers: { 'x-request-id': 'req-1' } }),
      ]) {
        const body = await response.json();
        expect(response.status).toBe(400);
        expect(ErrorBody.parse(body)).toEqual(body);
        expect(body).toMatchObject({
          code: 400,
          error: 'invalid_request',
          documentationUrl: `${SITE}/docs/errors#invalid_request`,
        });
        expect(body.hint).toContain(`${name} must be`);
        if (name === 'direction') for (const word of DIRECTIONS) expect(body.hint).toMatch(new RegExp(`\\b${word}\\b`));
        else expect(body.hint).toContain('whole number');
        // A value of the wrong format: answered before the endpoint, without an id (/docs/concepts#x-request-id).
        expect(response.headers.get('x-request-id')).toBeNull();
      }
    },
  );
});

describe('the OpenAPI document', () => {
  it('lists direction and minBps, and every filtered answer meets the 200 schema', async () => {
    const { doc, ajv } = await documentOverHistory();
    for (const d of DATASETS) {
      const op = doc.paths[changesPath(d)].get;
      const params = Object.fromEntries(op.parameters.map((p: any) => [p.name, p.schema]));
      expect(params.direction.pattern).toBeDefined();
      expect(params.minBps.pattern).toBe('^\\d+$');
      const check = ajv.compile(op.responses['200'].content['application/json'].schema);
      for (const query of ['direction=up,down&minBps=10', 'direction=new,gone', 'minBps=0', 'direction=down']) {
        const body = await json(`${changesPath(d)}?since=${dates[d.slug]![0]}&${query}`);
        expect(check(body), `${d.slug} ${query}: ${ajv.errorsText(check.errors)}`).toBe(true);
      }
      expect(check(whole[d.slug])).toBe(true);
      // The examples hold a filtered answer and the 400 of an unknown direction.
      const examples = Object.values(op.responses['400'].content['application/json'].examples) as any[];
      expect(examples.some((e) => /direction must be/.test(e.value.hint))).toBe(true);
    }
  }, 60_000);
});

describe('the words the feeds and the summary say a move in', () => {
  const dataset = datasetOfSchema(MortgageInstitution);
  const cards = datasetOfSchema(CreditCardIssuer);
  const entity = (rates: Record<string, number>) => ({
    id: 'institution:odd',
    name: 'Odd Bank',
    products: [
      {
        id: 'product:odd:special',
        name: 'Special',
        rates: Object.entries(rates).map(([term, rate]) => ({
          id: `rate:odd:special:${term}`,
          rate,
          term: term === '1-year' ? ('1 year' as const) : ('2 years' as const),
          termInMonths: term === '1-year' ? 12 : 24,
        })),
      },
    ],
  });
  const day = (date: string, data: any[]): SnapshotData => ({ date, lastUpdated: `${date}T01:00:00.000Z`, data });
  const before = day('2025-01-01', [entity({ '1-year': 5.5, '2-years': 5.1 })]);
  const after = day('2025-01-02', [entity({ '1-year': 5.25, '3-years': 5.0 })]);
  // A third rate 2 years is gone, 3 years is new (named by its id's term).
  (after.data[0] as any).products[0].rates[1].term = '3 years';
  (after.data[0] as any).products[0].rates[1].termInMonths = 36;

  it('an Atom entry: "down 25 bps", "new", "gone", each list item with its direction and bps', () => {
    const xml = atomFeed(
      { kind: 'dataset', dataset },
      [{ dataset, days: changeDays(dataset, [before, after]), lastUpdated: after.lastUpdated }],
      'https://rates.example',
    );
    const $ = cheerio.load(xml, { xml: true });
    expect($('entry > title').text()).toBe(
      `${dataset.title} — Odd Bank · Special · 1 year: down 25 bps, 5.50 → 5.25 % and 2 more`,
    );
    const items = cheerio.load($('entry > content').text())('li');
    expect(items.map((_, li) => cheerio.load(li).text()).get()).toEqual([
      'Odd Bank · Special · 1 year: down 25 bps, 5.50 → 5.25 %',
      'Odd Bank · Special · 3 years: new, 5.00 %',
      'Odd Bank · Special · 2 years: gone, was 5.10 %',
    ]);
    expect(items.map((_, li) => [[li.attribs['data-direction'], li.attribs['data-bps']]]).get()).toEqual([
      ['"down"', '-25'],
      ['"new"', undefined],
      ['"gone"', undefined],
    ]);
  });

  it("the collector's summary: the same words", () => {
    expect(describeChanges(dataset, before.data, after.data).lines).toEqual([
      '- Odd Bank · Special · 1 year: down 25 bps, 5.5 → 5.25',
      '- Odd Bank · Special · 3 years: new, 5',
      '- Odd Bank · Special · 2 years: gone, was 5.1',
    ]);
  });

  it('a fee moves "up" with no basis points, in the feed as in the summary', async () => {
    const newest = (await newestSnapshots())[cards.slug];
    const plan = newest.data
      .flatMap((i: any) => i.plans.map((p: any) => ({ issuer: i, plan: p })))
      .find(({ plan }: any) => typeof plan.annualFeeNZD === 'number')!;
    const raised = structuredClone(newest.data);
    const copy = raised.flatMap((i: any) => i.plans).find((p: any) => p.id === plan.plan.id);
    copy.annualFeeNZD = plan.plan.annualFeeNZD + 50;
    const [a, b] = [day('2025-01-01', newest.data), day('2025-01-02', raised)];
    const label = `${plan.issuer.name} · ${plan.plan.name} · annual fee`;
    const xml = atomFeed(
      { kind: 'dataset', dataset: cards },
      [{ dataset: cards, days: changeDays(cards, [a, b]), lastUpdated: b.lastUpdated }],
      'https://rates.example',
    );
    const fee = (n: number) => `$${n.toLocaleString('en-NZ')}`;
    expect(cheerio.load(xml, { xml: true })('entry > title').text()).toBe(
      `${cards.title} — ${label}: up, ${fee(plan.plan.annualFeeNZD)} → ${fee(plan.plan.annualFeeNZD + 50)}`,
    );
    expect(describeChanges(cards, a.data, b.data).lines).toEqual([
      `- ${label}: up, ${plan.plan.annualFeeNZD} → ${plan.plan.annualFeeNZD + 50}`,
    ]);
  });

  it.each(EACH)(
    '%s: every feed entry over the real history says each move in its direction and bps',
    async (slug, d) => {
      const snapshots: SnapshotData[] = [];
      for (const date of dates[slug]!) {
        const { data, lastUpdated } = (await json(`/api/v1/${slug}/time-series?date=${date}`)).timeSeries[date];
        snapshots.push({ date, lastUpdated, data });
      }
      const source = { dataset: d, days: changeDays(d, snapshots), lastUpdated: snapshots.at(-1)!.lastUpdated };
      const $ = cheerio.load(atomFeed({ kind: 'dataset', dataset: d }, [source], SITE), { xml: true });
      /** The words of a move, worked out here from its direction and bps. */
      const words = (direction: string | null, bps: number | null) =>
        direction === null
          ? undefined
          : bps === null
            ? direction
            : `${direction} ${Math.abs(bps)} bp${Math.abs(bps) === 1 ? '' : 's'}`;
      const attribute = (li: any, name: string) =>
        li.attribs[`data-${name}`] === undefined ? null : JSON.parse(li.attribs[`data-${name}`]);
      const listed: string[] = [];
      for (const entry of $('entry').get()) {
        for (const li of cheerio.load($(entry).children('content').text())('li').get()) {
          const text = cheerio.load(li).text();
          const said = words(attribute(li, 'direction'), attribute(li, 'bps'));
          // After the label (entity · item · what): the words first, then the values.
          const move = text.slice(text.indexOf(': ', text.lastIndexOf(' · ')) + 2);
          if (said === undefined) expect(move, text).toMatch(/^[^,]+ → /);
          else expect(move.startsWith(`${said}, `), text).toBe(true);
          listed.push(`${li.attribs['data-id']}|${attribute(li, 'direction')}|${attribute(li, 'bps')}`);
        }
      }
      // Every change of the dates the feed holds, with the direction and bps the change log gives it.
      const shown = new Set(
        $('entry > id')
          .map((_, e) => $(e).text().slice(-10))
          .get(),
      );
      const item = d.itemsKey === 'products' ? 'product' : 'plan';
      const expected = everyChange(whole[slug])
        .filter(({ date }: any) => shown.has(date))
        .map(
          ({ change }: any) =>
            `${change.rateId ?? `${change[`${item}Id`]}#${change.field}`}|${change.direction}|${change.bps}`,
        );
      expect(listed.sort()).toEqual(expected.sort());
      expect(listed.length).toBeGreaterThan(0);
    },
  );
});

describe.each(EACH)('%s: the MCP twin', (slug, dataset) => {
  const { param } = dataset.entity;
  const call = (args: Record<string, unknown>, id = 1) =>
    sendMcp(server.url, modern('tools/call', { name: toolNamesOf(dataset).changes, arguments: args }, { id }));

  it('answers the JSON of the REST answer for the same parameters: text and structuredContent', async () => {
    const since = dates[slug]![0]!;
    const id = everyChange(whole[slug])[0].change[param];
    const cases: [Record<string, unknown>, string][] = [
      [{}, ''],
      [{ since }, `?since=${since}`],
      [{ since, direction: 'down,new', minBps: '10' }, `?since=${since}&direction=down,new&minBps=10`],
      [{ since, minBps: 25 }, `?since=${since}&minBps=25`],
      [{ since, [param]: id, direction: 'gone' }, `?since=${since}&${param}=${id}&direction=gone`],
    ];
    for (const [args, query] of cases) {
      const { json: answer } = await call(args);
      const { text } = await rest(`${changesPath(dataset)}${query}`);
      expect(answer.result.isError, query).toBeUndefined();
      expect(answer.result.content, query).toEqual([{ type: 'text', text }]);
      expect(answer.result.structuredContent, query).toEqual(JSON.parse(text));
    }
  });

  it('an unknown direction is a bad argument: isError from 2025-11-25, -32602 before, naming the four', async () => {
    const { json: answer } = await call({ direction: 'sideways' });
    expect(answer.result.isError).toBe(true);
    const body = JSON.parse(answer.result.content[0].text);
    expect(body.error).toBe('invalid_request');
    for (const word of DIRECTIONS) expect(body.hint).toMatch(new RegExp(`\\b${word}\\b`));
    const legacy = await postMcp(server.url, toolCall(2, toolNamesOf(dataset).changes, { minBps: '-1' }), {
      'mcp-protocol-version': '2025-06-18',
    });
    expect(legacy.json.error.code).toBe(-32602);
    expect(legacy.json.error.message).toMatch(/minBps must be a whole number/);
  });

  it('states its sizes: the default answer and the largest, the whole history, as REST answers them', async () => {
    const tools = (await sendMcp(server.url, modern('tools/list'))).json.result.tools;
    const tool = tools.find((t: any) => t.name === toolNamesOf(dataset).changes);
    const [, defaultSize, since, wholeSize] =
      /the default result \(the 30 days up to the newest snapshot\) is (\S+ KiB); the largest, the whole history \(since=(\S+), .*\), is (\S+ KiB)\./.exec(
        tool.description,
      )!;
    expect(defaultSize).toBe(size(Buffer.byteLength((await rest(changesPath(dataset))).text)));
    expect(since).toBe(dates[slug]![0]);
    expect(wholeSize).toBe(size(Buffer.byteLength((await rest(`${changesPath(dataset)}?since=${since}`)).text)));
    expect(tool.description).toContain(
      `One result may hold at most ${mib(LIMITS.resultBytes)}; the whole history fits.`,
    );
    expect(Object.keys(tool.inputSchema.properties)).toEqual(['since', 'until', param, 'direction', 'minBps']);
  });
});

describe('a change log past one tool result', () => {
  it('is a "Result too large" tool error saying how to narrow it; REST still answers it whole', async () => {
    // The dataset whose newest snapshot lists the most rates, every rate moved each day until the log is past the limit.
    const newest = await newestSnapshots();
    const dataset = [...DATASETS].sort(
      (a, b) => JSON.stringify(newest[b.slug].data).length - JSON.stringify(newest[a.slug].data).length,
    )[0]!;
    const dir = await treeOfNewest();
    const start = Date.parse(`${newestDates()[dataset.slug]}T00:00:00Z`);
    let data = newest[dataset.slug].data;
    const moved = (value: number, n: number) => Math.round((value + (n % 2 ? 0.05 : -0.05)) * 100) / 100;
    for (let n = 1; n <= 20; n++) {
      const date = new Date(start + n * 86_400_000).toISOString().slice(0, 10);
      data = JSON.parse(JSON.stringify(data), (key, value) =>
        (key === 'rate' || key.endsWith('Rate')) && typeof value === 'number' ? moved(value, n) : value,
      );
      await mkdir(join(dir, dataset.slug), { recursive: true });
      await writeFile(
        join(dir, dataset.slug, `${date}.json`),
        JSON.stringify({ type: newest[dataset.slug].type, data, lastUpdated: `${date}T01:00:00.000Z` }),
      );
    }
    const large = await serveService(await rawServiceOver(dir));
    try {
      const path = `${changesPath(dataset)}?since=2000-01-01`;
      const full = await fetch(`${large.url}${path}`);
      expect(full.status).toBe(200);
      expect(Buffer.byteLength(await full.text())).toBeGreaterThan(LIMITS.resultBytes);
      const { json: answer } = await sendMcp(
        large.url,
        modern('tools/call', { name: toolNamesOf(dataset).changes, arguments: { since: '2000-01-01' } }),
      );
      expect(answer.result.isError).toBe(true);
      expect(answer.result.structuredContent).toBeUndefined();
      const body = JSON.parse(answer.result.content[0].text);
      expect(body).toMatchObject({ error: 'invalid_request', message: 'Result too large' });
      expect(body.hint).toContain(`over ${mib(LIMITS.resultBytes)}`);
      expect(body.hint).toContain(
        `Pass a later since or an earlier until, ${dataset.entity.param} for one ${dataset.entity.kind}, or direction or minBps`,
      );
      // The description says the whole history does not fit, and how to narrow it.
      const tools = (await sendMcp(large.url, modern('tools/list'))).json.result.tools;
      expect(tools.find((t: any) => t.name === toolNamesOf(dataset).changes).description).toContain(
        `One result may hold at most ${mib(LIMITS.resultBytes)}: for the whole history, pass a later since`,
      );
      // Narrowed as it says, it fits.
      const narrowed = await sendMcp(
        large.url,
        modern('tools/call', { name: toolNamesOf(dataset).changes, arguments: { since: '2000-01-01', minBps: '6' } }),
      );
      expect(narrowed.json.result.isError).toBeUndefined();
    } finally {
      await large.close();
    }
  }, 120_000);
});
