/**
 * The path from a core to the socket is one function, the service's `serve` (src/service.ts):
 * the API listener writes what it returns and nothing else, and an MCP tool that reads its REST
 * twin passes the REST core once and the way out's `prepare` only for the MCP answer itself —
 * counted by spies on the REST core and on `prepare` — while a kept answer still serves both.
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Answer } from '../src/http/answer.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { HEALTH_PATH } from '../src/endpoints.ts';
import { createApiListener } from '../src/server/api-listener.ts';
import { DEFAULT_LIMITS } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import type { Sent, Service } from '../src/service.ts';
import { ROOT, SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { type Listening, listen, nodeRequest, serveService } from './support/http.ts';
import { modern, sendMcp } from './support/mcp.ts';
import { head, rawRequest } from './support/raw-http.ts';

/** What the spies saw: each REST core call's method and path, and each answer `prepare` was given. */
const seen = vi.hoisted(() => ({ rest: [] as string[], prepared: [] as Answer[] }));

vi.mock('../src/api/app.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/api/app.ts')>();
  return {
    ...real,
    createRestCore: (...args: Parameters<typeof real.createRestCore>) => {
      const core = real.createRestCore(...args);
      return (method: string, url: URL) => {
        seen.rest.push(`${method} ${url.pathname}${url.search}`);
        return core(method, url);
      };
    },
  };
});
vi.mock('../src/http/way-out.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/http/way-out.ts')>();
  return {
    ...real,
    prepare: (...args: Parameters<typeof real.prepare>) => {
      seen.prepared.push(args[0]);
      return real.prepare(...args);
    },
  };
});

/** A REST endpoint's twin: its tool, and the REST request its result is the answer to. */
const twin = TOOLS.find((tool) => 'forward' in tool && tool.sizes === 'list')!;
const target = 'forward' in twin ? twin.forward(twin.example) : '';

/** The service's clock (ms): each test starts a second after the last, so nothing is kept from it. */
let clock = 0;
let server: Listening;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir(), { coding: true, clock: () => clock }));
});
afterAll(() => server.close());
beforeEach(() => {
  clock += 5000;
  seen.rest.length = 0;
  seen.prepared.length = 0;
});

const callTwin = () => sendMcp(server.url, modern('tools/call', { name: twin.name, arguments: twin.example }));
const restGet = () => nodeRequest(`${server.url}${target}`, { headers: { 'accept-encoding': 'br' } });
/** Whether `prepare` was given the MCP endpoint's answer (JSON-RPC) or a REST one. */
const preparedKinds = () =>
  seen.prepared.map((answer) => (answer.cors?.methods.includes('POST') ? 'mcp' : `rest ${answer.status}`));

describe('an MCP tool reading its REST twin', () => {
  it('passes the REST core once and `prepare` once in all, for the MCP answer itself', async () => {
    const { status, json } = await callTwin();
    expect(status).toBe(200);
    expect(json.result.isError).toBeUndefined();
    expect(seen.rest).toEqual([`GET ${target}`]);
    expect(preparedKinds()).toEqual(['mcp']);
  });

  it('keeps its miss for REST callers of the same second: the first pays the one `prepare`, none asks the core again; the bytes are the same', async () => {
    const { json } = await callTwin();
    const first = await restGet();
    const second = await restGet();
    expect(seen.rest).toEqual([`GET ${target}`]);
    expect(preparedKinds()).toEqual(['mcp', 'rest 200']);
    expect(first.status).toBe(200);
    expect(second.headers.etag).toBe(first.headers.etag);
    const plain = await nodeRequest(`${server.url}${target}`);
    expect(json.result.content[0].text).toBe(plain.text);
  });

  it('uses the REST answer already kept this second: the core is not asked again', async () => {
    const rest = await nodeRequest(`${server.url}${target}`);
    const { json } = await callTwin();
    await callTwin();
    expect(seen.rest).toEqual([`GET ${target}`]);
    expect(preparedKinds()).toEqual(['rest 200', 'mcp', 'mcp']);
    expect(json.result.content[0].text).toBe(rest.text);
  });
});

describe('the API listener writes what `serve` returns', () => {
  /** A service whose `serve` gives this answer, at once or as a promise. */
  const serving = (serve: () => Sent | Promise<Sent>): Service =>
    Object.assign(async () => new Response(null, { status: 500 }), { serve });
  const answer: Sent = {
    status: 203,
    headers: ['content-type', 'text/plain', 'x-made-by', 'serve'],
    body: new TextEncoder().encode('as written'),
    requestId: true,
  };

  it('as it is, at once or later, with the caller’s request id stamped where the answer carries one', async () => {
    const cases: [() => Sent | Promise<Sent>, string | undefined][] = [
      [() => answer, 'mine'],
      [async () => answer, 'mine'],
      [() => ({ ...answer, requestId: false }), undefined],
    ];
    for (const [serve, id] of cases) {
      const listening = await serveService(serving(serve));
      const got = await nodeRequest(`${listening.url}/api/v1/anything`, { headers: { 'x-request-id': 'mine' } });
      await listening.close();
      expect([got.status, got.headers['content-type'], got.headers['x-made-by'], got.text]).toEqual([
        203,
        'text/plain',
        'serve',
        'as written',
      ]);
      expect(got.headers['x-request-id']).toBe(id);
    }
  });

  it('a `serve` that fails, at once or later, is the documented 500', async () => {
    const failures = [
      () => {
        throw new Error('at once');
      },
      () => Promise.reject(new Error('later')),
    ];
    for (const serve of failures) {
      const logged: unknown[][] = [];
      const listener = createApiListener(serving(serve), {
        stampRequestIds: true,
        site: SITE,
        log: (...args) => logged.push(args),
      });
      const listening = await listen(listener);
      const got = await nodeRequest(`${listening.url}/api/v1/anything`);
      await listening.close();
      expect(got.status).toBe(500);
      expect(JSON.parse(got.text)).toMatchObject({ code: 500, error: 'server_error' });
      expect(logged).toHaveLength(1);
    }
  });

  it('a GET whose body is malformed gets its 400 from the server, though its answer is kept and ready at once', async () => {
    const server = createNodeServer({
      api: createApiListener(await rawServiceOver(historyDir(), { clock: () => clock }), {
        stampRequestIds: true,
        site: SITE,
      }),
      pages: async () => {},
      limits: DEFAULT_LIMITS,
      site: SITE,
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const get = (body: string) =>
      rawRequest(port, `${head(`GET ${HEALTH_PATH} HTTP/1.1`, { 'transfer-encoding': 'chunked' })}${body}`);
    const kept = await get('0\r\n\r\n');
    const malformed = await get('zz\r\nhello\r\n0\r\n\r\n');
    server.closeAllConnections();
    server.close();
    expect(kept.status).toBe(200);
    expect([malformed.status, malformed.closed]).toEqual([400, true]);
    expect(JSON.parse(malformed.body)).toMatchObject({ code: 400, error: 'invalid_request' });
  });

  it('imports nothing of the way out or the kept answers: `serve` is the one path', async () => {
    const text = await readFile(join(ROOT, 'src/server/api-listener.ts'), 'utf8');
    expect(text).not.toMatch(/from '\.\.\/http\/(way-out|kept-answers)\.ts'/);
  });
});
