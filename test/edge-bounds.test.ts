/**
 * The bounds of `npm start`'s edge (src/server/node-server.ts) over real sockets, with the
 * production API listener over the test history: connections counted by client network as well
 * as by address, `Expect: 100-continue` refused before the body is sent when the body is too
 * large, a client that stops reading dropped after the stall timeout (not twice it), and HEAD
 * answered with the headers of its GET, coding included.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { LIMITS as MCP_LIMITS } from '../src/mcp/protocol.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { createApiListener } from '../src/server/api-listener.ts';
import { clientAddress, networkOf } from '../src/server/client-network.ts';
import { DEFAULT_LIMITS, limitsFromEnv, type ServerLimits } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import type { Service } from '../src/service.ts';
import { NOW, SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { type NodeAnswer, nodeRequest } from './support/http.ts';
import { JSON_HEADERS, MCP_PATH, modern } from './support/mcp.ts';
import { head, parseAnswer, type RawAnswer } from './support/raw-http.ts';

/** The service's clock (ms): moved by the HEAD tests, so a GET and its HEAD share a kept answer or do not. */
let clock = 0;
let service: Service;
/** Whether this machine has an IPv6 loopback (::1): the servers then listen on `::`, IPv4 clients arriving as `::ffff:a.b.c.d`. */
let ipv6 = false;

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
async function start(limits: Partial<ServerLimits> = {}, over: Service = service): Promise<Started> {
  const listener = createApiListener(over, { stampRequestIds: true, site: SITE });
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
  await new Promise<void>((done) => server.listen(0, ipv6 ? '::' : '127.0.0.1', done));
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
  ipv6 = Object.values(networkInterfaces()).some((addresses) => addresses?.some((a) => a.address === '::1'));
});

/** A connection from `from` (a loopback address) to `to` on `port`. */
function connection(port: number, from: string, to = from.includes(':') ? '::1' : '127.0.0.1'): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect({ port, host: to, localAddress: from }, () => done(socket));
    socket.once('error', fail);
  });
}

/** Everything the server writes on `socket` until it closes it, or `waitMs` passes. */
function readAll(socket: Socket, waitMs = 3000): Promise<RawAnswer> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      done(parseAnswer(Buffer.concat(chunks).toString('latin1'), closed));
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.once('close', () => finish(true));
  });
}

/** What the server has written on `socket` by the time `waitMs` passes, or it closes: the socket stays open. */
function readFor(socket: Socket, waitMs: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((done) => {
    let text = '';
    let closed = false;
    const onData = (chunk: Buffer) => (text += chunk.toString('latin1'));
    const onClose = () => (closed = true);
    socket.on('data', onData).on('error', () => {});
    socket.once('close', onClose);
    setTimeout(() => {
      socket.off('data', onData).off('close', onClose);
      done({ text, closed });
    }, waitMs);
  });
}

/** The documented error body, with its status and code. */
function expectError(answer: RawAnswer, status: number, error: string, what: string) {
  expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBe(status);
  expect(answer.headers['content-type'], what).toMatch(/^application\/json/);
  const body = ErrorBody.parse(JSON.parse(answer.body));
  expect(body.code, what).toBe(status);
  expect(body.error, what).toBe(error);
  expect(body.documentationUrl, what).toBe(`${SITE}/docs/errors#${error}`);
  return body;
}

describe('connections are counted by client network as well as by address', () => {
  const BOUNDS = { maxConnections: 50, maxConnectionsPerClient: 3, maxConnectionsPerNetwork: 6 };
  let server: Started;
  beforeAll(async () => (server = await start(BOUNDS)));
  afterAll(() => server.close());

  /** A keep-alive connection from `from`, once it has been served (so the server counts it). */
  async function held(from: string): Promise<Socket> {
    const socket = await connection(server.port, from);
    socket.write(head('GET /api/v1/health HTTP/1.1', { connection: 'keep-alive' }));
    const answer = await new Promise<RawAnswer>((done) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        const answer = parseAnswer((text += chunk.toString('latin1')), false);
        if (answer.body.length === Number(answer.headers['content-length'])) done(answer);
      });
    });
    expect(answer.status, `a connection from ${from} is served`).toBe(200);
    return socket;
  }
  const healthFrom = async (from: string) => {
    const socket = await connection(server.port, from);
    socket.write(head('GET /api/v1/health HTTP/1.1'));
    return readAll(socket);
  };

  it(`addresses of one /24 hold ${BOUNDS.maxConnectionsPerNetwork} connections at most: a new address of it gets 503, another network is served`, async () => {
    // Two from each of three addresses: each under the per-address bound, the network at its own.
    const sockets: Socket[] = [];
    try {
      for (const last of [11, 12, 13]) for (let i = 0; i < 2; i++) sockets.push(await held(`127.0.0.${last}`));
      const refused = await healthFrom('127.0.0.14');
      const body = expectError(refused, 503, 'server_error', 'a fresh address of a full network');
      expect(body.hint).toContain(
        `network (its IPv4 /24 or IPv6 /64) has ${BOUNDS.maxConnectionsPerNetwork} connections open`,
      );
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers.connection).toBe('close');
      expect(refused.closed, 'the refused connection is closed').toBe(true);
      // Another /24 of the loopback, and (where the machine has one) the IPv6 loopback, are served.
      expect((await healthFrom('127.0.1.14')).status, 'a client of 127.0.1.0/24').toBe(200);
      if (ipv6) expect((await healthFrom('::1')).status, 'a client of ::/64').toBe(200);
      // One address still stops at its own bound first.
      sockets.push(await held('127.0.1.20'), await held('127.0.1.20'), await held('127.0.1.20'));
      const own = expectError(await healthFrom('127.0.1.20'), 503, 'server_error', 'over the per-address bound');
      expect(own.hint).toContain(`client address has ${BOUNDS.maxConnectionsPerClient} connections open`);
      // Once one of the network's connections closes, a new address of it is served again.
      sockets.shift()!.destroy();
      await new Promise((done) => setTimeout(done, 100));
      expect((await healthFrom('127.0.0.14')).status, 'a place freed in the network').toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it('a network is an IPv4 /24 or an IPv6 /64; an IPv4-mapped IPv6 address counts as its IPv4 address', () => {
    const network = (remote: string) => networkOf(clientAddress(remote));
    expect(clientAddress('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(network('::FFFF:203.0.113.9')).toBe(network('203.0.113.200'));
    expect(network('203.0.113.9')).not.toBe(network('203.0.114.9'));
    expect(network('2001:db8:1:2::1')).toBe(network('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(network('2001:db8:1:2::1')).toBe(network('2001:0db8:0001:0002:0:0:0:9'));
    expect(network('2001:db8:1:3::1')).not.toBe(network('2001:db8:1:2::1'));
    expect(network('fe80::1%eth0')).toBe(network('fe80::2'));
    expect(network('::1')).not.toBe(network('127.0.0.1'));
  });

  it('the server refuses to start with a per-client bound over the per-network one, naming both', () => {
    expect(() => limitsFromEnv({ MAX_CONNECTIONS_PER_CLIENT: '300' })).toThrow(
      'MAX_CONNECTIONS_PER_CLIENT (300) must not exceed MAX_CONNECTIONS_PER_NETWORK (200)',
    );
    expect(limitsFromEnv({ MAX_CONNECTIONS_PER_CLIENT: '300', MAX_CONNECTIONS_PER_NETWORK: '300' })).toMatchObject({
      maxConnectionsPerClient: 300,
      maxConnectionsPerNetwork: 300,
    });
  });
});

describe('Expect: 100-continue', () => {
  let server: Started;
  beforeAll(async () => (server = await start()));
  afterAll(() => server.close());

  const expecting = (target: string, length: number, headers: Record<string, string> = {}, expect = '100-continue') =>
    head(`POST ${target} HTTP/1.1`, { ...headers, 'content-length': String(length), expect, connection: 'keep-alive' });

  it('a declared body over the limit gets the 413 error body before it is sent, never 100 Continue', async () => {
    for (const target of [endpointsOf(DATASETS[0]).list.path, '/docs', MCP_PATH]) {
      const limit = target === MCP_PATH ? MCP_LIMITS.bodyBytes : DEFAULT_LIMITS.maxBodyBytes;
      const headers = target === MCP_PATH ? { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' } : {};
      const socket = await connection(server.port, '127.0.0.1');
      socket.write(expecting(target, limit + 1, headers));
      // No body is sent: all the server writes, it writes to the head alone.
      const answer = await readAll(socket);
      expect(answer.text, target).not.toMatch(/^HTTP\/1\.1 100/);
      expect(answer.status, target).toBe(413);
      expect(answer.body, target).toContain(String(limit));
      expect(answer.closed, `${target}: closed, the body never read`).toBe(true);
      if (target !== MCP_PATH) expectError(answer, 413, 'invalid_request', target);
    }
  });

  it('within the limit, a body that will be read gets 100 Continue, then its answer', async () => {
    const call = modern('tools/list');
    const socket = await connection(server.port, '127.0.0.1');
    socket.write(expecting(MCP_PATH, Buffer.byteLength(call.body), call.headers));
    const first = await readFor(socket, 500);
    expect(first.text).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    const rest = readAll(socket, 5000);
    socket.end(call.body);
    const answer = await rest;
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(JSON.parse(answer.body).result.tools.length).toBeGreaterThan(0);
  });

  it('a client that half-closes once its request is sent still gets its answer, however long it takes', async () => {
    // A service of its own: its first MCP request measures the tools' sizes from cold, long after the FIN.
    const fresh = await start({}, await rawServiceOver(historyDir(), { now: () => NOW }));
    try {
      const call = modern('tools/list');
      const socket = await connection(fresh.port, '127.0.0.1');
      const answer = readAll(socket, 10_000);
      socket.end(
        `POST ${MCP_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(call.headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}content-length: ${Buffer.byteLength(call.body)}\r\n\r\n${call.body}`,
      );
      const { status, body } = await answer;
      expect(status).toBe(200);
      expect(JSON.parse(body).result.tools.length).toBeGreaterThan(0);
    } finally {
      await fresh.close();
    }
  });

  it('an endpoint that takes no body answers at once, without asking for it', async () => {
    const socket = await connection(server.port, '127.0.0.1');
    socket.write(expecting(endpointsOf(DATASETS[0]).list.path, 10));
    const answer = await readAll(socket);
    expect(answer.text).not.toMatch(/^HTTP\/1\.1 100/);
    expectError(answer, 405, 'method_not_allowed', 'a body to a read-only endpoint');
    expect(answer.closed).toBe(true);
  });

  it('any other expectation is a 417 with the error body', async () => {
    const socket = await connection(server.port, '127.0.0.1');
    socket.write(expecting(endpointsOf(DATASETS[0]).list.path, 10, {}, 'something-else'));
    const answer = await readAll(socket);
    expectError(answer, 417, 'invalid_request', 'Expect: something-else');
    expect(answer.closed).toBe(true);
  });
});

describe('a client that stops reading', () => {
  const STALLED_MS = 1500;
  const RANGE = `${endpointsOf(DATASETS[0]).timeSeries.path}?startDate=2024-01-01&endDate=2025-03-05`;
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
    [endpointsOf(DATASETS[0]).list.path, true],
    [`${endpointsOf(DATASETS[0]).list.path}?termInMonths=12`, true],
    ['/api/v1/health', false],
    [`${endpointsOf(DATASETS[0]).timeSeries.path}?startDate=2024-06-01&endDate=2024-09-01`, true],
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
