/**
 * Raw HTTP against the MCP endpoint: every header, error and version rule of the transport, as
 * the docs site states them (/docs/ai, "Protocol versions" and "Errors").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { createMcpCore } from '../src/mcp/endpoint.ts';
import { restToolsOf } from '../src/mcp/rest-tools.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { rawServiceOver } from './support/core.ts';
import { filtersAt, IGNORING, toolNamesOf } from './support/datasets.ts';
import { historyDir, newestDates } from './support/history.ts';
import { type Listening, nodeRequest, serveMcpCore, serveService } from './support/http.ts';
import { JSON_HEADERS, MCP_PATH, META, metaFor, modern as request, postMcp, sendMcp } from './support/mcp.ts';

let server: Listening;
const responses: Response[] = [];
/** Two datasets' tools (any two: the rules are the same for every tool). */
const A = DATASETS[0];
const B = DATASETS.at(-1)!;
const TA = toolNamesOf(A);
const TB = toolNamesOf(B);
/** The filters that take whole numbers: an MCP argument of theirs may be a JSON number. */
const WHOLE = filtersAt('list').filter(({ filter }) => filter.wholeNumber);

beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
});
afterAll(() => server.close());

/** POST a JSON-RPC body to the endpoint (or to `base`'s), keeping every response for the last check. */
async function post(body: unknown, headers: Record<string, string> = {}, base = server.url) {
  const answer = await postMcp(base, body, headers);
  responses.push(answer.response);
  return answer;
}

/** A 2026-07-28 request with every header right; `headers` and `meta` override. */
async function modern(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  meta: Record<string, unknown> = META,
) {
  const answer = await sendMcp(server.url, request(method, params, { id: 7, headers, meta }));
  responses.push(answer.response);
  return answer;
}

/** A 2025-era request (id 1, or a notification when `id` is null); `version` undefined sends no MCP-Protocol-Version header. */
function legacy(version: string | undefined, method: string, params?: unknown, id: number | null = 1) {
  return post(
    { jsonrpc: '2.0', ...(id === null ? {} : { id }), method, ...(params ? { params } : {}) },
    version ? { 'mcp-protocol-version': version } : {},
  );
}

describe('transport', () => {
  it.each(['GET', 'DELETE'])('%s is 405', async (method) => {
    const response = await fetch(`${server.url}/api/v1/mcp`, { method, headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect((await response.json()).error.code).toBe(-32000);
  });

  it('answers a CORS preflight for the MCP headers', async () => {
    const response = await fetch(`${server.url}/api/v1/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-protocol-version, mcp-method',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('bound to loopback: a foreign Host gets 403 with CORS headers; the loopback names and the site’s own domain are answered', async () => {
    const { mcpAllowedHostsFromEnv } = await import('../src/mcp/allowed-hosts.ts');
    const allowedHosts = mcpAllowedHostsFromEnv({ HOST: '127.0.0.1' });
    const guarded = await serveService(
      await rawServiceOver(historyDir(), { mcp: { allowedHosts, siteUrl: 'https://rates.example.org' } }),
    );
    const send = async (port: string, host: string) => {
      const { status, headers, text } = await nodeRequest(`http://127.0.0.1:${port}${MCP_PATH}`, {
        method: 'POST',
        headers: { host, ...JSON_HEADERS },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      return { status, headers, body: text };
    };
    const port = new URL(guarded.url).port;
    const evil = await send(port, 'evil.example.com');
    expect(evil.status).toBe(403);
    expect(evil.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(evil.body).error).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/Invalid Host "evil\.example\.com"/),
    });
    for (const host of ['localhost', `127.0.0.1:${port}`, '[::1]', 'rates.example.org', 'RATES.example.org:443'])
      expect((await send(port, host)).status, host).toBe(200);
    expect((await send(new URL(server.url).port, 'any.example.net')).status).toBe(200); // no allow-list: every host
    await guarded.close();
  });

  it('MCP_ALLOWED_HOSTS adds names to the loopback names and the site’s own, whatever HOST is; `*` lets every host in', async () => {
    const { mcpAllowedHostsFromEnv } = await import('../src/mcp/allowed-hosts.ts');
    const send = async (url: string, host: string) => {
      const { status, text } = await nodeRequest(`${url}${MCP_PATH}`, {
        method: 'POST',
        headers: { host, ...JSON_HEADERS },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      return { status, body: text };
    };
    for (const HOST of ['127.0.0.1', '0.0.0.0']) {
      const allowedHosts = mcpAllowedHostsFromEnv({ HOST, MCP_ALLOWED_HOSTS: ' example.org , api.example.net' });
      const guarded = await serveService(
        await rawServiceOver(historyDir(), { mcp: { allowedHosts, siteUrl: 'https://rates.example.org' } }),
      );
      const port = new URL(guarded.url).port;
      for (const host of [
        'localhost',
        `127.0.0.1:${port}`,
        '[::1]',
        'rates.example.org',
        'example.org',
        'api.example.net:8080',
      ])
        expect((await send(guarded.url, host)).status, `${HOST} ${host}`).toBe(200);
      const evil = await send(guarded.url, 'evil.test');
      expect(evil.status).toBe(403);
      expect(JSON.parse(evil.body)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message:
            'Forbidden: Invalid Host "evil.test". This server answers MCP requests for localhost, 127.0.0.1, [::1], example.org, api.example.net, rates.example.org only (DNS-rebinding protection); set MCP_ALLOWED_HOSTS to add names.',
        },
      });
      await guarded.close();
    }
    const open = await serveService(
      await rawServiceOver(historyDir(), {
        mcp: { allowedHosts: mcpAllowedHostsFromEnv({ HOST: '127.0.0.1', MCP_ALLOWED_HOSTS: 'example.org,*' }) },
      }),
    );
    expect((await send(open.url, 'evil.test')).status).toBe(200);
    await open.close();
  });
});

describe('2026-07-28', () => {
  it('server/discover: versions, capabilities, server info, instructions, cache hints', async () => {
    const { status, json } = await modern('server/discover');
    expect(status).toBe(200);
    expect(json.result).toMatchObject({
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: { listChanged: false } },
      resultType: 'complete',
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'nz-rates', version: '1.0.0' } },
    });
    for (const d of DATASETS) expect(json.result.instructions).toContain(d.exampleEntityId);
    expect(json.result.instructions).toMatch(/startDate and endDate/);
  });

  it('tools/list: every tool, cacheable for an hour', async () => {
    const { json } = await modern('tools/list');
    expect(json.result.tools.map((t: any) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(json.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(json.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('nz-rates');
  });

  it('tools/call: complete result with server info, text and structuredContent', async () => {
    const { json } = await modern('tools/call', { name: TB.list, arguments: {} });
    expect(json.result.resultType).toBe('complete');
    expect(json.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('nz-rates');
    expect(json.result.structuredContent.type).toBe(B.type);
    expect(JSON.parse(json.result.content[0].text)).toEqual(json.result.structuredContent);
    expect(json.result.ttlMs).toBeUndefined();
  });

  it.each([
    ['MCP-Protocol-Version missing', { 'mcp-protocol-version': '' }],
    ['MCP-Protocol-Version different from _meta', { 'mcp-protocol-version': '2025-11-25' }],
    ['Mcp-Method missing', { 'mcp-method': '' }],
    ['Mcp-Method different from the body', { 'mcp-method': 'tools/call' }],
  ])('%s: 400 -32020', async (_, headers) => {
    const cleaned = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ''));
    const omitted = Object.keys(headers).filter((k) => headers[k as keyof typeof headers] === '');
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };
    const all: Record<string, string> = {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      ...cleaned,
    };
    for (const key of omitted) delete all[key];
    const { status, json } = await post(body, all);
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32020);
  });

  it.each([
    ['Mcp-Name missing', {}],
    ['Mcp-Name different from params.name', { 'mcp-name': TB.detail }],
  ])('tools/call with %s: 400 -32020', async (_, nameHeader) => {
    const { status, json } = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: TB.list, arguments: {}, _meta: META },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', ...nameHeader },
    );
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32020);
  });

  it('a missing _meta field: 400 -32602', async () => {
    const { status, json } = await modern(
      'tools/list',
      {},
      {},
      { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
    );
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32602);
  });

  it('an unsupported version: 400 -32022 listing the supported versions', async () => {
    const { status, json } = await modern(
      'tools/list',
      {},
      { 'mcp-protocol-version': '2027-01-01' },
      { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' },
    );
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32022);
    expect(json.error.data.supported).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  });

  it.each(['resources/subscribe', 'ping', 'initialize', 'no/such/method'])('%s: 404 -32601', async (method) => {
    const { status, json } = await modern(method);
    expect(status).toBe(404);
    expect(json.error.code).toBe(-32601);
  });

  it('an unknown tool is -32602; a bad argument is an isError result with the REST error body, the hint naming the tool’s arguments', async () => {
    expect((await modern('tools/call', { name: 'list_no_such_rates', arguments: {} })).json.error.code).toBe(-32602);
    const rest = await (await fetch(`${server.url}${endpointsOf(A).list.path}?colour=blue`)).json();
    expect(rest).toMatchObject({ code: 400, error: 'invalid_request', message: 'Invalid request parameters' });
    const calls: [string, Record<string, unknown>][] = [
      ...WHOLE.flatMap(({ dataset, filter }): [string, Record<string, unknown>][] => [
        [toolNamesOf(dataset).list, { [filter.name]: 12.5 }],
        [toolNamesOf(dataset).list, { [filter.name]: 'twelve' }],
      ]),
      [TA.list, { colour: 'blue' }],
    ];
    for (const [name, args] of calls) {
      const { json } = await modern('tools/call', { name, arguments: args });
      expect(json.result.isError, JSON.stringify(args)).toBe(true);
      const body = JSON.parse(json.result.content[0].text);
      const { hint, ...same } = rest;
      expect(body, JSON.stringify(args)).toMatchObject(same);
      expect(Object.keys(body)).toEqual(Object.keys(rest));
      expect(body.hint).toEqual(expect.any(String));
    }
  });

  it('an argument with a lone surrogate is an ordinary not-found, not an internal error', async () => {
    const { json } = await modern('tools/call', {
      name: TA.detail,
      arguments: { [A.entity.param]: 'anz\uD800' },
    });
    expect(json.result.isError).toBe(true);
    expect(JSON.parse(json.result.content[0].text).error).toBe(A.entity.notFound);
  });

  it('a notification is 202 with no body', async () => {
    const { status, text } = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: META } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'notifications/cancelled' },
    );
    expect(status).toBe(202);
    expect(text).toBe('');
  });
});

describe('legacy versions', () => {
  const init = (version: string) =>
    legacy(undefined, 'initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
    'initialize at %s keeps that version',
    async (version) => {
      const { status, json } = await init(version);
      expect(status).toBe(200);
      expect(json.result).toMatchObject({
        protocolVersion: version,
        serverInfo: { name: 'nz-rates' },
        capabilities: { tools: { listChanged: false } },
      });
      for (const d of DATASETS) expect(json.result.instructions).toContain(d.exampleEntityId);
    },
  );

  it('initialize with an unsupported version gets 2025-11-25', async () => {
    expect((await init('2023-01-01')).json.result.protocolVersion).toBe('2025-11-25');
    expect((await init('2026-07-28')).json.result.protocolVersion).toBe('2025-11-25');
  });

  it('ping, tools/list and tools/call work on their own, without a session', async () => {
    expect((await legacy('2025-11-25', 'ping')).json.result).toEqual({});
    expect((await legacy('2025-06-18', 'tools/list')).json.result.tools).toHaveLength(TOOLS.length);
    expect((await legacy(undefined, 'tools/call', { name: TB.list, arguments: {} })).json.result.content[0].type).toBe(
      'text',
    );
  });

  it('structuredContent only from 2025-06-18', async () => {
    const call = (v: string) =>
      legacy(v, 'tools/call', { name: TB.detail, arguments: { [B.entity.param]: B.exampleEntityId } });
    expect((await call('2025-03-26')).json.result.structuredContent).toBeUndefined();
    expect((await call('2024-11-05')).json.result.structuredContent).toBeUndefined();
    expect((await call('2025-06-18')).json.result.structuredContent.type).toBe(B.type);
    expect((await call('2025-11-25')).json.result.structuredContent.type).toBe(B.type);
  });

  it('a bad argument: -32602 before 2025-11-25, an isError result from 2025-11-25', async () => {
    const call = (v: string | undefined) =>
      legacy(v, 'tools/call', { name: TA.detail, arguments: { [A.entity.param]: true } });
    for (const v of [undefined, '2025-06-18', '2024-11-05']) expect((await call(v)).json.error.code, v).toBe(-32602);
    const { json } = await call('2025-11-25');
    expect(json.result.isError).toBe(true);
    expect(JSON.parse(json.result.content[0].text)).toMatchObject({
      error: 'invalid_request',
      message: 'Invalid request parameters', // the REST endpoint's, for the same mistake
    });
  });

  it('an unknown tool: -32601 "Tool not found" before 2025-11-25, -32602 from 2025-11-25', async () => {
    const call = (v: string) => legacy(v, 'tools/call', { name: 'list_no_such_rates', arguments: {} });
    expect((await call('2025-06-18')).json.error).toEqual({ code: -32601, message: 'Tool not found' });
    expect((await call('2025-03-26')).json.error).toEqual({ code: -32601, message: 'Tool not found' });
    expect((await call('2025-11-25')).json.error.code).toBe(-32602);
  });

  it('no header means 2025-03-26, and such a request may be a batch, answered with an array', async () => {
    const { status, json } = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: TB.list, arguments: {} } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect(status).toBe(200);
    expect(json.map((r: { id: number }) => r.id).sort()).toEqual([1, 2]);
    expect(json.find((r: { id: number }) => r.id === 2).result.structuredContent).toBeUndefined();
  });

  it('a batch under 2025-06-18 or later: 400 -32600', async () => {
    const { status, json } = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }], {
      'mcp-protocol-version': '2025-06-18',
    });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32600);
  });

  it('a notification: 202, no body', async () => {
    const { status, text } = await legacy('2025-06-18', 'notifications/initialized', undefined, null);
    expect(status).toBe(202);
    expect(text).toBe('');
  });

  it('a body that is not JSON: 400 -32700; not JSON-RPC: -32600', async () => {
    const bad = await post('{"jsonrpc": "2.0", "id": 1, "method": ', { 'mcp-protocol-version': '2025-06-18' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe(-32700);
    const notRpc = await post({ hello: 'world' }, { 'mcp-protocol-version': '2025-06-18' });
    expect(notRpc.status).toBe(400);
    expect(notRpc.json.error.code).toBe(-32600);
  });

  it('a server failure: -32603 Internal error, with nothing of the cause', async () => {
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    const broken = await serveMcpCore(
      createMcpCore({ kept: () => undefined, get: () => Promise.reject(new Error('disk on fire at /var/secret')) }),
    );
    try {
      const { json, text } = await post(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TB.list, arguments: {} } },
        { 'mcp-protocol-version': '2025-11-25' },
        broken.url,
      );
      expect(json.error).toEqual({ code: -32603, message: 'Internal error' });
      expect(text).not.toContain('secret');
      expect(logged).toHaveLength(1);
    } finally {
      console.error = original;
      await broken.close();
    }
  });
});

describe('version rules', () => {
  const ALL = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

  it.each(['2030-01-01', '2024-10-07', 'latest'])(
    'MCP-Protocol-Version %s without _meta: 400 -32022 with the supported versions in error.data',
    async (version) => {
      const { status, json } = await legacy(version, 'tools/list');
      expect(status).toBe(400);
      expect(json.error.code).toBe(-32022);
      expect(json.error.data).toEqual({ supported: ALL, requested: version });
      expect(json.id).toBe(1);
    },
  );

  it('a request whose _meta names 2025-11-25 is served in 2025-11-25', async () => {
    const meta = metaFor('2025-11-25');
    const list = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(list.status).toBe(200);
    expect(list.json.result.tools).toHaveLength(TOOLS.length);
    expect(list.json.result.resultType).toBeUndefined();
    const call = await post({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: TA.list, arguments: { colour: 'x' }, _meta: meta },
    });
    expect(call.json.result.isError).toBe(true);
    const clash = await post(
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: meta } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect([clash.status, clash.json.error.code]).toEqual([400, -32020]);
  });

  it('a 2026-07-28 notification needs the headers too: 400 -32020 without them, 202 with them', async () => {
    const body = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: META } };
    const bare = await post(body);
    expect([bare.status, bare.json.error.code]).toEqual([400, -32020]);
    const noMethod = await post(body, { 'mcp-protocol-version': '2026-07-28' });
    expect([noMethod.status, noMethod.json.error.code]).toEqual([400, -32020]);
    expect(
      (await post(body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'notifications/cancelled' })).status,
    ).toBe(202);
  });

  it.each(['application/json', 'text/event-stream', 'text/html'])(
    'Accept: %s is 406 in 2026-07-28 as in the legacy versions',
    async (accept) => {
      const modernReply = await modern('tools/list', {}, { accept });
      expect([modernReply.status, modernReply.json.error.code]).toEqual([406, -32000]);
      const legacyReply = await post(
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { 'mcp-protocol-version': '2025-06-18', accept },
      );
      expect(legacyReply.status).toBe(406);
    },
  );

  it('an invalid request with a valid id is answered with that id', async () => {
    const { status, json } = await post('{"jsonrpc":"2.0","id":7,"method":5}');
    expect(status).toBe(400);
    expect(json).toMatchObject({ id: 7, error: { code: -32600 } });
    expect((await post('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}')).json.id).toBeNull();
  });
});

describe('ids come back exactly as sent', () => {
  /** Numbers a double cannot hold or would write otherwise, and a string with escapes. */
  const IDS = ['9007199254740993', '1.0', '1e3', '-0', '12345678901234567890.50', '"a\\u0041\\/"'];

  it.each(IDS)('%s: a result, an error and a refusal name it byte for byte', async (id) => {
    const ping = await post(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    expect(ping.text).toBe(`{"jsonrpc":"2.0","id":${id},"result":{}}`);
    const unknown = await post(` { "method" : "no/such" , "id" : ${id} , "jsonrpc" : "2.0" } `);
    expect(unknown.text).toBe(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`);
    const invalid = await post(`{"jsonrpc":"2.0","id":${id},"method":5}`);
    expect(invalid.status).toBe(400);
    expect(invalid.text.startsWith(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,`)).toBe(true);
  });

  it('a tool result, made afresh and kept for its second, carries each caller’s id as sent', async () => {
    const sent = request('tools/call', { name: TA.list, arguments: {} }, { id: 7 });
    for (const id of ['9007199254740993', '1.0', '-0']) {
      const { status, text } = await sendMcp(server.url, { ...sent, body: sent.body.replace('"id":7', `"id":${id}`) });
      expect(status).toBe(200);
      expect(text.startsWith(`{"jsonrpc":"2.0","id":${id},"result":{`)).toBe(true);
    }
  });

  it('each message of a batch, and a repeated id member is the last one, as JSON reads it', async () => {
    const { status, text } = await post(
      `[{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
        `{"jsonrpc":"2.0","id":1e3,"method":"no/such"},{"id":"x","jsonrpc":"2.0","id":-0,"method":"ping","params":{"id":1.5}}]`,
    );
    expect(status).toBe(200);
    expect(text).toBe(
      '[{"jsonrpc":"2.0","id":9007199254740993,"result":{}},' +
        '{"jsonrpc":"2.0","id":1e3,"error":{"code":-32601,"message":"Method not found"}},' +
        '{"jsonrpc":"2.0","id":-0,"result":{}}]',
    );
  });

  it('an id that is no JSON-RPC id as read (1e400 is not finite) is still refused, with a null id', async () => {
    const { status, json } = await post('{"jsonrpc":"2.0","id":1e400,"method":"ping"}');
    expect(status).toBe(400);
    expect(json).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe('arguments and texts, as an agent reads them', () => {
  const call = (version: string, name: string, args: unknown) =>
    version === '2026-07-28'
      ? modern('tools/call', { name, arguments: args })
      : legacy(version, 'tools/call', { name, arguments: args });
  const errorBody = (json: any) => JSON.parse(json.result.content[0].text);

  it.each([
    ['start after end', { startDate: '2025-03-01', endDate: '2025-01-01' }, /Start date cannot be after end date/],
    ['startDate alone', { startDate: '2025-03-01' }, /startDate needs endDate/],
    [
      'date with a range',
      { date: '2025-03-05', startDate: '2025-03-01', endDate: '2025-03-05' },
      /either date, or startDate with endDate/,
    ],
  ])(
    'a date-combination error (%s) is a bad argument: -32602 before 2025-11-25, isError from then',
    async (_, args, text) => {
      for (const version of ['2025-06-18', '2025-03-26', '2024-11-05']) {
        const { json } = await call(version, TA.series, args);
        expect(json.error.code, version).toBe(-32602);
        expect(json.error.message).toMatch(text);
      }
      for (const version of ['2025-11-25', '2026-07-28']) {
        const { json } = await call(version, TA.series, args);
        expect(json.result.isError, version).toBe(true);
        expect(`${errorBody(json).message} ${errorBody(json).hint}`).toMatch(text);
      }
    },
  );

  it.each(IGNORING.flatMap((d) => d.ignoredTimeSeriesParams.map((param) => [d.slug, param, d] as const)))(
    'the %s time series takes %s and ignores it, as REST does',
    async (_, param, d) => {
      const date = newestDates()[d.slug];
      const other = d.entity.prefix === 'issuer' ? 'institution' : 'issuer';
      const args = { date, [param]: `${other}:anz` };
      const rest = await (
        await fetch(`${server.url}${endpointsOf(d).timeSeries.path}?date=${date}&${param}=${other}:anz`)
      ).json();
      const { json } = await call('2026-07-28', toolNamesOf(d).series, args);
      expect(json.result.isError).toBeUndefined();
      expect(json.result.structuredContent).toEqual({ ...rest, timestamp: json.result.structuredContent.timestamp });
      const tool = (await modern('tools/list')).json.result.tools.find((t: any) => t.name === toolNamesOf(d).series);
      expect(tool.inputSchema.properties[param].description).toMatch(/ignored/);
    },
  );

  it('error texts name the tool to call, not a REST request', async () => {
    const { param, prefix, kind } = B.entity;
    const missing = errorBody((await call('2026-07-28', TB.detail, { [param]: `${prefix}:nobody` })).json);
    expect(missing.hint).toContain(`${TB.list} lists every ${kind}`);
    const noData = errorBody((await call('2026-07-28', TA.series, { date: '2020-01-01' })).json);
    expect(noData.error).toBe('no_data');
    expect(noData.hint).toContain(`Call ${TA.series} without date arguments`);
    const { json } = await modern('tools/list');
    for (const tool of json.result.tools) {
      expect(`${tool.description} ${JSON.stringify(tool.inputSchema)}`, tool.name).not.toMatch(/GET \/api|\/api\/v1/);
    }
    for (const body of [missing, noData]) expect(JSON.stringify(body)).not.toMatch(/GET \/api/);
  });

  it('every example id in the tool descriptions is in that dataset', async () => {
    const { json } = await modern('tools/list');
    for (const tool of json.result.tools.filter((t: any) => t.name.includes('_by_'))) {
      const example = /e\.g\. ((?:institution|issuer):[a-z-]+)/.exec(tool.description)![1]!;
      const list = (await call('2026-07-28', tool.name.replace(/^get_(.*)_by_\w+$/, 'list_$1'), {})).json.result
        .structuredContent;
      expect(
        list.data.map((e: any) => e.id),
        `${tool.name}: ${example}`,
      ).toContain(example);
    }
  });

  it('an unknown argument names the arguments the tool takes; only a type error says "string"', async () => {
    const series = restToolsOf(B)[2]!;
    const unknown = errorBody((await call('2026-07-28', TB.series, { colour: 'blue' })).json);
    expect(unknown.hint).toBe(
      `${TB.series} does not take "colour". ${TB.series} takes: ${Object.keys(series.inputSchema.properties ?? {}).join(', ')}.`,
    );
    expect(unknown.hint).toContain(`takes: date, startDate, endDate, ${B.entity.param}`);
    const format = errorBody((await call('2026-07-28', TB.series, { date: '5 March' })).json);
    expect(format.hint).toMatch(/^date .*\(got "5 March"\)\.$/);
    expect(format.hint).not.toMatch(/string/);
    const { param } = A.entity;
    const typed = errorBody((await call('2026-07-28', TA.detail, { [param]: 5 })).json);
    expect(typed.hint).toBe(`${param} must be a string: send "${param}": "5".`);
    const legacyTyped = (await call('2025-06-18', TA.detail, { [param]: 12.5 })).json;
    expect(legacyTyped.error.message).toBe(`Invalid params: ${param} must be a string: send "${param}": "12.5".`);
  });

  describe.each(WHOLE.map(({ dataset, filter }) => [filter.name, dataset, filter] as const))(
    '%s, whole numbers',
    (name, dataset, filter) => {
      const list = toolNamesOf(dataset).list;
      it.each(['2026-07-28', '2025-11-25', '2025-03-26'])(
        'as a JSON number it is taken as its digits (%s), and the schema says so',
        async (version) => {
          const asNumber = (await call(version, list, { [name]: Number(filter.example) })).json.result;
          const asString = (await call(version, list, { [name]: filter.example })).json.result;
          expect(asNumber.isError).toBeUndefined();
          const data = (r: any) => JSON.parse(r.content[0].text).data;
          expect(data(asNumber)).toEqual(data(asString));
          const tool = (await modern('tools/list')).json.result.tools.find((t: any) => t.name === list);
          expect(tool.inputSchema.properties[name]).toMatchObject({ type: 'string', pattern: '^\\d+$' });
          expect(tool.inputSchema.properties[name].description).toContain(
            `a JSON number (${filter.example}) is accepted too`,
          );
          const typed = (await call('2025-06-18', list, { [name]: 12.5 })).json;
          expect(typed.error.message).toBe(`Invalid params: ${name} must be a string: send "${name}": "12.5".`);
        },
      );
    },
  );
});

describe('x-request-id', () => {
  it('every MCP answer carries one: the caller’s safe id echoed, else a new one; the preflight none', async () => {
    const echoed = await modern('tools/list', {}, { 'x-request-id': 'agent-42' });
    expect(echoed.headers.get('x-request-id')).toBe('agent-42');
    const made = await legacy('2025-06-18', 'ping');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await post(
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'mcp-protocol-version': '2025-06-18', accept: 'text/html', 'x-request-id': 'r1' },
    );
    expect([refused.status, refused.headers.get('x-request-id')]).toEqual([406, 'r1']);
    const preflight = await fetch(`${server.url}/api/v1/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('x-request-id')).toBeNull();
    expect(echoed.headers.get('access-control-expose-headers')).toContain('x-request-id');
  });
});

describe('every response', () => {
  it('carries no Mcp-Session-Id', () => {
    expect(responses.length).toBeGreaterThan(30);
    for (const response of responses) expect(response.headers.get('mcp-session-id')).toBeNull();
  });
});
