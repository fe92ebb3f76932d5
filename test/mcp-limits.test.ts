/**
 * The MCP limits (src/mcp/protocol.ts LIMITS) and what tool results promise: the size figures in
 * the descriptions, and structuredContent valid against each tool's outputSchema.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, mib } from '../src/mcp/protocol.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { MODERN, modern, postMcp, sendMcp, toolCall } from './support/mcp.ts';

let server: Listening;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
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

const rangeCall = (id: number, days: number, end: string) =>
  toolCall(id, 'get_mortgage_rates_time_series', { startDate: minusDays(end, days - 1), endDate: end });
const minusDays = (date: string, days: number) =>
  new Date(Date.parse(date) - days * 86_400_000).toISOString().slice(0, 10);

describe(`one tool result holds at most ${mib(LIMITS.resultBytes)}`, () => {
  it.each(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
    '%s: the full mortgage history is an isError result that says how to narrow it',
    async (version) => {
      const { json, bytes } = await call(version, 'get_mortgage_rates_time_series', {
        startDate: '2000-01-01',
        endDate: '2100-01-01',
      });
      expect(json.result.isError).toBe(true);
      expect(json.result.structuredContent).toBeUndefined();
      expect(json.result.content).toHaveLength(1);
      const body = JSON.parse(json.result.content[0].text);
      expect(body).toMatchObject({ code: 400, error: 'invalid_request', message: 'Result too large' });
      expect(body.hint).toContain(`over ${mib(LIMITS.resultBytes)}`);
      expect(body.hint).toMatch(
        /Pass institutionId for one institution, or a startDate–endDate range of about \d+ days or less\./,
      );
      expect(body.documentationUrl).toMatch(/\/docs\/ai#limits$/);
      expect(bytes).toBeLessThan(2_000);
    },
  );

  it('the sizes in the description are right: the range it names fits, one institution’s whole history fits, the whole history does not', async () => {
    const tool = (await tools()).find((t) => t.name === 'get_mortgage_rates_time_series')!;
    const [, snapshotKb, count, , last, totalMb, days] =
      /one snapshot of every institution is about (\d+) KB, of one institution about [\d.]+ KB; there are (\d+) snapshots \((\S+) to (\S+)\), about ([\d.]+) MB in all\. .* range of about (\d+) days or less\./.exec(
        tool.description,
      )!;
    const rest = await (await fetch(`${server.url}/api/v1/mortgage-rates`)).text();
    expect(Math.abs(Number(snapshotKb) * 1024 - Buffer.byteLength(rest))).toBeLessThan(1024);
    const full = await (
      await fetch(`${server.url}/api/v1/mortgage-rates/time-series?startDate=2000-01-01&endDate=2100-01-01`)
    ).text();
    expect(Number(totalMb) * 2 ** 20).toBeGreaterThan(Buffer.byteLength(full) * 0.8);
    expect(Number(totalMb) * 2 ** 20).toBeLessThan(Buffer.byteLength(full) * 1.25);
    expect(Object.keys(JSON.parse(full).timeSeries)).toHaveLength(Number(count));

    const dates: string[] = JSON.parse(full).availableDates;
    for (const end of [last!, ...dates.filter((_, i) => i % 15 === 0)]) {
      const fits = await post(rangeCall(1, Number(days), end), { 'mcp-protocol-version': '2025-11-25' });
      expect(fits.json.result.isError, `${days} days to ${end}`).toBeUndefined();
      expect(Buffer.byteLength(fits.json.result.content[0].text)).toBeLessThanOrEqual(LIMITS.resultBytes);
    }
    const one = await call('2026-07-28', 'get_mortgage_rates_time_series', {
      startDate: '2000-01-01',
      endDate: '2100-01-01',
      institutionId: 'institution:asb',
    });
    expect(one.json.result.isError).toBeUndefined();
    expect(JSON.parse(one.json.result.content[0].text)).toEqual(one.json.result.structuredContent);
  });

  it('the other descriptions state sizes too', async () => {
    for (const tool of await tools()) {
      expect(tool.description, tool.name).toMatch(/Sizes?: .*\d+ KB/);
      if (tool.name.endsWith('_time_series'))
        expect(tool.description).toContain(`One result may hold at most ${mib(LIMITS.resultBytes)}`);
    }
  });
});

describe('a header-less batch does bounded work', () => {
  it(`past ${LIMITS.batchToolCalls} tools/call requests, each further call gets a -32000 error naming the limit`, async () => {
    const batch = Array.from({ length: LIMITS.batchToolCalls + 5 }, (_, i) => toolCall(i, 'list_car_loan_rates', {}));
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
    const dates: string[] = (await (await fetch(`${server.url}/api/v1/mortgage-rates/time-series`)).json())
      .availableDates;
    const days = Number(
      /range of about (\d+) days/.exec(
        (await tools()).find((t) => t.name === 'get_mortgage_rates_time_series')!.description,
      )![1],
    );
    const batch = Array.from({ length: 12 }, (_, i) => rangeCall(i, days, dates.at(-1)!));
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

  const CALLS: [string, Record<string, string>][] = [
    ['list_mortgage_rates', { termInMonths: '12' }],
    ['get_mortgage_rates_by_institution', { institutionId: 'asb' }],
    [
      'get_mortgage_rates_time_series',
      { startDate: '2025-02-01', endDate: '2025-03-05', institutionId: 'institution:anz' },
    ],
    ['get_mortgage_rates_time_series', {}],
    ['list_personal_loan_rates', {}],
    ['get_personal_loan_rates_by_institution', { institutionId: 'institution:asb' }],
    ['get_personal_loan_rates_time_series', { date: '2025-02-04' }],
    ['list_car_loan_rates', {}],
    ['get_car_loan_rates_by_institution', { institutionId: 'institution:asb' }],
    ['get_car_loan_rates_time_series', { startDate: '2024-06-01', endDate: '2024-12-31' }],
    ['list_credit_card_rates', {}],
    ['get_credit_card_rates_by_issuer', { issuerId: 'issuer:amex' }],
    ['get_credit_card_rates_time_series', { date: '2025-01-07', institutionId: 'ignored' }],
  ];

  it('structuredContent of every tool is valid against its outputSchema, and equal to the text', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const schemas = new Map((await tools()).map((t) => [t.name, ajv.compile(t.outputSchema!)]));
    expect(new Set(CALLS.map(([name]) => name)).size).toBe(12);
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
