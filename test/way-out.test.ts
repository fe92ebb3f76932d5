/**
 * The one way out (src/http/way-out.ts), over real sockets through the production API listener
 * (src/server/api-listener.ts) inside `npm start`'s server (src/server/node-server.ts): every kind
 * of answer under /api — REST, MCP, search, preflights and the refusals written before routing —
 * carries the same HTTP rules; an answer kept for its second is the answer made afresh; codings
 * decode to the identity body, each with its own ETag; request ids follow their rule; an MCP body
 * is read however it arrives; and a client that goes away costs nothing.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_MAX_AGE } from '../src/http/cors.ts';
import { createSearchCore } from '../src/docs/search.ts';
import { buildSearchIndex } from '../src/docs/search-index.ts';
import { LIMITS } from '../src/mcp/protocol.ts';
import { createApiListener } from '../src/server/api-listener.ts';
import { DEFAULT_LIMITS } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import { SECURITY_HEADERS } from '../src/http/security-headers.ts';
import type { Service } from '../src/service.ts';
import { NOW, SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { decodedText, type NodeAnswer, nodeRequest } from './support/http.ts';
import { JSON_HEADERS, MCP_PATH, modern as request } from './support/mcp.ts';
import { head, parseAnswers, rawRequest } from './support/raw-http.ts';

/** The service's clock (ms) and the time its answers are stamped with: tests move both. */
let clock = 0;
const now = () => new Date(NOW.getTime() + clock);

/** `npm start`'s server around the production API listener, with pages answering "page". */
async function start(service: Service) {
  const server = createNodeServer({
    api: createApiListener(service, { stampRequestIds: true, site: SITE }),
    pages: async (_req, res) => void res.end('page'),
    limits: DEFAULT_LIMITS,
    site: SITE,
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

let coded: Awaited<ReturnType<typeof start>>;
let plain: Awaited<ReturnType<typeof start>>;
let date: string;

beforeAll(async () => {
  const search = createSearchCore(async () => buildSearchIndex([]), SITE);
  coded = await start(await rawServiceOver(historyDir(), { coding: true, search, now, clock: () => clock }));
  plain = await start(await rawServiceOver(historyDir(), { coding: false, search }));
  const series = await nodeRequest(`${plain.url}/api/v1/mortgage-rates/time-series`);
  date = (JSON.parse(series.text) as { availableDates: string[] }).availableDates.at(-1)!;
});
afterAll(() => {
  coded.close();
  plain.close();
});

const ask = (base: string, path: string, method = 'GET', headers: Record<string, string> = {}) =>
  nodeRequest(`${base}${path}`, { method, headers });

/** What must be equal between two answers: all but the date, a generated id and the timestamp. */
function comparable(answer: NodeAnswer) {
  const { date: _, 'x-request-id': id, connection, 'keep-alive': __, ...headers } = answer.headers;
  return {
    status: answer.status,
    headers,
    id: id === undefined ? 'none' : /^[0-9a-f-]{36}$/.test(String(id)) ? 'generated' : id,
    // A HEAD has no body to decode, whatever coding its headers name (its GET's).
    body: answer.body.length === 0 ? '' : decodedText(answer),
  };
}

/** The headers the way out puts on every answer under /api, whatever made it. */
function expectTheRules(answer: NodeAnswer, what: string) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS))
    expect(answer.headers[name], `${what}: ${name}`).toBe(value);
  expect(answer.headers['access-control-allow-origin'], `${what}: CORS`).toBe('*');
  expect(answer.headers['access-control-expose-headers'], `${what}: exposed`).toBeTruthy();
  expect(answer.headers['cache-control'], `${what}: cache-control`).toBeTruthy();
  if (answer.status !== 204 && answer.status !== 304) expect(answer.headers['content-type'], what).toMatch(/json/);
}

const PATHS = () => [
  '/api/v1/mortgage-rates',
  '/api/v1/mortgage-rates/',
  '/api/v1/mortgage-rates?termInMonths=12',
  '/api/v1/mortgage-rates?termInMonths=abc',
  '/api/v1/mortgage-rates?nope=1',
  '/api/v1/mortgage-rates/institution:anz',
  '/api/v1/mortgage-rates/INSTITUTION:ANZ?termInMonths=12',
  '/api/v1/mortgage-rates/institution:nowhere',
  '/api/v1/personal-loan-rates',
  '/api/v1/car-loan-rates',
  '/api/v1/credit-card-rates',
  `/api/v1/mortgage-rates/time-series?date=${date}`,
  `/api/v1/mortgage-rates/time-series?date=${date}&institutionId=institution:anz`,
  '/api/v1/mortgage-rates/time-series?date=2001-01-01',
  '/api/v1/mortgage-rates/time-series?date=nope',
  '/api/v1/mortgage-rates/time-series',
  `/api/v1/mortgage-rates/time-series?startDate=2024-01-01&endDate=${date}`,
  '/api/v1/mortgage-rates/changes',
  '/api/v1/health',
  '/api/v1/nowhere',
  '/api/v2',
  '/api/search?query=rates',
  '/api/v1/mortgage-rates?a=%',
];
const ENCODINGS = [
  undefined,
  'br',
  'gzip',
  'deflate',
  'identity',
  '*',
  'gzip;q=1, br;q=0.5',
  'br;q=0, gzip;q=0',
  'gzip, deflate, br',
  'identity;q=0',
];

describe('every answer under /api leaves by the one way out', () => {
  it('REST, MCP, search, preflights, unknown paths and the refusals before routing all carry the same rules', async () => {
    const answers: [string, NodeAnswer][] = [
      ['list', await ask(coded.url, '/api/v1/mortgage-rates')],
      ['HEAD', await ask(coded.url, '/api/v1/mortgage-rates', 'HEAD')],
      ['bad parameter', await ask(coded.url, '/api/v1/mortgage-rates?termInMonths=abc')],
      ['unknown path', await ask(coded.url, '/api/nothing')],
      ['TRACE', await ask(coded.url, '/api/v1/mortgage-rates', 'TRACE')],
      ['health', await ask(coded.url, '/api/v1/health')],
      ['search', await ask(coded.url, '/api/search?query=rates')],
      ['preflight', await ask(coded.url, '/api/v1/mortgage-rates', 'OPTIONS', { origin: 'https://a.example' })],
      ['MCP preflight', await ask(coded.url, MCP_PATH, 'OPTIONS', { origin: 'https://a.example' })],
      ['MCP call', await nodeRequest(`${coded.url}${MCP_PATH}`, request('tools/list'))],
      ['MCP GET', await ask(coded.url, MCP_PATH)],
      ['MCP bad JSON', await nodeRequest(`${coded.url}${MCP_PATH}`, { ...request('ping'), body: '{"jsonrpc":' })],
    ];
    for (const [what, answer] of answers) expectTheRules(answer, what);
    // Refused before routing, read from the raw bytes: bad framing (Node refuses it before any
    // handler), a body over the server's limit, and a Host no URL can hold.
    for (const [what, bytes, status] of [
      [
        'bad framing',
        head('GET /api/v1/mortgage-rates HTTP/1.1', { 'content-length': '1', 'transfer-encoding': 'chunked' }),
        400,
      ],
      [
        'a body over the limit',
        head('POST /api/v1/mortgage-rates HTTP/1.1', { 'content-length': String(DEFAULT_LIMITS.maxBodyBytes + 1) }),
        413,
      ],
      ['an unusable Host', head('GET /api/v1/mortgage-rates HTTP/1.1', { host: 'u@h' }), 400],
    ] as const) {
      const [refused] = parseAnswers((await rawRequest(coded.port, bytes)).text);
      expect(refused!.status, what).toBe(status);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect(refused!.headers[name], `${what}: ${name}`).toBe(value);
      expect(refused!.headers['access-control-allow-origin'], what).toBe('*');
      expect(refused!.headers['cache-control'], what).toBe('no-store');
      expect(JSON.parse(refused!.body).documentationUrl, what).toMatch(`${SITE}/docs/errors#`);
    }
  });

  it('a preflight: 204 with the policy, kept by browsers CORS_MAX_AGE seconds, no id', async () => {
    const rest = await ask(coded.url, '/api/v1/mortgage-rates', 'OPTIONS', {
      origin: 'https://a.example',
      'access-control-request-headers': 'x-request-id',
    });
    expect(rest.status).toBe(204);
    expect(rest.headers['access-control-max-age']).toBe(CORS_MAX_AGE);
    expect(rest.headers['access-control-allow-headers']).toBe('x-request-id');
    expect(rest.headers['x-request-id']).toBeUndefined();
    const mcp = await ask(coded.url, MCP_PATH, 'OPTIONS', { origin: 'https://a.example' });
    expect(mcp.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expect(mcp.headers['access-control-allow-headers']).toContain('mcp-protocol-version');
  });
});

describe('an answer kept for its second is the answer made afresh', () => {
  it('every endpoint kind, filter, bad parameter and unknown path, GET and HEAD, every kind of Accept-Encoding: kept, made again, and uncoded on a server that codes nothing', async () => {
    for (const path of PATHS()) {
      for (const method of ['GET', 'HEAD']) {
        for (const encoding of ENCODINGS) {
          const headers: Record<string, string> = encoding === undefined ? {} : { 'accept-encoding': encoding };
          const what = `${method} ${path} ${encoding}`;
          clock += 5_000; // a new second: the first answer is made, the second kept
          const made = comparable(await ask(coded.url, path, method, headers));
          const kept = comparable(await ask(coded.url, path, method, headers));
          expect(kept, what).toEqual(made);
          const reference = await ask(plain.url, path, method, headers);
          expect(made.status, what).toBe(reference.status);
          const timeless = (text: string) => text.replace(/"timestamp":"[^"]*"/, '"timestamp":"T"');
          expect(timeless(made.body), what).toBe(timeless(reference.text));
        }
      }
    }
  });

  it('two GETs in one second get the same timestamp, the time the answer was made; a GET after it gets a new one', async () => {
    const stamp = async () =>
      (JSON.parse((await ask(coded.url, '/api/v1/car-loan-rates')).text) as { timestamp: string }).timestamp;
    clock += 10_000;
    const first = await stamp();
    expect(first).toBe(now().toISOString());
    clock += 999;
    expect(await stamp()).toBe(first);
    clock += 1;
    const later = await stamp();
    expect(later).toBe(now().toISOString());
    expect(later > first).toBe(true);
  });

  it('conditional GETs per coding: each coding has its own ETag and a 304 only for its own', async () => {
    const path = '/api/v1/mortgage-rates';
    const identity = await ask(coded.url, path);
    const br = await ask(coded.url, path, 'GET', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers.etag).not.toBe(identity.headers.etag);
    expect(decodedText(br)).toBe(identity.text);
    for (const [encoding, etag, status] of [
      ['br', br.headers.etag!, 304],
      ['br', identity.headers.etag!, 200],
      ['identity', identity.headers.etag!, 304],
      ['gzip', br.headers.etag!, 200],
    ] as const) {
      const answer = await ask(coded.url, path, 'GET', { 'accept-encoding': encoding, 'if-none-match': etag });
      expect(answer.status, `${encoding} ${etag}`).toBe(status);
      if (status === 304) {
        expect(answer.body.length).toBe(0);
        expect(answer.headers.etag).toBe(etag);
        expect(answer.headers['cache-control']).toBe(identity.headers['cache-control']);
      }
    }
  });

  it('a time series range is streamed, coded as it goes, and decodes to the uncoded body', async () => {
    const path = `/api/v1/mortgage-rates/time-series?startDate=2024-01-01&endDate=${date}`;
    const sent = await ask(coded.url, path, 'GET', { 'accept-encoding': 'gzip' });
    expect(sent.headers['content-encoding']).toBe('gzip');
    expect(sent.headers['content-length']).toBeUndefined();
    expect(sent.headers['transfer-encoding']).toBe('chunked');
    const reference = await ask(plain.url, path);
    expect(JSON.parse(decodedText(sent)).timeSeries).toEqual(JSON.parse(reference.text).timeSeries);
  });

  it('request ids: echoed when safe, new when not, none on unknown paths and wrong-format 400s, kept answers too', async () => {
    for (const [path, id, expected] of [
      ['/api/v1/mortgage-rates', 'caller-7', 'caller-7'],
      ['/api/v1/mortgage-rates', 'bad id!', 'generated'],
      ['/api/v1/nowhere', 'caller-7', 'none'],
      ['/api/v1/mortgage-rates?termInMonths=abc', 'caller-7', 'none'],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const sent = (await ask(coded.url, path, 'GET', { 'x-request-id': id })).headers['x-request-id'];
        if (expected === 'none') expect(sent, path).toBeUndefined();
        else if (expected === 'generated') expect(sent).toMatch(/^[0-9a-f-]{36}$/);
        else expect(sent).toBe(expected);
      }
    }
    const [a, b] = [await ask(coded.url, '/api/v1/health'), await ask(coded.url, '/api/v1/health')];
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('MCP through the one way out', () => {
  const call = (id: number | string, version = '2026-07-28') =>
    version === '2026-07-28'
      ? request('tools/call', { name: 'list_mortgage_rates', arguments: {} }, { id })
      : {
          method: 'POST',
          headers: { ...JSON_HEADERS, 'mcp-protocol-version': version },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'list_mortgage_rates', arguments: {} },
          }),
        };
  const send = (base: string, init: { method: string; headers: Record<string, string>; body?: string }, extra = {}) =>
    nodeRequest(`${base}${MCP_PATH}`, { ...init, headers: { ...init.headers, ...extra } });
  const timeless = (text: string) => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'T');

  it('each caller gets its own id around the same result, coded as it asks: for every coding, id and version, the JSON of the uncoded answer', async () => {
    for (const [i, accept] of ['br', 'gzip', 'gzip, deflate, br', 'br;q=0.5, gzip', 'identity'].entries()) {
      for (const version of ['2026-07-28', '2025-06-18', '2024-11-05']) {
        const id = i % 2 ? `call-${i}-é` : 1000 + i;
        const reference = await send(plain.url, call(id, version));
        const sent = await send(coded.url, call(id, version), { 'accept-encoding': accept });
        const expected =
          accept === 'identity' ? undefined : accept.startsWith('br;q') || accept === 'gzip' ? 'gzip' : 'br';
        expect(sent.headers['content-encoding'], `${accept} ${version}`).toBe(expected);
        expect(Number(sent.headers['content-length'])).toBe(sent.body.length);
        if (expected) expect(sent.body.length).toBeLessThan(reference.body.length / 4);
        expect(timeless(decodedText(sent))).toBe(timeless(reference.text));
        expect(JSON.parse(decodedText(sent)).id).toBe(id);
        expect(sent.headers['x-request-id']).toBeTruthy();
      }
    }
  });

  it('a small answer is sent as it is', async () => {
    const small = await send(
      coded.url,
      {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      },
      { 'accept-encoding': 'br' },
    );
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.text).result).toEqual({});
  });

  const framed = (init: { headers: Record<string, string> }, framing: Record<string, string>, close = true) =>
    head(`POST ${MCP_PATH} HTTP/1.1`, { ...init.headers, ...framing, connection: close ? 'close' : 'keep-alive' });
  async function answersTo(bytes: string | readonly string[]) {
    const { text } = await rawRequest(coded.port, bytes);
    return parseAnswers(text).map(({ status, body }) => ({
      status,
      body: JSON.parse(Buffer.from(body, 'latin1').toString('utf8')) as {
        id?: unknown;
        result?: unknown;
        error?: unknown;
      },
    }));
  }
  const LAST_CHUNK = '0\r\n\r\n';

  it('a body split over two writes, chunked in one write or in parts, or pipelined: read whole, answered in order', async () => {
    const one = call(3);
    const expected = JSON.parse((await send(coded.url, one)).text).result;
    const same = (result: unknown) => expect(timeless(JSON.stringify(result))).toBe(timeless(JSON.stringify(expected)));
    const split = await answersTo([
      framed(one, { 'content-length': String(Buffer.byteLength(one.body!)) }) + one.body!.slice(0, 40),
      one.body!.slice(40),
    ]);
    expect(split.map((a) => a.status)).toEqual([200]);
    same(split[0]!.body.result);
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const start = framed(one, { 'transfer-encoding': 'chunked' });
    for (const parts of [
      [`${start}${chunk(one.body!.slice(0, 50))}${chunk(one.body!.slice(50))}${LAST_CHUNK}`],
      [start + chunk(one.body!.slice(0, 50)), chunk(one.body!.slice(50)), LAST_CHUNK],
    ]) {
      const [answer] = await answersTo(parts);
      expect(answer!.status).toBe(200);
      same(answer!.body.result);
    }
    const [first, second] = [call(1), call(2)];
    const whole = (init: typeof first, close: boolean) =>
      framed(init, { 'content-length': String(Buffer.byteLength(init.body!)) }, close) + init.body!;
    const pipelined = await answersTo(whole(first, false) + whole(second, true));
    expect(pipelined.map((a) => [a.status, a.body.id])).toEqual([
      [200, 1],
      [200, 2],
    ]);
  });

  it('a chunked body past the limit is refused with 413, the limit in the message, and the connection closed', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(LIMITS.bodyBytes) },
    });
    const { text, closed } = await rawRequest(
      coded.port,
      `${framed(call(1), { 'transfer-encoding': 'chunked' }, false)}${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n${LAST_CHUNK}`,
    );
    const [answer] = parseAnswers(text);
    expect(answer!.status).toBe(413);
    expect(answer!.body).toContain(String(LIMITS.bodyBytes));
    expect(answer!.headers.connection).toBe('close');
    expect(closed).toBe(true);
  });

  it('a client that goes away mid-body is no failure of ours: nothing is logged, and the next request is answered', async () => {
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const { text } = await rawRequest(
        coded.port,
        `POST ${MCP_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`,
        100,
      );
      expect(text).toBe('');
      await new Promise((done) => setTimeout(done, 50));
      expect(logged).toEqual([]);
      expect((await send(coded.url, call(9))).status).toBe(200);
    } finally {
      console.error = original;
    }
  });
});

describe('health keeps its status store reads for a stated window', () => {
  it('two requests within the window read the store once; after it (and the second its answer is kept), twice', async () => {
    const { STATUS_CACHE_MS } = await import('../src/status/health.ts');
    const { KEPT_FOR_MS } = await import('../src/http/kept-answers.ts');
    const { createApi } = await import('../src/service.ts');
    const { compileSnapshotTree } = await import('../src/store/compile.ts');
    const { servedStoreOf } = await import('../src/store/history-build.ts');
    let reads = 0;
    let time = 0;
    const store = servedStoreOf(await compileSnapshotTree(historyDir()));
    const api = createApi({
      loadStore: async () => store,
      status: {
        kind: 'filesystem',
        required: false,
        read: async () => {
          reads++;
          return null;
        },
        write: async () => {},
        readRuns: async () => [],
        writeRuns: async () => {},
      },
      now: () => NOW,
      siteUrl: SITE,
      statusCacheMs: STATUS_CACHE_MS,
      clock: () => time,
    });
    const health = () => api(new Request(`${SITE}/api/v1/health`));
    expect((await health()).status).toBe(200);
    const perRound = reads;
    expect(perRound).toBeGreaterThan(0); // one read per dataset
    time += STATUS_CACHE_MS - 1;
    expect((await health()).status).toBe(200);
    expect(reads).toBe(perRound);
    time += KEPT_FOR_MS; // past the window, and past the second the last answer is kept for
    expect((await health()).status).toBe(200);
    expect(reads).toBe(2 * perRound);
  });
});
