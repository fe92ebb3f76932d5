/**
 * The MCP endpoint on Node's own request and response (src/mcp/node.ts) answers exactly as the
 * web handler does: the same statuses, bodies and headers, request for request, over real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRequestIds } from '../src/api/request-id.ts';
import type { McpCore } from '../src/mcp/endpoint.ts';
import { serveMcpNode } from '../src/mcp/node.ts';
import { LIMITS } from '../src/mcp/protocol.ts';
import { createService } from '../src/service.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { NODE_WHOLE_CODINGS } from '../src/server/codings.ts';
import { NOW, SITE } from './support/constants.ts';
import { historyDir, tempDir } from './support/history.ts';
import { decodedText, type Listening, listen, nodeRequest, serveHandler } from './support/http.ts';
import { head, openSocket, parseAnswers, rawRequest } from './support/raw-http.ts';
import { JSON_HEADERS, MCP_PATH, modern as request } from './support/mcp.ts';

let web: Listening;
let node: Listening;
let coded: Listening;
let realCore: McpCore;

beforeAll(async () => {
  const store = servedStoreOf(await compileSnapshotTree(historyDir()));
  const service = createService(
    { loadStore: async () => store, status: new FileStatusStore(await tempDir()), now: () => NOW, siteUrl: SITE },
    { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] },
  );
  web = await serveHandler(withRequestIds(service));
  const core = await service.mcpCore();
  realCore = core;
  node = await listen((req, res) => void serveMcpNode(core, req, res));
  coded = await listen((req, res) => void serveMcpNode(core, req, res, { codings: NODE_WHOLE_CODINGS }));
});
afterAll(async () => {
  await web.close();
  await node.close();
  await coded.close();
});

type Init = { method: string; headers: Record<string, string>; body?: string };

const modern = (method: string, params: Record<string, unknown> = {}) => request(method, params, { id: 3 });

const CASES: [string, Init][] = [
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

/** One request to the endpoint, with the same x-request-id on every server, so the answers compare. */
const send = (base: string, init: Init) =>
  nodeRequest(`${base}${MCP_PATH}`, { ...init, headers: { 'x-request-id': 'same-id', ...init.headers } });

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
    expect(timeless(b.text)).toBe(timeless(a.text));
    for (const name of WIRE) expect(b.headers[name], name).toEqual(a.headers[name]);
  });
});

/** A tool call's request head as a client writes it, with the body's framing header (a Content-Length, or chunked). */
const headOf = (call: { headers: Record<string, string> }, framing: Record<string, string>, close = true) =>
  head(`POST ${MCP_PATH} HTTP/1.1`, { ...call.headers, ...framing, connection: close ? 'close' : 'keep-alive' });

/** The answers a raw exchange got, each body's JSON read as UTF-8 (the text comes as latin1). */
async function answersTo(base: string, bytes: string | readonly string[]) {
  const { text } = await rawRequest(Number(new URL(base).port), bytes);
  return parseAnswers(text).map(({ status, body }) => ({
    status,
    body: JSON.parse(Buffer.from(body, 'latin1').toString('utf8')) as {
      id?: unknown;
      result?: unknown;
      error?: unknown;
    },
  }));
}

describe('how a body arrives: whole, in parts, chunked, pipelined or too large, the same answer', () => {
  const call = (id: number) =>
    request('tools/call', { name: 'list_mortgage_rates', arguments: { termInMonths: '12' } }, { id });
  const LAST_CHUNK = '0\r\n\r\n';
  const expected = async () => JSON.parse((await sendRaw(node.url, call(3))).body.toString('utf8')).result;

  it('a body split over two writes 60 ms apart (not whole after the first read) is read as it comes', async () => {
    const { body } = call(3);
    const [answer, ...more] = await answersTo(node.url, [
      headOf(call(3), { 'content-length': String(Buffer.byteLength(body)) }) + body.slice(0, 40),
      body.slice(40),
    ]);
    expect(more).toEqual([]);
    expect(answer!.status).toBe(200);
    expect(timeless(JSON.stringify(answer!.body.result))).toBe(timeless(JSON.stringify(await expected())));
  });

  it('a chunked body, in one write or with its chunks 60 ms apart, is read whole', async () => {
    const { body } = call(3);
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const start = headOf(call(3), { 'transfer-encoding': 'chunked' });
    for (const parts of [
      [`${start}${chunk(body.slice(0, 50))}${chunk(body.slice(50))}${LAST_CHUNK}`],
      [start + chunk(body.slice(0, 50)), chunk(body.slice(50)), LAST_CHUNK],
    ]) {
      const [answer] = await answersTo(node.url, parts);
      expect(answer!.status).toBe(200);
      expect(timeless(JSON.stringify(answer!.body.result))).toBe(timeless(JSON.stringify(await expected())));
    }
  });

  it('two requests pipelined in one write get two answers, in order', async () => {
    const [first, second] = [call(1), call(2)];
    const framed = (one: typeof first, close: boolean) =>
      headOf(one, { 'content-length': String(Buffer.byteLength(one.body)) }, close) + one.body;
    const answers = await answersTo(node.url, framed(first, false) + framed(second, true));
    expect(answers.map((a) => [a.status, a.body.id])).toEqual([
      [200, 1],
      [200, 2],
    ]);
  });

  it('a chunked body past the limit, written in one go, is refused with 413 and the limit in the message', async () => {
    const pad = 'x'.repeat(LIMITS.bodyBytes);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad } });
    const [answer] = await answersTo(
      node.url,
      `${headOf(call(1), { 'transfer-encoding': 'chunked' })}${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n${LAST_CHUNK}`,
    );
    expect(answer!.status).toBe(413);
    expect(JSON.stringify(answer!.body.error)).toContain(String(LIMITS.bodyBytes));
  });
});

/** One request to the endpoint as it is. */
const sendRaw = (base: string, init: Init) => nodeRequest(`${base}${MCP_PATH}`, init);

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
      expect(timeless(decodedText(sent))).toBe(timeless(plain.text));
    },
  );

  it('a client that takes gzip as readily as br gets gzip spliced from kept pieces: for every id and version, it decodes (CRC and length checked) to the same JSON', async () => {
    for (const [i, accept] of ['gzip, deflate, br', 'br, gzip', '*'].entries()) {
      for (const version of ['2026-07-28', '2025-06-18', '2024-11-05']) {
        const call =
          version === '2026-07-28'
            ? request('tools/call', { name: 'list_mortgage_rates', arguments: {} }, { id: `call-${i}-é` })
            : {
                method: 'POST',
                headers: { ...JSON_HEADERS, 'mcp-protocol-version': version },
                body: JSON.stringify({
                  jsonrpc: '2.0',
                  id: 1000 + i,
                  method: 'tools/call',
                  params: { name: 'list_mortgage_rates', arguments: {} },
                }),
              };
        const plain = await sendRaw(coded.url, call);
        const sent = await sendRaw(coded.url, { ...call, headers: { ...call.headers, 'accept-encoding': accept } });
        expect(sent.headers['content-encoding'], `${accept}, ${version}`).toBe('gzip');
        expect(Number(sent.headers['content-length'])).toBe(sent.body.length);
        expect(sent.body.length).toBeLessThan(plain.body.length / 4);
        // gunzipSync checks the trailer's CRC-32 and length against what it decoded.
        expect(timeless(decodedText(sent))).toBe(timeless(plain.text));
      }
    }
  });

  it('the client’s q-values still decide: br preferred by the client is br', async () => {
    const call = request('tools/call', { name: 'list_mortgage_rates', arguments: {} });
    const sent = await sendRaw(coded.url, {
      ...call,
      headers: { ...call.headers, 'accept-encoding': 'br, gzip;q=0.5' },
    });
    expect(sent.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decodedText(sent)).result.content[0].type).toBe('text');
  });

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

/** `fail` was told of a reset connection, once, and of nothing more in the 50 ms after. */
async function toldOnceOfReset(seen: unknown[]): Promise<void> {
  await expect.poll(() => seen.length).toBe(1);
  await new Promise((done) => setTimeout(done, 50));
  expect(seen).toHaveLength(1);
  expect((seen[0] as NodeJS.ErrnoException).code).toBe('ECONNRESET');
}

describe('failures on the Node path: each reaches `fail` once, none is thrown', () => {
  const failing = (afterBody: () => never | Promise<never>): McpCore =>
    Object.assign(async () => afterBody(), { beforeBody: () => undefined, afterBody });

  it.each([
    [
      'at once',
      () =>
        failing(() => {
          throw new Error('boom now');
        }),
      'boom now',
    ],
    ['later', () => failing(() => Promise.reject(new Error('boom later'))), 'boom later'],
  ])(
    'a core that fails %s: the client gets what fail sends, and the server answers the next request',
    async (_, core, message) => {
      const seen: unknown[] = [];
      const server = await listen((req, res) =>
        serveMcpNode(core(), req, res, {
          fail: (error) => {
            seen.push(error);
            res.writeHead(500).end('failed');
          },
        }),
      );
      try {
        const call = request('tools/call', { name: 'list_mortgage_rates', arguments: {} });
        for (let i = 0; i < 2; i++) {
          const answer = await sendRaw(server.url, call);
          expect(answer.status).toBe(500);
          expect(answer.body.toString()).toBe('failed');
        }
        expect(seen.map((e) => (e as Error).message)).toEqual([message, message]);
      } finally {
        await server.close();
      }
    },
  );

  it('a client that goes away mid-body reaches fail once, as a reset connection', async () => {
    const seen: unknown[] = [];
    const server = await listen((req, res) => serveMcpNode(realCore, req, res, { fail: (error) => seen.push(error) }));
    try {
      const socket = await openSocket(Number(new URL(server.url).port));
      socket.write(
        `POST ${MCP_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`,
      );
      await new Promise((done) => setTimeout(done, 50));
      socket.destroy();
      await toldOnceOfReset(seen);
    } finally {
      await server.close();
    }
  });

  it('a request destroyed before its body is read (its client gone in the same turn) reaches fail once, as a reset connection', async () => {
    const seen: unknown[] = [];
    const server = await listen((req, res) => {
      serveMcpNode(realCore, req, res, { fail: (error) => seen.push(error) });
      req.destroy();
    });
    try {
      const call = request('tools/call', { name: 'list_mortgage_rates', arguments: {} });
      await sendRaw(server.url, call).catch(() => undefined);
      await toldOnceOfReset(seen);
    } finally {
      await server.close();
    }
  });
});
