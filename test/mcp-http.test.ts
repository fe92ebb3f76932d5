/** Raw HTTP against the MCP endpoint: every row of spec §4.7's header, error and version rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpoint } from '../src/mcp/endpoint.ts';
import { serveHandler } from './fixtures/http-adapter.ts';
import { historyDir, serviceOver } from './helpers.ts';

type Served = Awaited<ReturnType<typeof serveHandler>>;
let server: Served;
const responses: Response[] = [];

beforeAll(async () => {
  server = await serveHandler(await serviceOver(historyDir()));
});
afterAll(() => server.close());

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function post(body: unknown, headers: Record<string, string> = {}, base = server.url) {
  const response = await fetch(`${base}/api/v1/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  responses.push(response);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

/** A 2026-07-28 request with every header right; `headers` and `meta` override. */
function modern(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, meta: Record<string, unknown> = META) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return post({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: meta } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name, ...headers });
}

/** A 2025-era request (id 1, or a notification when `id` is null); `version` undefined sends no MCP-Protocol-Version header. */
function legacy(version: string | undefined, method: string, params?: unknown, id: number | null = 1) {
  return post({ jsonrpc: '2.0', ...(id === null ? {} : { id }), method, ...(params ? { params } : {}) }, version ? { 'mcp-protocol-version': version } : {});
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
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-protocol-version, mcp-method' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('rejects a foreign Host when bound to loopback (DNS rebinding), and accepts it when public', async () => {
    const guarded = await serveHandler(createMcpEndpoint(await serviceOver(historyDir()), { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] }));
    const { request } = await import('node:http');
    const status = (port: string, host: string) =>
      new Promise<number>((done) => {
        const req = request({ host: '127.0.0.1', port, path: '/api/v1/mcp', method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
          res.resume();
          done(res.statusCode!);
        });
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      });
    expect(await status(new URL(guarded.url).port, 'evil.example.com')).toBe(403);
    expect(await status(new URL(guarded.url).port, 'localhost')).toBe(200);
    expect(await status(new URL(server.url).port, 'rates.example.org')).toBe(200);
    await guarded.close();
  });
});

describe('2026-07-28', () => {
  it('server/discover: versions, capabilities, server info, instructions, cache hints', async () => {
    const { status, json } = await modern('server/discover');
    expect(status).toBe(200);
    expect(json.result).toMatchObject({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: false } },
      resultType: 'complete',
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'nz-rates', version: '1.0.0' } },
    });
    expect(json.result.instructions).toMatch(/institution:anz/);
    expect(json.result.instructions).toMatch(/startDate and endDate/);
  });

  it('tools/list: twelve tools, cacheable for an hour', async () => {
    const { json } = await modern('tools/list');
    expect(json.result.tools).toHaveLength(12);
    expect(json.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(json.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('nz-rates');
  });

  it('tools/call: complete result with server info, text and structuredContent', async () => {
    const { json } = await modern('tools/call', { name: 'list_car_loan_rates', arguments: {} });
    expect(json.result.resultType).toBe('complete');
    expect(json.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('nz-rates');
    expect(json.result.structuredContent.type).toBe('CarLoanRates');
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
    const all: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', ...cleaned };
    for (const key of omitted) delete all[key];
    const { status, json } = await post(body, all);
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32020);
  });

  it.each([
    ['Mcp-Name missing', {}],
    ['Mcp-Name different from params.name', { 'mcp-name': 'list_mortgage_rates' }],
  ])('tools/call with %s: 400 -32020', async (_, nameHeader) => {
    const { status, json } = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_car_loan_rates', arguments: {}, _meta: META } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', ...nameHeader },
    );
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32020);
  });

  it('a missing _meta field: 400 -32602', async () => {
    const { status, json } = await modern('tools/list', {}, {}, { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32602);
  });

  it('an unsupported version: 400 -32022 listing the supported versions', async () => {
    const { status, json } = await modern('tools/list', {}, { 'mcp-protocol-version': '2027-01-01' }, { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32022);
    expect(json.error.data.supported).toEqual(['2026-07-28']);
  });

  it.each(['resources/list', 'ping', 'initialize', 'no/such/method'])('%s: 404 -32601', async (method) => {
    const { status, json } = await modern(method);
    expect(status).toBe(404);
    expect(json.error.code).toBe(-32601);
  });

  it('an unknown tool is -32602; a bad argument is an isError result with the error body', async () => {
    expect((await modern('tools/call', { name: 'list_savings_rates', arguments: {} })).json.error.code).toBe(-32602);
    for (const args of [{ termInMonths: 12 }, { termInMonths: 'twelve' }, { colour: 'blue' }]) {
      const { json } = await modern('tools/call', { name: 'list_mortgage_rates', arguments: args });
      expect(json.result.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.parse(json.result.content[0].text)).toMatchObject({ code: 400, error: 'invalid_request' });
    }
  });

  it('an argument with a lone surrogate is an ordinary not-found, not an internal error', async () => {
    const { json } = await modern('tools/call', { name: 'get_mortgage_rates_by_institution', arguments: { institutionId: 'anz\uD800' } });
    expect(json.result.isError).toBe(true);
    expect(JSON.parse(json.result.content[0].text).error).toBe('institution_not_found');
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
  const init = (version: string) => legacy(undefined, 'initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])('initialize at %s keeps that version', async (version) => {
    const { status, json } = await init(version);
    expect(status).toBe(200);
    expect(json.result).toMatchObject({ protocolVersion: version, serverInfo: { name: 'nz-rates' }, capabilities: { tools: { listChanged: false } } });
    expect(json.result.instructions).toMatch(/issuer:amex/);
  });

  it('initialize with an unsupported version gets 2025-11-25', async () => {
    expect((await init('2023-01-01')).json.result.protocolVersion).toBe('2025-11-25');
    expect((await init('2026-07-28')).json.result.protocolVersion).toBe('2025-11-25');
  });

  it('ping, tools/list and tools/call work on their own, without a session', async () => {
    expect((await legacy('2025-11-25', 'ping')).json.result).toEqual({});
    expect((await legacy('2025-06-18', 'tools/list')).json.result.tools).toHaveLength(12);
    expect((await legacy(undefined, 'tools/call', { name: 'list_credit_card_rates', arguments: {} })).json.result.content[0].type).toBe('text');
  });

  it('structuredContent only from 2025-06-18', async () => {
    const call = (v: string) => legacy(v, 'tools/call', { name: 'get_credit_card_rates_by_issuer', arguments: { issuerId: 'issuer:amex' } });
    expect((await call('2025-03-26')).json.result.structuredContent).toBeUndefined();
    expect((await call('2024-11-05')).json.result.structuredContent).toBeUndefined();
    expect((await call('2025-06-18')).json.result.structuredContent.type).toBe('CreditCardRates');
    expect((await call('2025-11-25')).json.result.structuredContent.type).toBe('CreditCardRates');
  });

  it('a bad argument: -32602 before 2025-11-25, an isError result from 2025-11-25', async () => {
    const call = (v: string | undefined) => legacy(v, 'tools/call', { name: 'list_mortgage_rates', arguments: { termInMonths: 12 } });
    for (const v of [undefined, '2025-06-18', '2024-11-05']) expect((await call(v)).json.error.code, v).toBe(-32602);
    const { json } = await call('2025-11-25');
    expect(json.result.isError).toBe(true);
    expect(JSON.parse(json.result.content[0].text).error).toBe('invalid_request');
  });

  it('an unknown tool: -32601 "Tool not found" before 2025-11-25, -32602 from 2025-11-25', async () => {
    const call = (v: string) => legacy(v, 'tools/call', { name: 'list_savings_rates', arguments: {} });
    expect((await call('2025-06-18')).json.error).toEqual({ code: -32601, message: 'Tool not found' });
    expect((await call('2025-03-26')).json.error).toEqual({ code: -32601, message: 'Tool not found' });
    expect((await call('2025-11-25')).json.error.code).toBe(-32602);
  });

  it('no header means 2025-03-26, and such a request may be a batch, answered with an array', async () => {
    const { status, json } = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_car_loan_rates', arguments: {} } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect(status).toBe(200);
    expect(json.map((r: { id: number }) => r.id).sort()).toEqual([1, 2]);
    expect(json.find((r: { id: number }) => r.id === 2).result.structuredContent).toBeUndefined();
  });

  it('a batch under 2025-06-18 or later: 400 -32600', async () => {
    const { status, json } = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-protocol-version': '2025-06-18' });
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
    const broken = await serveHandler(createMcpEndpoint(() => Promise.reject(new Error('disk on fire at /var/secret'))));
    try {
      const { json, text } = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_car_loan_rates', arguments: {} } }, { 'mcp-protocol-version': '2025-11-25' }, broken.url);
      expect(json.error).toEqual({ code: -32603, message: 'Internal error' });
      expect(text).not.toContain('secret');
      expect(logged).toHaveLength(1);
    } finally {
      console.error = original;
      await broken.close();
    }
  });
});

describe('every response', () => {
  it('carries no Mcp-Session-Id', () => {
    expect(responses.length).toBeGreaterThan(30);
    for (const response of responses) expect(response.headers.get('mcp-session-id')).toBeNull();
  });
});
