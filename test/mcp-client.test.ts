/** The official MCP client against the real HTTP server, at 2026-07-28 and at every legacy version. */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_VERSIONS, MODERN_VERSION } from '../src/mcp/server.ts';
import { serveService } from './support/http.ts';
import { rawServiceOver } from './support/core.ts';
import { DATASETS, filtersOf } from '../src/datasets.ts';
import { toolCallCases, toolNamesOf } from './support/datasets.ts';
import { historyDir, newestDates } from './support/history.ts';

let server: Awaited<ReturnType<typeof serveService>>;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
});
afterAll(() => server.close());

/** One call per tool (and one per ignored parameter), with the REST request that must give the same JSON. */
const CALLS = toolCallCases(newestDates()).map(({ tool, args, rest }) => [tool, args, rest] as const);

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
    for (const d of DATASETS) expect(client.getInstructions()).toContain(d.exampleEntityId);
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
  });

  it('lists every tool, titled, read-only, with string-only arguments', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...new Set(CALLS.map(([name]) => name))].sort());
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      for (const property of Object.values(tool.inputSchema.properties ?? {}))
        expect((property as { type: string }).type).toBe('string');
    }
    for (const d of DATASETS) {
      const detail = tools.find((t) => t.name === toolNamesOf(d).detail)!;
      expect(detail.inputSchema.required).toEqual([d.entity.param]);
      expect(Object.keys(detail.inputSchema.properties!)).toEqual([
        d.entity.param,
        ...filtersOf(d, 'detail').map((f) => f.name),
      ]);
    }
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
    const d = DATASETS.at(-1)!;
    const result = await client.callTool({
      name: toolNamesOf(d).detail,
      arguments: { [d.entity.param]: `${d.entity.prefix}:nobody` },
    });
    expect(result.isError).toBe(true);
    const body = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(body).toMatchObject({ code: 404, error: d.entity.notFound, message: `${d.entity.label} not found` });
  });
});
