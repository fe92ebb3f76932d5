/**
 * The bounds of `npm start`'s edge (src/server/node-server.ts) over real sockets, with the
 * production API listener over the test history: a client that stops reading dropped after the
 * stall timeout (not twice it), and HEAD answered with the headers of its GET, coding included.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiListener } from '../src/server/api-listener.ts';
import { DEFAULT_LIMITS, type ServerLimits } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import type { Service } from '../src/service.ts';
import { NOW, SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { type NodeAnswer, nodeRequest } from './support/http.ts';
import { head } from './support/raw-http.ts';

/** The service's clock (ms): moved by the HEAD tests, so a GET and its HEAD share a kept answer or do not. */
let clock = 0;
let service: Service;

interface Started {
  port: number;
  url: string;
  /** Every response the API listener was given, in order. */
  responses: ServerResponse[];
  /** When (performance.now()) each connection the server kept was closed, in the order they opened. */
  closes: Promise<number>[];
  close(): void;
}

/** A page as Astro's handler writes one with a length (/openapi/json does): the body, none for HEAD. */
const PAGE = JSON.stringify({ page: 'x'.repeat(4000) });
function page(req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(PAGE) });
  res.end(req.method === 'HEAD' ? undefined : PAGE);
  return Promise.resolve();
}

/** `npm start`'s server around the production API listener, with `limits` over the defaults. */
async function start(limits: Partial<ServerLimits> = {}): Promise<Started> {
  const listener = createApiListener(service, { stampRequestIds: true, site: SITE });
  const responses: ServerResponse[] = [];
  const server = createNodeServer({
    api: (req, res) => {
      responses.push(res);
      listener(req, res);
    },
    pages: page,
    limits: { ...DEFAULT_LIMITS, ...limits },
    site: SITE,
  });
  const closes: Promise<number>[] = [];
  server.prependListener('connection', (socket: Socket) =>
    closes.push(new Promise((done) => socket.once('close', () => done(performance.now())))),
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    responses,
    closes,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

beforeAll(async () => {
  service = await rawServiceOver(historyDir(), {
    coding: true,
    now: () => new Date(NOW.getTime() + clock),
    clock: () => clock,
  });
});

describe('a client that stops reading', () => {
  const STALLED_MS = 1500;
  const RANGE = '/api/v1/mortgage-rates/time-series?startDate=2024-01-01&endDate=2025-03-05';
  let server: Started;
  beforeAll(async () => (server = await start({ stalledTimeoutMs: STALLED_MS })));
  afterAll(() => server.close());

  it(`is dropped once no byte has moved for STALLED_TIMEOUT_MS (${STALLED_MS} ms), not twice that`, async () => {
    // Paused before it connects: it never reads a byte of the answer.
    const before = server.closes.length;
    const socket = connect(server.port, '127.0.0.1');
    socket.pause();
    socket.on('error', () => {});
    await new Promise((done) => socket.once('connect', done));
    socket.write(head(`GET ${RANGE} HTTP/1.1`, { 'accept-encoding': 'identity', connection: 'keep-alive' }));
    const sent = performance.now();
    await new Promise((done) => setTimeout(done, 50));
    expect(server.closes.length, 'the server has the connection').toBe(before + 1);
    const droppedAt = await Promise.race([
      server.closes[before]!,
      new Promise<number>((done) => setTimeout(() => done(Number.POSITIVE_INFINITY), 4 * STALLED_MS)),
    ]);
    socket.destroy();
    const after = droppedAt - sent;
    console.log(`a client that stopped reading was dropped ${after.toFixed(0)} ms after its request`);
    expect(server.responses.at(-1)!.writableFinished, 'the answer was cut, not finished').toBe(false);
    expect(after, 'not before the stall timeout').toBeGreaterThanOrEqual(STALLED_MS);
    expect(after, 'well before twice the stall timeout').toBeLessThan(2 * STALLED_MS - 300);
  }, 15_000);

  it('a client that reads slowly, a sip at a time within the timeout, is served its whole answer', async () => {
    const socket = connect(server.port, '127.0.0.1');
    socket.pause();
    await new Promise((done) => socket.once('connect', done));
    socket.write(head(`GET ${RANGE} HTTP/1.1`, { 'accept-encoding': 'identity' }));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const ended = new Promise<boolean>((done) => socket.once('end', () => done(true)).once('close', () => done(false)));
    let sips = 0;
    const sip = setInterval(() => {
      sips++;
      socket.resume();
      setTimeout(() => socket.pause(), 5);
    }, STALLED_MS * 0.6);
    try {
      expect(await ended, 'the server ends the answer rather than dropping the connection').toBe(true);
    } finally {
      clearInterval(sip);
      socket.destroy();
    }
    expect(received.endsWith('\r\n0\r\n\r\n'), 'the whole chunked answer').toBe(true);
    expect(sips, 'it took several sips').toBeGreaterThan(1);
  }, 60_000);
});

describe('HEAD answers the headers its GET gets', () => {
  let server: Started;
  beforeAll(async () => (server = await start()));
  afterAll(() => server.close());

  /** Headers a GET and its HEAD must share: all but the date, the framing and the per-caller request id (present or not). */
  function described(answer: NodeAnswer) {
    const { date: _, 'transfer-encoding': __, 'x-request-id': id, ...headers } = answer.headers;
    return { status: answer.status, headers, requestId: id !== undefined };
  }

  /** Each path, and whether its answer is long enough to be coded (health's and a 404's are not). */
  const PATHS: [string, boolean][] = [
    ['/api/v1/mortgage-rates', true],
    ['/api/v1/mortgage-rates?termInMonths=12', true],
    ['/api/v1/health', false],
    ['/api/v1/mortgage-rates/time-series?startDate=2024-06-01&endDate=2024-09-01', true],
    ['/api/v1/nowhere', false],
    ['/openapi/json', true],
  ];

  it('for lists, health, a streamed range, a 404 and a page: br, gzip and none, HEAD first or GET first', async () => {
    for (const [path, coded] of PATHS) {
      for (const encoding of ['br', 'gzip', undefined]) {
        const headers: Record<string, string> = encoding ? { 'accept-encoding': encoding } : {};
        for (const order of ['GET', 'HEAD']) {
          clock += 5_000; // a new second: the first of the two makes the answer, the second may reuse it
          const first = await nodeRequest(`${server.url}${path}`, { method: order, headers });
          const second = await nodeRequest(`${server.url}${path}`, {
            method: order === 'GET' ? 'HEAD' : 'GET',
            headers,
          });
          const [get, head] = order === 'GET' ? [first, second] : [second, first];
          const what = `${path} ${encoding ?? 'no Accept-Encoding'}, ${order} first`;
          expect(described(head), what).toEqual(described(get));
          expect(head.body.length, what).toBe(0);
          expect(get.headers['content-encoding'], what).toBe(coded ? encoding : undefined);
          if (get.headers['content-length'] !== undefined)
            expect(Number(get.headers['content-length']), what).toBe(get.body.length);
        }
      }
    }
  });
});
