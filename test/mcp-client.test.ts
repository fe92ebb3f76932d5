/** The official MCP client against the real HTTP server, at 2026-07-28 and at every legacy version. */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_VERSIONS, MODERN_VERSION } from '../src/mcp/server.ts';
import { serveService } from './support/http.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';

let server: Awaited<ReturnType<typeof serveService>>;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
});
afterAll(() => server.close());

/** One call per tool, with the REST request that must give the same JSON. */
const CALLS: [tool: string, args: Record<string, string>, rest: string][] = [
  ['list_mortgage_rates', { termInMonths: '12' }, '/api/v1/mortgage-rates?termInMonths=12'],
  [
    'get_mortgage_rates_by_institution',
    { institutionId: 'institution:ANZ', termInMonths: '24' },
    '/api/v1/mortgage-rates/institution%3AANZ?termInMonths=24',
  ],
  [
    'get_mortgage_rates_time_series',
    { startDate: '2025-03-01', endDate: '2025-03-05', institutionId: 'kiwibank' },
    '/api/v1/mortgage-rates/time-series?startDate=2025-03-01&endDate=2025-03-05&institutionId=kiwibank',
  ],
  ['list_personal_loan_rates', {}, '/api/v1/personal-loan-rates'],
  [
    'get_personal_loan_rates_by_institution',
    { institutionId: 'institution:anz' },
    '/api/v1/personal-loan-rates/institution:anz',
  ],
  [
    'get_personal_loan_rates_time_series',
    { date: '2025-02-04' },
    '/api/v1/personal-loan-rates/time-series?date=2025-02-04',
  ],
  ['list_car_loan_rates', {}, '/api/v1/car-loan-rates'],
  ['get_car_loan_rates_by_institution', { institutionId: 'institution:asb' }, '/api/v1/car-loan-rates/institution:asb'],
  ['get_car_loan_rates_time_series', {}, '/api/v1/car-loan-rates/time-series'],
  ['list_credit_card_rates', {}, '/api/v1/credit-card-rates'],
  ['get_credit_card_rates_by_issuer', { issuerId: 'issuer:amex' }, '/api/v1/credit-card-rates/issuer:amex'],
  [
    'get_credit_card_rates_time_series',
    { date: '2025-01-07', issuerId: 'issuer:amex' },
    '/api/v1/credit-card-rates/time-series?date=2025-01-07&issuerId=issuer:amex',
  ],
];

async function connect(version: string) {
  const client =
    version === MODERN_VERSION
      ? new Client({ name: 'rates-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_VERSION } } })
      : new Client({ name: 'rates-test', version: '1.0.0' }, { supportedProtocolVersions: [version] });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/v1/mcp`));
  await client.connect(transport);
  return { client, transport };
}

describe.each([MODERN_VERSION, ...LEGACY_VERSIONS])('the official client at %s', (version) => {
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  beforeAll(async () => {
    ({ client, transport } = await connect(version));
  });
  afterAll(() => client.close());

  it('negotiates that version and holds no session', () => {
    expect(transport.protocolVersion).toBe(version);
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect(transport.sessionId).toBeUndefined();
    expect(client.getServerVersion()).toMatchObject({ name: 'nz-rates', version: '1.0.0' });
    expect(client.getInstructions()).toMatch(/institution:asb/);
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
  });

  it('lists the twelve tools, titled, read-only, with string-only arguments', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(CALLS.map(([name]) => name).sort());
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      for (const property of Object.values(tool.inputSchema.properties ?? {}))
        expect((property as { type: string }).type).toBe('string');
    }
    const mortgage = tools.find((t) => t.name === 'get_mortgage_rates_by_institution')!;
    expect(mortgage.inputSchema.required).toEqual(['institutionId']);
    expect(Object.keys(mortgage.inputSchema.properties!)).toEqual(['institutionId', 'termInMonths']);
  });

  it.each(CALLS)('%s returns exactly what the REST endpoint returns', async (name, args, rest) => {
    const result = await client.callTool({ name, arguments: args });
    const expected = await (await fetch(`${server.url}${rest}`)).json();
    expect(result.isError ?? false).toBe(false);
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0]!.type).toBe('text');
    expect(JSON.parse(content[0]!.text)).toEqual(expected);
    if (version >= '2025-06-18') expect(result.structuredContent).toEqual(expected);
    else expect(result.structuredContent).toBeUndefined();
  });

  it('turns a REST error into an isError result carrying the error body', async () => {
    const result = await client.callTool({
      name: 'get_car_loan_rates_by_institution',
      arguments: { institutionId: 'institution:nobody' },
    });
    expect(result.isError).toBe(true);
    const body = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(body).toMatchObject({ code: 404, error: 'institution_not_found', message: 'Institution not found' });
  });
});
