/**
 * The MCP endpoint on Node's own request and response (src/mcp/node.ts) answers exactly as the
 * web handler does: the same statuses, bodies and headers, request for request, over real sockets.
 */
import { createServer, request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRequestIds } from '../src/api/request-id.ts';
import { serveMcpNode } from '../src/mcp/node.ts';
import { LIMITS } from '../src/mcp/protocol.ts';
import { createService } from '../src/service.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { ServedStore } from '../src/store/served-store.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { serveHandler } from './fixtures/http-adapter.ts';
import { NODE_WHOLE_CODINGS } from '../src/server/codings.ts';
import { historyDir, NOW, SITE, tempDir } from './helpers.ts';

let web: Awaited<ReturnType<typeof serveHandler>>;
let node: { url: string; close(): Promise<void> };
let coded: { url: string; close(): Promise<void> };

async function listen(listener: Parameters<typeof createServer>[1]) {
  const server = createServer(listener);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

beforeAll(async () => {
  const store = ServedStore.from(await compileSnapshotTree(historyDir()));
  const service = createService(
    { loadStore: async () => store, status: new FileStatusStore(await tempDir()), now: () => NOW, siteUrl: SITE },
    { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] },
  );
  web = await serveHandler(withRequestIds(service));
  const core = await service.mcpCore();
  node = await listen((req, res) => void serveMcpNode(core, req, res));
  coded = await listen((req, res) => void serveMcpNode(core, req, res, NODE_WHOLE_CODINGS));
});
afterAll(async () => {
  await web.close();
  await node.close();
  await coded.close();
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const modern = (method: string, params: Record<string, unknown> = {}) => ({
  method: 'POST',
  headers: {
    ...JSON_HEADERS,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 3, method, params: { ...params, _meta: META } }),
});

const CASES: [string, { method: string; headers: Record<string, string>; body?: string }][] = [
  ['server/discover', modern('server/discover')],
  ['tools/list', modern('tools/list')],
  ['tools/call list', modern('tools/call', { name: 'list_mortgage_rates', arguments: { termInMonths: '12' } })],
  [
    'tools/call, a too large result',
    modern('tools/call', {
      name: 'get_mortgage_rates_time_series',
      arguments: { startDate: '2000-01-01', endDate: '2100-01-01' },
    }),
  ],
  ['an unknown method', modern('no/such')],
  [
    'a header-less batch',
    {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_car_loan_rates', arguments: {} } },
      ]),
    },
  ],
  [
    'a notification',
    {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    },
  ],
  ['a foreign Host', { method: 'POST', headers: { ...JSON_HEADERS, host: 'evil.example' }, body: '{}' }],
  ['GET', { method: 'GET', headers: {} }],
  [
    'a preflight',
    { method: 'OPTIONS', headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' } },
  ],
  ['bad JSON', { method: 'POST', headers: JSON_HEADERS, body: '{"jsonrpc":' }],
  [
    'a body over the limit',
    {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(LIMITS.bodyBytes) } }),
    },
  ],
];

function send(base: string, init: { method: string; headers: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (done, fail) => {
      const { port } = new URL(base);
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/api/v1/mcp',
          method: init.method,
          headers: { 'x-request-id': 'same-id', ...init.headers },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res
            .on('data', (c: string) => (body += c))
            .on('end', () => done({ status: res.statusCode!, headers: res.headers, body }));
        },
      );
      req.on('error', fail);
      req.end(init.body);
    },
  );
}

const WIRE = [
  'content-type',
  'content-length',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'allow',
  'x-request-id',
];
const timeless = (body: string) => body.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'T');

describe('the MCP endpoint on Node directly', () => {
  it.each(CASES)('%s: the same answer as the web handler', async (_, init) => {
    const [a, b] = [await send(web.url, init), await send(node.url, init)];
    expect(b.status).toBe(a.status);
    expect(timeless(b.body)).toBe(timeless(a.body));
    for (const name of WIRE) expect(b.headers[name], name).toEqual(a.headers[name]);
  });
});

function sendRaw(base: string, init: { method: string; headers: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (done, fail) => {
      const req = httpRequest(`${base}/api/v1/mcp`, { method: init.method, headers: init.headers }, (res) => {
        const chunks: Buffer[] = [];
        res
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => done({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', fail);
      req.end(init.body);
    },
  );
}

const DECODE: Record<string, (b: Buffer) => Buffer> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  deflate: inflateSync,
};

describe('the MCP endpoint on Node, with content codings (npm start)', () => {
  const list = modern('tools/call', { name: 'list_mortgage_rates', arguments: {} });

  it.each(['br', 'gzip', 'deflate'])(
    'a large answer asked for in %s is sent in it, and decodes to the same JSON',
    async (encoding) => {
      const plain = await sendRaw(coded.url, list);
      const sent = await sendRaw(coded.url, { ...list, headers: { ...list.headers, 'accept-encoding': encoding } });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(sent.status).toBe(200);
      expect(sent.headers['content-encoding']).toBe(encoding);
      expect(sent.headers.vary).toBe('Accept-Encoding');
      expect(Number(sent.headers['content-length'])).toBe(sent.body.length);
      expect(sent.body.length).toBeLessThan(plain.body.length / 4);
      expect(timeless(DECODE[encoding]!(sent.body).toString('utf8'))).toBe(timeless(plain.body.toString('utf8')));
    },
  );

  it('a small answer, or a client that asks for no coding, gets the JSON as it is', async () => {
    const ping = modern('tools/list');
    const small = await sendRaw(coded.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18', 'accept-encoding': 'br' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8')).result).toBeDefined();
    const identity = await sendRaw(coded.url, { ...ping, headers: { ...ping.headers, 'accept-encoding': 'identity' } });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(Number(identity.headers['content-length'])).toBe(identity.body.length);
  });
});
