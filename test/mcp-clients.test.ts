/**
 * The real-client matrix: the MCP clients people use, pinned as devDependencies, each
 * connecting over HTTP to the production server (`npm start`'s build, one for the whole matrix),
 * listing the tools and running the same table of cases in every protocol version the client can
 * speak, each result compared with the REST answer to the same query. A client's own known bug is
 * recorded in KNOWN_CLIENT_BUGS with its version and issue link, and not worked around here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS, installedVersion, KNOWN_CLIENT_BUGS, type Outcome, type Session } from './support/mcp-clients.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';
import { DATASETS } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { filtersAt, toolCallCases, toolNamesOf } from './support/datasets.ts';
import { historyDir, newestDates, tempDir } from './support/history.ts';
import { nodeRequest } from './support/http.ts';
import { JSON_HEADERS, LEGACY, MCP_PATH } from './support/mcp.ts';
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from '@modelcontextprotocol/client';

let server: ProductionSite;
const seen: string[] = [];

beforeAll(async () => {
  server = await buildAndServe({
    name: 'mcp-clients',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-clients-status-'),
  });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  const bugs = Object.entries(KNOWN_CLIENT_BUGS).flatMap(([name, list]) =>
    list.map((b) => `- ${name} ${b.version}: ${b.bug} (${b.link})`),
  );
  console.log(
    ['MCP client matrix (client version · protocol version · cases):', ...seen, 'Known client bugs:', ...bugs].join(
      '\n',
    ),
  );
});

type Case =
  | { kind: 'valid'; tool: string; args: Record<string, string>; rest: string }
  | { kind: 'rest-error'; tool: string; args: Record<string, string>; rest: string }
  | { kind: 'bad-argument'; tool: string; args: Record<string, string>; text: RegExp }
  | { kind: 'unknown-tool'; tool: string; args: Record<string, string> };

const [A, B] = [DATASETS[0], DATASETS.at(-1)!];
const [TA, TB] = [toolNamesOf(A), toolNamesOf(B)];
/** A filter whose values have a format, to get wrong. */
const formatted = filtersAt('list')[0];

/** The table every client runs: a valid call of every tool, REST errors, bad arguments, an unknown tool. */
const CASES: Case[] = [
  ...toolCallCases(newestDates()).map((c): Case => ({ kind: 'valid', ...c })),
  {
    kind: 'rest-error',
    tool: TB.detail,
    args: { [B.entity.param]: `${B.entity.prefix}:nobody` },
    rest: `${endpointsOf(B).list.path}/${B.entity.prefix}:nobody`,
  },
  {
    kind: 'rest-error',
    tool: TA.series,
    args: { date: '2020-01-01' },
    rest: `${endpointsOf(A).timeSeries.path}?date=2020-01-01`,
  },
  ...(formatted
    ? [
        {
          kind: 'bad-argument' as const,
          tool: toolNamesOf(formatted.dataset).list,
          args: { [formatted.filter.name]: 'twelve' },
          text: new RegExp(formatted.filter.name),
        },
      ]
    : []),
  { kind: 'bad-argument', tool: TB.series, args: { colour: 'blue' }, text: /colour/ },
  {
    kind: 'bad-argument',
    tool: TA.series,
    args: { startDate: '2025-03-01', endDate: '2025-01-01' },
    text: /Start date cannot be after end date/,
  },
  { kind: 'unknown-tool', tool: 'list_no_such_rates', args: {} },
];

/**
 * A REST body without what the clock alone sets: its timestamp (each answer has its own), and the
 * status figures' window, which ends at the answer's time.
 */
const timeless = (body: Record<string, unknown>) => {
  const { timestamp: _ignored, ...rest } = body;
  const window = rest.window as Record<string, unknown> | undefined;
  if (window && typeof window === 'object') {
    const { from: _from, to: _to, ...kept } = window;
    rest.window = kept;
  }
  return rest;
};
const restJson = async (path: string) =>
  (await fetch(`${server.url}${path}`)).json() as Promise<Record<string, unknown>>;
const describeOutcome = (o: Outcome) => JSON.stringify(o).slice(0, 400);

/** What the caller must see for one case, in one version. */
async function check(c: Case, outcome: Outcome, version: string, showsStructured: boolean) {
  const atLeast = (v: string) => version >= v;
  switch (c.kind) {
    case 'valid': {
      expect(outcome.kind, describeOutcome(outcome)).toBe('result');
      if (outcome.kind !== 'result') return;
      const expected = timeless(await restJson(c.rest));
      expect(outcome.isError).toBe(false);
      expect(timeless(JSON.parse(outcome.text))).toEqual(expected);
      if (showsStructured && atLeast('2025-06-18'))
        expect(timeless(outcome.structured as Record<string, unknown>)).toEqual(expected);
      if (showsStructured && !atLeast('2025-06-18')) expect(outcome.structured).toBeUndefined();
      return;
    }
    case 'rest-error': {
      expect(outcome.kind, describeOutcome(outcome)).toBe('result');
      if (outcome.kind !== 'result') return;
      const rest = await restJson(c.rest);
      expect(outcome.isError).toBe(true);
      const body = JSON.parse(outcome.text);
      expect({ code: body.code, error: body.error, message: body.message }).toEqual({
        code: rest.code,
        error: rest.error,
        message: rest.message,
      });
      expect(body.hint).not.toMatch(/GET \/api|\/api\/v1/);
      return;
    }
    case 'bad-argument': {
      if (outcome.kind === 'refused') return; // the client's own schema check stopped it first
      if (atLeast('2025-11-25')) {
        expect(outcome.kind, describeOutcome(outcome)).toBe('result');
        if (outcome.kind !== 'result') return;
        expect(outcome.isError).toBe(true);
        const body = JSON.parse(outcome.text);
        expect(body).toMatchObject({ code: 400, error: 'invalid_request' });
        expect(`${body.message} ${body.hint}`).toMatch(c.text);
      } else {
        expect(outcome, describeOutcome(outcome)).toMatchObject({ kind: 'error', code: -32602 });
        if (outcome.kind === 'error') expect(outcome.message).toMatch(c.text);
      }
      return;
    }
    case 'unknown-tool': {
      if (outcome.kind === 'unavailable') return; // the client only calls tools the server listed
      expect(outcome, describeOutcome(outcome)).toMatchObject({
        kind: 'error',
        code: atLeast('2025-11-25') ? -32602 : -32601,
      });
      if (!atLeast('2025-11-25') && outcome.kind === 'error') expect(outcome.message).toMatch(/Tool not found/);
    }
  }
}

describe.each(CLIENTS)('$label', (client) => {
  const clientVersion = installedVersion(client.packageName);

  describe.each(client.versions)(`${client.packageName} ${clientVersion} at %s`, (version) => {
    let session: Session;
    const outcomes: string[] = [];
    beforeAll(async () => {
      session = await client.connect(`${server.url}${MCP_PATH}`, version);
    }, 60_000);
    afterAll(async () => {
      await session?.close();
      seen.push(`| ${client.packageName} ${clientVersion} | ${version} | ${outcomes.join(', ')} |`);
    });

    it('speaks that version and lists every tool', async () => {
      expect(session.version).toBe(version);
      const tools = await session.tools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        [...new Set(CASES.filter((c) => c.kind === 'valid').map((c) => c.tool))].sort(),
      );
      if (client.showsStructured)
        for (const tool of tools) expect(tool.outputSchema === undefined, tool.name).toBe(version < '2025-06-18');
    });

    it.each(CASES)(
      '$kind: $tool $args',
      async (c) => {
        const outcome = await session.call(c.tool, c.args);
        outcomes.push(
          outcome.kind === 'result'
            ? outcome.isError
              ? 'isError'
              : 'ok'
            : outcome.kind === 'error'
              ? String(outcome.code)
              : outcome.kind,
        );
        await check(c, outcome, version, client.showsStructured);
      },
      30_000,
    );
  });
});

describe.each(['2026-07-28', ...LEGACY])(
  'the production server’s resources and prompts, through the official client at %s',
  (version) => {
    let client: Client2;
    beforeAll(async () => {
      client =
        version === '2026-07-28'
          ? new Client2({ name: 'rates-matrix', version: '1.0.0' }, { versionNegotiation: { mode: { pin: version } } })
          : new Client2({ name: 'rates-matrix', version: '1.0.0' }, { supportedProtocolVersions: [version] });
      await client.connect(new Http2(new URL(`${server.url}${MCP_PATH}`)));
    }, 60_000);
    afterAll(() => client?.close());

    it('every resource reads as its URI serves it: each docs page’s Markdown, /openapi/json, each dataset’s list', async () => {
      const { resources } = await client.listResources();
      const paths = resources.map((r) => r.uri.slice(server.url.length));
      expect(paths).toContain('/docs.md');
      expect(paths).toContain('/docs/quickstart.md');
      expect(paths).toContain('/openapi/json');
      for (const d of DATASETS) expect(paths).toContain(endpointsOf(d).list.path);
      for (const resource of resources) {
        expect(resource.uri.startsWith(`${server.url}/`), resource.uri).toBe(true);
        const [{ contents }, response] = await Promise.all([
          client.readResource({ uri: resource.uri }),
          fetch(resource.uri, { headers: { accept: '*/*' } }),
        ]);
        expect(response.status, resource.uri).toBe(200);
        expect(response.headers.get('content-type'), resource.uri).toMatch(new RegExp(`^${resource.mimeType}\\b`));
        const text = (contents[0] as { text: string }).text;
        const served = await response.text();
        if (resource.uri.includes('/api/v1/')) expect(timeless(JSON.parse(text))).toEqual(timeless(JSON.parse(served)));
        else expect(text, resource.uri).toBe(served);
        expect(Buffer.byteLength(text), resource.uri).toBe(resource.size);
      }
    }, 60_000);

    it('lists the prompts and gets one', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual([
        'compare_lenders_for_term',
        'check_quote',
        'what_changed_this_week',
        'fix_or_float',
      ]);
      const { messages } = await client.getPrompt({ name: 'what_changed_this_week', arguments: {} });
      for (const d of DATASETS)
        expect((messages[0]!.content as { text: string }).text).toContain(`get_${d.slug.replaceAll('-', '_')}_changes`);
    });
  },
);

describe('the production server’s MCP edges', () => {
  const post = async (host: string, headers: Record<string, string> = {}) => {
    const { port } = new URL(server.url);
    const {
      status,
      headers: answered,
      text,
    } = await nodeRequest(`http://127.0.0.1:${port}${MCP_PATH}`, {
      method: 'POST',
      headers: { host, ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    return { status, headers: answered, body: text };
  };

  it('stamps x-request-id on MCP answers, refusals included', async () => {
    const { port } = new URL(server.url);
    const ok = await post(`127.0.0.1:${port}`, { 'x-request-id': 'agent-7' });
    expect([ok.status, ok.headers['x-request-id']]).toEqual([200, 'agent-7']);
    const refused = await post('evil.example', { 'x-request-id': 'agent-8' });
    expect([refused.status, refused.headers['x-request-id']]).toEqual([403, 'agent-8']);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(refused.body).error.code).toBe(-32000);
  });

  it('documents the 403 (and the other refusals) in OpenAPI', async () => {
    const openapi = await (await fetch(`${server.url}/openapi/json`)).json();
    const { post, get, delete: del } = openapi.paths['/api/v1/mcp'];
    const responses = post.responses;
    expect(Object.keys(responses).sort()).toEqual([
      '200',
      '202',
      '400',
      '403',
      '404',
      '406',
      '413',
      '415',
      '500',
      'default',
    ]);
    expect(responses['403'].description).toMatch(/Invalid Host.*CORS/s);
    // GET and DELETE are operations of their own, answered 405 (or 403 for a Host not allowed).
    for (const op of [get, del]) expect(Object.keys(op.responses).sort()).toEqual(['403', '405', 'default']);
  });
});
