/**
 * The bounds of `npm start`'s edge (src/server/node-server.ts) over real sockets, with the
 * production API listener over the test history: HEAD answered with the headers of its GET,
 * coding included.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiListener } from '../src/server/api-listener.ts';
import { DEFAULT_LIMITS, type ServerLimits } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import type { Service } from '../src/service.ts';
import { NOW, SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { type NodeAnswer, nodeRequest } from './support/http.ts';

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
