/**
 * The MCP limits (src/mcp/protocol.ts LIMITS) and what tool results promise: the size figures in
 * the descriptions, and structuredContent valid against each tool's outputSchema.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { LIMITS, mib } from '../src/mcp/protocol.ts';
import { size } from '../src/mcp/sizes.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { rawServiceOver } from './support/core.ts';
import { EACH, examplesAt, largestDataset, toolNamesOf } from './support/datasets.ts';
import { historyDir, newestDates } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { MODERN, modern, postMcp, sendMcp, toolCall } from './support/mcp.ts';

let server: Listening;
/** The dataset with the longest history: the one whose whole time series is past the result limit. */
let large: Dataset;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
  large = await largestDataset(historyDir());
});
afterAll(() => server.close());

const post = (body: unknown, headers: Record<string, string> = {}) => postMcp(server.url, body, headers);

function call(version: string, name: string, args: Record<string, unknown>, id = 1) {
  if (version !== MODERN) return post(toolCall(id, name, args), { 'mcp-protocol-version': version });
  return sendMcp(server.url, modern('tools/call', { name, arguments: args }, { id }));
}

const tools = async (version = MODERN) =>
  (
    await (version === MODERN
      ? sendMcp(server.url, modern('tools/list'))
      : post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { 'mcp-protocol-version': version }))
  ).json.result.tools as { name: string; description: string; outputSchema?: object; inputSchema: object }[];

const rangeCall = (dataset: Dataset, id: number, days: number, end: string) =>
  toolCall(id, toolNamesOf(dataset).series, { startDate: minusDays(end, days - 1), endDate: end });
const minusDays = (date: string, days: number) =>
  new Date(Date.parse(date) - days * 86_400_000).toISOString().slice(0, 10);

describe(`one tool result holds at most ${mib(LIMITS.resultBytes)}`, () => {
  it.each(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
    '%s: the largest dataset’s full history is an isError result that says how to narrow it',
    async (version) => {
      const { json, bytes } = await call(version, toolNamesOf(large).series, {
        startDate: '2000-01-01',
        endDate: '2100-01-01',
      });
      expect(json.result.isError).toBe(true);
      expect(json.result.structuredContent).toBeUndefined();
      expect(json.result.content).toHaveLength(1);
      const body = JSON.parse(json.result.content[0].text);
      expect(body).toMatchObject({ code: 400, error: 'invalid_request', message: 'Result too large' });
      expect(body.hint).toContain(`over ${mib(LIMITS.resultBytes)}`);
      expect(body.hint).toContain(`${large.entity.param} for one ${large.entity.kind}`);
      expect(body.hint).toMatch(/startDate–endDate range of about \d+ days or less/);
      expect(body.documentationUrl).toMatch(/\/docs\/ai#limits$/);
      expect(bytes).toBeLessThan(2_000);
    },
  );

  it.each(EACH)(
    '%s: the sizes in the description are right: the range it names fits, one entity’s whole history fits, the whole history does not',
    async (_, dataset) => {
      const { kind, param } = dataset.entity;
      const tool = (await tools()).find((t) => t.name === toolNamesOf(dataset).series)!;
      const [, snapshotSize, count, , last] = new RegExp(
        `one snapshot of every ${kind} is (\\S+ KiB); there are (\\d+) snapshots \\((\\S+) to (\\S+)\\)`,
      ).exec(tool.description)!;
      const { list, timeSeries } = endpointsOf(dataset);
      const rest = await (await fetch(`${server.url}${list.path}`)).text();
      expect(snapshotSize).toBe(size(Buffer.byteLength(rest)));
      const full = await (
        await fetch(`${server.url}${timeSeries.path}?startDate=2000-01-01&endDate=2100-01-01`)
      ).text();
      expect(Object.keys(JSON.parse(full).timeSeries)).toHaveLength(Number(count));
      expect(last).toBe(newestDates()[dataset.slug]);
      const range = / range of about (\d+) days or less\./.exec(tool.description)?.[1];
      const whole = await call('2026-07-28', tool.name, { startDate: '2000-01-01', endDate: '2100-01-01' });
      if (range === undefined) {
        // The whole history fits, and the description says so.
        expect(tool.description).toContain('the whole history fits');
        expect(whole.json.result.isError).toBeUndefined();
        return;
      }
      expect(whole.json.result.isError).toBe(true);
      const dates: string[] = JSON.parse(full).availableDates;
      for (const end of [last!, ...dates.filter((_, i) => i % 15 === 0)]) {
        const fits = await post(rangeCall(dataset, 1, Number(range), end), { 'mcp-protocol-version': '2025-11-25' });
        expect(fits.json.result.isError, `${range} days to ${end}`).toBeUndefined();
        expect(Buffer.byteLength(fits.json.result.content[0].text)).toBeLessThanOrEqual(LIMITS.resultBytes);
      }
      if (tool.description.includes(`${param} for one ${kind} with a range`)) return;
      const one = await call('2026-07-28', tool.name, {
        startDate: '2000-01-01',
        endDate: '2100-01-01',
        [param]: dataset.exampleEntityId,
      });
      expect(one.json.result.isError).toBeUndefined();
      expect(JSON.parse(one.json.result.content[0].text)).toEqual(one.json.result.structuredContent);
    },
  );

  it("every dataset tool's description states sizes", async () => {
    const sized = new Set(TOOLS.filter((t) => t.sizes).map((t) => t.name));
    for (const tool of (await tools()).filter((t) => sized.has(t.name))) {
      expect(tool.description, tool.name).toMatch(/Sizes?: .*\d+(\.\d)? KiB/);
      if (tool.name.endsWith('_time_series'))
        expect(tool.description).toContain(`One result may hold at most ${mib(LIMITS.resultBytes)}`);
    }
  });
});

describe('a header-less batch does bounded work', () => {
  it(`past ${LIMITS.batchToolCalls} tools/call requests, each further call gets a -32000 error naming the limit`, async () => {
    const batch = Array.from({ length: LIMITS.batchToolCalls + 5 }, (_, i) =>
      toolCall(i, toolNamesOf(DATASETS[i % DATASETS.length]!).list, {}),
    );
    const { status, json } = await post([{ jsonrpc: '2.0', id: 'p', method: 'ping' }, ...batch]);
    expect(status).toBe(200);
    expect(json).toHaveLength(batch.length + 1);
    const byId = new Map(json.map((r: any) => [r.id, r]));
    for (let i = 0; i < batch.length; i++) {
      const reply = byId.get(i) as any;
      if (i < LIMITS.batchToolCalls) expect(reply.result.content[0].type).toBe('text');
      else {
        expect(reply.error).toMatchObject({
          code: -32000,
          data: { limit: 'batchToolCalls', max: LIMITS.batchToolCalls },
        });
        expect(reply.error.message).toMatch(
          /at most 20 tools\/call requests.*Send the remaining calls in another request/,
        );
      }
    }
  });

  it(`past ${LIMITS.responseBytes / 2 ** 20} MiB of answers, each further call gets a -32000 error saying how to narrow it`, async () => {
    const dates: string[] = (await (await fetch(`${server.url}${endpointsOf(large).timeSeries.path}`)).json())
      .availableDates;
    const days = Number(
      /range of about (\d+) days/.exec(
        (await tools()).find((t) => t.name === toolNamesOf(large).series)!.description,
      )![1],
    );
    const batch = Array.from({ length: 12 }, (_, i) => rangeCall(large, i, days, dates.at(-1)!));
    const { json, bytes } = await post(batch);
    expect(json.map((r: any) => r.id).sort((a: number, b: number) => a - b)).toEqual(batch.map((m) => m.id));
    const answered = json.filter((r: any) => r.result && !r.result.isError);
    const refused = json.filter((r: any) => r.error);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const reply of refused) {
      expect(reply.error).toMatchObject({ code: -32000, data: { limit: 'responseBytes', max: LIMITS.responseBytes } });
      expect(reply.error.message).toMatch(/at most 4 MiB.*request of its own, or narrow it/);
    }
    expect(bytes).toBeLessThanOrEqual(LIMITS.responseBytes);
  });

  it(`a batch of more than ${LIMITS.batchMessages} messages is refused whole: 400 -32600 naming the limit`, async () => {
    const { status, json } = await post(
      Array.from({ length: LIMITS.batchMessages + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })),
    );
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32600, data: { limit: 'batchMessages', max: LIMITS.batchMessages } });
  });
});

describe('outputSchema', () => {
  it('every tool declares one from 2025-06-18 on, none before', async () => {
    for (const version of ['2026-07-28', '2025-11-25', '2025-06-18'])
      for (const tool of await tools(version))
        expect(tool.outputSchema, `${version} ${tool.name}`).toMatchObject({ type: 'object' });
    for (const version of ['2025-03-26', '2024-11-05'])
      for (const tool of await tools(version)) expect(tool.outputSchema).toBeUndefined();
  });

  /**
   * Calls of every tool: its example from the tool table, and for the datasets' tools their list
   * (with every filter it takes), an entity, and its time series in four ways.
   */
  const CALLS: [string, Record<string, string>][] = [
    ...TOOLS.map((tool) => [tool.name, tool.example] as [string, Record<string, string>]),
    ...DATASETS.flatMap((d, n) => {
      const names = toolNamesOf(d);
      const { param } = d.entity;
      const newest = newestDates()[d.slug];
      const bare = d.exampleEntityId.slice(d.exampleEntityId.indexOf(':') + 1);
      return [
        [names.list, examplesAt(d, 'list')],
        // The first dataset's entity by its bare slug, the others' by their whole id.
        [names.detail, { [param]: n === 0 ? bare : d.exampleEntityId }],
        [names.series, { startDate: minusDays(newest, 30), endDate: newest, [param]: d.exampleEntityId }],
        [names.series, {}],
        [names.series, { date: newest, ...Object.fromEntries(d.ignoredTimeSeriesParams.map((p) => [p, 'ignored'])) }],
      ] as [string, Record<string, string>][];
    }),
  ];

  it('structuredContent of every tool is valid against its outputSchema, and equal to the text', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const schemas = new Map((await tools()).map((t) => [t.name, ajv.compile(t.outputSchema!)]));
    expect(new Set(CALLS.map(([name]) => name)).size).toBe(TOOLS.length);
    for (const [name, args] of CALLS) {
      const { json } = await call('2026-07-28', name, args);
      expect(json.result.isError, name).toBeUndefined();
      const validate = schemas.get(name)!;
      expect(
        validate(json.result.structuredContent),
        `${name}: ${JSON.stringify(validate.errors)?.slice(0, 500)}`,
      ).toBe(true);
      expect(JSON.parse(json.result.content[0].text)).toEqual(json.result.structuredContent);
    }
  });
});
