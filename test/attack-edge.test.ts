/**
 * Outside in, over real sockets: the production server as `npm start` runs it (built, then
 * scripts/serve.mjs), with lower limits from the environment so timeouts and the connection cap
 * are reached quickly. Each attack is a burst of hostile requests or connections; after each one
 * the process is alive, health answers within 1 s on a new connection, and its RSS is back within
 * RSS_MARGIN_MB of where it was before. Every refusal is the documented JSON error body.
 *
 * `npm run attack` runs this file alone and puts the figures table in bench/RESULTS.md.
 */
import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prependResults } from '../bench/lib/harness.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import {
  eventually,
  figures,
  figuresTable,
  openFds,
  probeHealth,
  rssMb,
  sampler,
  type HealthProbe,
} from './support/attack-probe.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';
import { head, openSocket, parseAnswer, rawRequest, type RawAnswer } from './support/raw-http.ts';
import { historyDir } from './support/history.ts';

/** The server's limits under test (the defaults are larger; see src/server/limits.ts). */
const LIMITS = {
  HEADERS_TIMEOUT_MS: 2000,
  REQUEST_TIMEOUT_MS: 4000,
  KEEP_ALIVE_TIMEOUT_MS: 2000,
  STALLED_TIMEOUT_MS: 3000,
  MAX_CONNECTIONS: 200,
  MAX_CONNECTIONS_PER_CLIENT: 180,
};
/** How far above its level before an attack the server's RSS may stay once the attack is over. */
const RSS_MARGIN_MB = 64;
const FULL_RANGE = '/api/v1/mortgage-rates/time-series?startDate=2024-01-01&endDate=2025-12-31';

let site: ProductionSite;
let port: number;

beforeAll(async () => {
  const statusDir = await mkdtemp(join(tmpdir(), 'rates-attack-status-'));
  site = await buildAndServe({
    name: 'attack',
    snapshotsDir: historyDir(),
    statusDir,
    serverEnv: Object.fromEntries(Object.entries(LIMITS).map(([name, value]) => [name, String(value)])),
  });
  port = Number(new URL(site.url).port);
  // Warm up: what a first request loads (the history, the search index, the page handler, both
  // compressors), and 30 full-range time series at once read by fast clients, so the heap has
  // its working size and RSS before an attack is the server at work, not the server at start.
  const get = (path: string, encoding: string) =>
    new Promise<void>((done, fail) =>
      httpRequest(`${site.url}${path}`, { headers: { 'accept-encoding': encoding } }, (res) =>
        res.resume().on('end', done),
      )
        .on('error', fail)
        .end(),
    );
  for (const encoding of ['identity', 'br', 'gzip']) {
    for (const path of [FULL_RANGE, '/api/v1/mortgage-rates', '/api/search?query=rates', '/docs', '/openapi/json'])
      await get(path, encoding);
  }
  await Promise.all(Array.from({ length: 30 }, (_, i) => get(FULL_RANGE, i % 3 === 0 ? 'br' : 'identity')));
}, 180_000);

afterAll(async () => {
  site?.stop();
  if (figures.length === 0) return;
  const table = figuresTable(figures);
  console.log(`\n${table}\n`);
  if (process.env.ATTACK_RESULTS) {
    const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const limits = Object.entries(LIMITS)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
    await prependResults(
      `## Attack run of ${when} UTC\n\n\`npm run attack\` · Node ${process.version} · the built server (scripts/serve.mjs) with ${limits}, warmed up first (every kind of request once per encoding, and 30 full-range time series at once); after each attack the process must be alive, health must answer within 1 s on a new connection, and RSS must come back within ${RSS_MARGIN_MB} MB of its level before the attack. Loopback, 2 cores, the suite's own client on the same machine\n\n${table}`,
      '# Benchmark results\n',
    );
  }
});

/** The documented error body, with its status, error code and documentation link. */
function expectError(answer: RawAnswer, status: number, error?: string, what = '') {
  expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).toBe(status);
  expect(answer.headers['content-type'], what).toMatch(/^application\/json/);
  const body = ErrorBody.parse(JSON.parse(answer.body));
  expect(body.code, what).toBe(status);
  if (error) expect(body.error, what).toBe(error);
  expect(body.documentationUrl, what).toBe(`${site.url}/docs/errors#${body.error}`);
  return body;
}

/**
 * Run one attack and check the server held: alive, health 200 within 1 s, RSS back within the
 * margin. `run` gets a probe to call while the attack is under way, and says what was tried.
 */
async function attack(name: string, run: (probeDuring: () => Promise<HealthProbe>) => Promise<string>) {
  const rssBefore = rssMb(site.pid);
  const peak = sampler(site.pid);
  let healthDuring: HealthProbe | undefined;
  let tried: string;
  try {
    tried = await run(async () => (healthDuring = await probeHealth(port)));
  } finally {
    peak.stop();
  }
  const alive = site.alive();
  const healthAfter = alive ? await probeHealth(port) : { status: 0, ms: 0 };
  let rssAfter = alive ? rssMb(site.pid) : 0;
  if (alive) await eventually(() => (rssAfter = rssMb(site.pid)) <= rssBefore + RSS_MARGIN_MB, 20_000, 250);
  const held = alive && healthAfter.status === 200 && healthAfter.ms < 1000 && rssAfter <= rssBefore + RSS_MARGIN_MB;
  figures.push({
    attack: name,
    tried,
    held,
    rssBefore,
    rssPeak: Math.max(peak.stop().rss, rssAfter),
    rssAfter,
    healthDuring,
    healthAfter,
  });
  expect(alive, `${name}: the server process is alive\n${site.output().slice(-2000)}`).toBe(true);
  expect(healthAfter.status, `${name}: health answers`).toBe(200);
  expect(healthAfter.ms, `${name}: health within 1 s`).toBeLessThan(1000);
  expect(rssAfter, `${name}: RSS back within ${RSS_MARGIN_MB} MB of ${rssBefore.toFixed(0)} MB`).toBeLessThanOrEqual(
    rssBefore + RSS_MARGIN_MB,
  );
}

describe('raw request lines: every method on every kind of path', () => {
  const KNOWN_OTHER = ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND', 'QUERY', 'PURGE', 'M-SEARCH'];
  const JUNK = ['FOO', 'get', 'GETT', 'G@T', 'A'.repeat(200), '<script>', 'GET\u0000'];
  type Kind = 'api' | 'unknown-api' | 'page' | 'missing-page' | 'openapi';
  const PATHS: [string, Kind][] = [
    ['/api/v1/health', 'api'],
    ['/api/v1/mortgage-rates?termInMonths=12', 'api'],
    ['/api/v1/car-loan-rates/time-series?date=2025-02-24', 'api'],
    ['/api/v1/credit-card-rates/issuer:amex', 'api'],
    ['/api/search?query=rates', 'api'],
    ['/api/nothing', 'unknown-api'],
    ['/api', 'unknown-api'],
    ['/', 'page'],
    ['/docs/errors', 'page'],
    ['/rates', 'page'],
    ['/no-such-page', 'missing-page'],
    ['/openapi/json', 'openapi'],
  ];

  function expected(method: string, kind: Kind): { status: number; error?: string; allow?: string } {
    if (JUNK.includes(method)) return { status: 400, error: 'invalid_request' };
    if (method === 'CONNECT') return { status: 405, error: 'method_not_allowed' };
    const read = method === 'GET' || method === 'HEAD';
    switch (kind) {
      case 'api':
        if (read) return { status: 200 };
        return method === 'OPTIONS'
          ? { status: 204 }
          : { status: 405, error: 'method_not_allowed', allow: 'GET, HEAD, OPTIONS' };
      case 'unknown-api':
        return method === 'OPTIONS' ? { status: 204 } : { status: 404, error: 'not_found' };
      case 'openapi':
        if (read) return { status: 200 };
        return method === 'OPTIONS'
          ? { status: 204 }
          : { status: 405, error: 'method_not_allowed', allow: 'GET, HEAD, OPTIONS' };
      case 'page':
      case 'missing-page':
        if (read) return { status: kind === 'page' ? 200 : 404 };
        return { status: 405, error: 'method_not_allowed', allow: 'GET, HEAD' };
    }
  }

  it('answers each with its status; every refusal is the documented JSON body; the process lives', async () => {
    await attack('every method × path, raw request lines', async () => {
      let sent = 0;
      for (const method of ['GET', 'HEAD', 'OPTIONS', ...KNOWN_OTHER, 'CONNECT', ...JUNK]) {
        for (const [path, kind] of PATHS) {
          const answer = await rawRequest(
            port,
            head(`${method} ${path} HTTP/1.1`, { origin: 'https://elsewhere.example' }),
          );
          sent++;
          const want = expected(method, kind);
          const what = `${JSON.stringify(method)} ${path}`;
          expect(answer.status, what).toBe(want.status);
          if (want.error && method !== 'HEAD') expectError(answer, want.status, want.error, what);
          if (want.allow) expect(answer.headers.allow, what).toBe(want.allow);
          if (method === 'HEAD') expect(answer.body, what).toBe('');
          if (want.status === 204)
            expect(answer.headers['access-control-max-age'], `${what}: a preflight browsers may keep`).toBe('600');
          if (method === 'GET' && kind === 'api')
            expect(answer.headers['cache-control'], what).toMatch(/^(no-store|public, max-age=300)/);
          if (kind === 'missing-page' && method === 'GET') {
            // The site's own 404 page: the layout and helpful links, and no framework's name.
            expect(answer.headers['content-type'], what).toMatch(/^text\/html/);
            expect(answer.body).toContain('Page not found');
            expect(answer.body).toContain('href="/docs"');
            const text = answer.body.replace(/<[^>]*>/g, ' ');
            expect(text.toLowerCase(), 'the visible text names no framework').not.toMatch(/astro|vite|node\.js/);
            expect(answer.body).not.toContain('404: Not Found');
          }
        }
      }
      return `${sent} requests`;
    });
  }, 60_000);
});

describe('hostile Host values', () => {
  const BAD = [
    '1.2.3.256',
    'a b',
    'a:99999',
    '[',
    'a%zz',
    'u@h',
    'x:abc',
    '[::1',
    ':80',
    'h/path',
    'h?q',
    'h#f',
    'a\\b',
    '*',
    '"x"',
    'a,b',
    'é.example',
    `${'a'.repeat(3000)}:1:2`,
    'h:80:80',
    'h:-1',
    '[zz::1]',
  ];
  /** Usable but not ours: served, and (the first three, unique strings) never echoed in a body. */
  const FOREIGN = ['evil-7f3a.example', 'POISON-7f3a.example:80', 'a_b-7f3a.internal', '[::1]:1', 'localhost'];

  it('an unusable Host is a 400 invalid_request on the API and the pages alike; a foreign one never reaches a body', async () => {
    await attack('malformed and hostile Host values', async () => {
      let sent = 0;
      for (const path of ['/api/v1/health', '/api/v1/mortgage-rates', '/', '/openapi/json']) {
        for (const host of BAD) {
          const answer = await rawRequest(port, head(`GET ${path} HTTP/1.1`, { host }));
          sent++;
          expectError(answer, 400, 'invalid_request', `Host ${JSON.stringify(host.slice(0, 40))} on ${path}`);
          expect(answer.headers.connection).toBe('close');
        }
        for (const host of FOREIGN) {
          const answer = await rawRequest(port, head(`GET ${path} HTTP/1.1`, { host }));
          sent++;
          expect(answer.status, `Host ${host} on ${path}`).toBe(200);
          if (host.includes('7f3a'))
            expect(answer.body.toLowerCase()).not.toContain(host.toLowerCase().replace(/:\d+$/, ''));
        }
        const missing = await rawRequest(port, `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
        const twice = await rawRequest(
          port,
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
        );
        const http10 = await rawRequest(port, `GET ${path} HTTP/1.0\r\n\r\n`);
        sent += 3;
        expect(expectError(missing, 400, 'invalid_request', `no Host on ${path}`).message).toBe('Missing Host header');
        expect(expectError(twice, 400, 'invalid_request', `two Hosts on ${path}`).message).toBe(
          'More than one Host header',
        );
        expect(http10.status, `HTTP/1.0 without Host on ${path}`).toBe(200);
      }
      return `${sent} requests`;
    });
  }, 60_000);
});

describe('bad framing', () => {
  const post = (headers: string, body = '') =>
    `POST /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n${body}`;
  const CASES: [string, string, number][] = [
    [
      'Content-Length and Transfer-Encoding together',
      post('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'),
      400,
    ],
    ['two different Content-Lengths', post('Content-Length: 5\r\nContent-Length: 6\r\n', 'hello!'), 400],
    ['Content-Length not a number', post('Content-Length: abc\r\n'), 400],
    ['Content-Length negative', post('Content-Length: -1\r\n'), 400],
    [
      'a chunk size that is not hex',
      'GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
      400,
    ],
    ['Transfer-Encoding not ending in chunked', post('Transfer-Encoding: chunked, identity\r\n'), 400],
    ['an unknown Transfer-Encoding', post('Transfer-Encoding: xchunked\r\n'), 400],
    [
      'chunk extensions beyond the limit',
      post('Transfer-Encoding: chunked\r\n', `5;${'a'.repeat(20_000)}\r\nhello\r\n0\r\n\r\n`),
      413,
    ],
    ['a 20 KB header', head('GET /api/v1/health HTTP/1.1', { 'x-big': 'a'.repeat(20_000) }), 431],
    ['a 20 KB request target', head(`GET /api/v1/health?${'a'.repeat(20_000)} HTTP/1.1`), 431],
    [
      'a thousand headers',
      head(
        'GET /api/v1/health HTTP/1.1',
        Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x-h${i}`, 'v'.repeat(20)])),
      ),
      431,
    ],
    ['bare LF line endings', 'GET /api/v1/health HTTP/1.1\nHost: 127.0.0.1\n\n', 400],
    ['a NUL in a header value', 'GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u0000b\r\n\r\n', 400],
    ['a folded header line', 'GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n b\r\n\r\n', 400],
    ['a space before the colon', 'GET /api/v1/health HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n', 400],
    ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400],
    ['an unknown HTTP version', 'GET /api/v1/health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n', 400],
    ['a TLS ClientHello', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003', 400],
    ['a request target that is not a path', head('GET api/v1/health HTTP/1.1'), 400],
    ['OPTIONS *', head('OPTIONS * HTTP/1.1'), 400],
    ['a declared 2 GB body to the API', post('Content-Length: 2000000000\r\n'), 413],
    [
      'a declared 2 GB body to a page',
      'POST /docs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000000\r\n\r\n',
      413,
    ],
  ];

  it('each is answered with the documented JSON body and the connection closed', async () => {
    await attack('bad framing (CL/TE, chunks, huge heads, bad lines)', async () => {
      for (const [what, bytes, status] of CASES) {
        const answer = await rawRequest(port, bytes);
        expectError(answer, status, 'invalid_request', what);
        expect(answer.headers.connection, what).toBe('close');
        expect(answer.closed, `${what}: the server closes the connection`).toBe(true);
      }
      return `${CASES.length} requests`;
    });
  }, 60_000);
});

describe('requests with no body framing', () => {
  // Neither Content-Length nor Transfer-Encoding: a body of length 0 (RFC 9112, 6.3), whose stream
  // the server gets already ended (optimizeEmptyRequests), so nothing may wait for its 'end'.
  const MCP_HEADERS = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  };

  it('an MCP POST without them is answered at once: its empty body is a -32700 parse error', async () => {
    const answer = await rawRequest(port, head('POST /api/v1/mcp HTTP/1.1', MCP_HEADERS), 2000);
    expect(answer.closed, 'answered, not left waiting for a body').toBe(true);
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('REST, search and pages answer such requests as any other, on one keep-alive connection in turn', async () => {
    const socket = await openSocket(port);
    try {
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      for (const path of ['/api/v1/mortgage-rates?termInMonths=12', '/api/search?query=anz', '/docs/errors']) {
        received = '';
        socket.write(head(`GET ${path} HTTP/1.1`, { connection: 'keep-alive' }));
        const whole = () => {
          const answer = parseAnswer(received, false);
          if (answer.status === 0) return false;
          const length = answer.headers['content-length'];
          return length === undefined ? received.endsWith('\r\n0\r\n\r\n') : answer.body.length === Number(length);
        };
        expect(await eventually(whole, 3000, 10), `${path}: a whole answer on the same connection`).toBe(true);
        expect(parseAnswer(received, false).status, path).toBe(200);
      }
    } finally {
      socket.destroy();
    }
  });
});

describe('prototype keys as query parameters', () => {
  const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
  const PATHS = [
    '/api/v1/health',
    '/api/v1/mortgage-rates',
    '/api/v1/mortgage-rates/institution:anz',
    FULL_RANGE,
    '/api/search?query=rates',
  ];

  it('is an unknown parameter like any other: 400 invalid_request naming it, never the 5.6 MB answer', async () => {
    await attack('?__proto__=x and other prototype keys', async () => {
      let sent = 0;
      for (const path of PATHS) {
        for (const name of NAMES) {
          for (const value of ['x', '1', `v${sent}`]) {
            const answer = await rawRequest(
              port,
              head(`GET ${path}${path.includes('?') ? '&' : '?'}${name}=${value} HTTP/1.1`),
            );
            sent++;
            const body = expectError(answer, 400, 'invalid_request', `${name}=${value} on ${path}`);
            expect(body.hint).toContain(JSON.stringify(name));
            expect(answer.body.length).toBeLessThan(1000);
          }
        }
        const bracket = await rawRequest(
          port,
          head(`GET ${path}${path.includes('?') ? '&' : '?'}__proto__[polluted]=1 HTTP/1.1`),
        );
        sent++;
        expectError(bracket, 400, 'invalid_request', `__proto__[polluted] on ${path}`);
      }
      // And nothing was polluted: a normal answer still has only its own keys.
      const health = await (await fetch(`${site.url}/api/v1/health`)).json();
      expect(health.polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      return `${sent} requests`;
    });
  }, 60_000);
});

/** A socket that writes `first`, then `next()` every `everyMs` until closed; resolves with what came back when the server closes it. */
function trickle(first: string, next: () => string, everyMs: number, waitMs: number): Promise<RawAnswer> {
  return openSocket(port).then(
    (socket) =>
      new Promise((done) => {
        const chunks: Buffer[] = [];
        const timer = setInterval(() => socket.writable && socket.write(next()), everyMs);
        const limit = setTimeout(() => finish(false), waitMs);
        const finish = (closed: boolean) => {
          clearInterval(timer);
          clearTimeout(limit);
          socket.destroy();
          done(parseAnswer(Buffer.concat(chunks).toString('latin1'), closed));
        };
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', () => {});
        socket.on('close', () => finish(true));
        socket.write(first);
      }),
  );
}

describe('slow clients', () => {
  it('slow headers (slowloris): each is cut off with 408 once the head deadline passes; silent connections are closed', async () => {
    await attack('slowloris: 100 trickled heads, 50 silent connections', async (probe) => {
      const slow = Array.from({ length: 100 }, (_, i) =>
        trickle(`GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n`, () => `x-${i}: ${i}\r\n`, 300, 20_000),
      );
      const silent = Array.from({ length: 50 }, () => trickle('', () => '', 60_000, 20_000));
      await new Promise((r) => setTimeout(r, 500));
      const during = await probe();
      expect(during.status, 'health answers while the slow heads trickle').toBe(200);
      for (const answer of await Promise.all(slow)) {
        expect(answer.closed, 'closed by the server').toBe(true);
        expectError(answer, 408, 'invalid_request', 'slow head');
      }
      for (const answer of await Promise.all(silent))
        expect(answer.closed, 'a silent connection is closed by the server').toBe(true);
      return '150 connections';
    });
  }, 60_000);

  it('slow bodies: a body that never finishes is cut off with 408; a body nobody reads is refused at once', async () => {
    await attack('slow bodies: 30 trickled to MCP, 30 to a REST endpoint', async (probe) => {
      const mcp = Array.from({ length: 30 }, () =>
        trickle(
          'POST /api/v1/mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10000\r\n\r\n{',
          () => ' ',
          300,
          20_000,
        ),
      );
      const rest = Array.from({ length: 30 }, () =>
        trickle(
          'POST /api/v1/mortgage-rates HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000\r\n\r\n',
          () => 'x',
          300,
          20_000,
        ),
      );
      await new Promise((r) => setTimeout(r, 500));
      expect((await probe()).status, 'health answers while the bodies trickle').toBe(200);
      for (const answer of await Promise.all(mcp)) {
        expect(answer.closed).toBe(true);
        expectError(answer, 408, 'invalid_request', 'slow body');
      }
      for (const answer of await Promise.all(rest)) {
        expect(answer.closed).toBe(true);
        expectError(answer, 405, 'method_not_allowed', 'a body to a read-only endpoint');
      }
      return '60 connections';
    });
  }, 60_000);

  it('an idle keep-alive connection is closed after its timeout', async () => {
    const answer = await rawRequest(port, head('GET /api/v1/health HTTP/1.1', { connection: 'keep-alive' }), 15_000);
    expect(answer.status).toBe(200);
    expect(answer.headers['keep-alive']).toBe(`timeout=${LIMITS.KEEP_ALIVE_TIMEOUT_MS / 1000}`);
    expect(answer.closed, 'the server closed the idle connection').toBe(true);
  }, 30_000);
});

describe('clients that stop reading', () => {
  it('a full-range time series (5.6 MB) to 30 clients that never read: not buffered, and dropped after the stall timeout', async () => {
    await attack('30 clients stop reading a 5.6 MB time series', async (probe) => {
      const fdsBefore = openFds(site.pid);
      const rssBefore = rssMb(site.pid);
      const sockets: Socket[] = [];
      const received: number[] = [];
      const closedByServer: Promise<boolean>[] = [];
      for (let i = 0; i < 30; i++) {
        const socket = await openSocket(port);
        socket.pause(); // never read
        socket.on('error', () => {});
        sockets.push(socket);
        closedByServer.push(
          new Promise((done) => socket.once('end', () => done(true)).once('close', () => done(true))),
        );
        socket.write(
          head(`GET ${FULL_RANGE} HTTP/1.1`, {
            'accept-encoding': i % 3 === 0 ? 'br' : 'identity',
            connection: 'keep-alive',
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 1000));
      expect((await probe()).status, 'health answers while 30 answers are stuck').toBe(200);
      const peak = sampler(site.pid);
      // The server lets go of every stalled connection (its descriptors return).
      const released = await eventually(
        () => openFds(site.pid) <= fdsBefore + 2,
        LIMITS.STALLED_TIMEOUT_MS + 15_000,
        200,
      );
      const { rss } = peak.stop();
      expect(released, `open fds back to ${fdsBefore} (now ${openFds(site.pid)})`).toBe(true);
      // Had the answers been built or buffered whole behind the clients, 30 × 5.6 MB would show here.
      expect(rss - rssBefore, 'memory did not grow with the unread answers').toBeLessThan(150);
      // Reading now, each client finds a cut-off answer and the end of the connection.
      for (const [i, socket] of sockets.entries()) {
        let bytes = 0;
        socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
        socket.resume();
        expect(await closedByServer[i], `client ${i} sees the server close`).toBe(true);
        received.push(bytes);
        socket.destroy();
      }
      expect(Math.max(...received.filter((_, i) => i % 3 !== 0))).toBeLessThan(5_500_000);
      return '30 connections';
    });
  }, 60_000);

  it('compressed streamed answers leave no drain listeners behind (no MaxListenersExceededWarning)', async () => {
    await attack('8 compressed 5.6 MB time series, read slowly', async () => {
      for (let i = 0; i < 8; i++) {
        await new Promise<void>((done, fail) =>
          httpRequest(`${site.url}${FULL_RANGE}`, { headers: { 'accept-encoding': i % 2 ? 'br' : 'gzip' } }, (res) => {
            expect(res.headers['content-encoding']).toBe(i % 2 ? 'br' : 'gzip');
            // Read in small sips, so the server meets backpressure again and again.
            res.on('data', () => {
              res.pause();
              setTimeout(() => res.resume(), 1);
            });
            res.on('end', done);
          })
            .on('error', fail)
            .end(),
        );
      }
      expect(site.output()).not.toMatch(/MaxListenersExceededWarning|listeners added/);
      return '8 requests';
    });
  }, 90_000);
});

describe('a connection flood', () => {
  it(`${LIMITS.MAX_CONNECTIONS} connections are served at most; the rest get 503 with retry-after and are closed; descriptors stay bounded`, async () => {
    await attack('connection flood: 2,000 sockets at once', async (probe) => {
      const fdsBefore = openFds(site.pid);
      const peak = sampler(site.pid, 50);
      const answers: Promise<RawAnswer>[] = [];
      for (let batch = 0; batch < 8; batch++) {
        for (let i = 0; i < 250; i++)
          answers.push(trickle('', () => '', 60_000, 1500).catch(() => parseAnswer('', true)));
        await new Promise((r) => setImmediate(r));
      }
      await new Promise((r) => setTimeout(r, 300));
      const during = await probe();
      const settled = await Promise.all(answers);
      const { fds } = peak.stop();
      const refused = settled.filter((a) => a.status === 503);
      for (const answer of refused) {
        expectError(answer, 503, 'server_error', 'over the cap');
        expect(answer.headers['retry-after']).toBe('1');
        expect(answer.closed).toBe(true);
      }
      // No connection got anything but a 503 or silence (the ones under the cap sent no request).
      expect(settled.filter((a) => a.status !== 503 && a.status !== 0)).toEqual([]);
      expect(refused.length).toBeGreaterThanOrEqual(2000 - LIMITS.MAX_CONNECTIONS - 50);
      expect(fds - fdsBefore, 'open descriptors stay near the cap').toBeLessThan(LIMITS.MAX_CONNECTIONS + 150);
      expect([200, 503]).toContain(during.status); // answered either way: served, or refused at once
      return `2,000 connections (${refused.length} refused with 503)`;
    });
  }, 60_000);
});

/** GET /api/v1/health from another client address (127.0.0.2, on the loopback like the other tests' 127.0.0.1). */
function healthFromAnotherClient(): Promise<RawAnswer> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' }, () =>
      socket.write(head('GET /api/v1/health HTTP/1.1')),
    );
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => done(parseAnswer(Buffer.concat(chunks).toString('latin1'), true)));
  });
}

describe('one client holding the connection cap', () => {
  it(`one address holds at most ${LIMITS.MAX_CONNECTIONS_PER_CLIENT} connections (1,200 half-sent heads, reopened as they end): the rest get 503, and another client is served throughout`, async () => {
    await attack('one client holds the cap: 1,200 half-sent heads, reopened for 5 s', async (probe) => {
      const deadline = Date.now() + 5000;
      const answers: RawAnswer[] = [];
      const hold = async (): Promise<void> => {
        while (Date.now() < deadline) {
          const half = 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n';
          answers.push(await trickle(half, () => '', 60_000, 6000).catch(() => parseAnswer('', true)));
          await new Promise((r) => setTimeout(r, 1000)); // reopened a second after each one ends
        }
      };
      const holders = Array.from({ length: 1200 }, hold);
      await new Promise((r) => setTimeout(r, 500));
      const others: RawAnswer[] = [];
      while (Date.now() < deadline - 500) {
        others.push(await healthFromAnotherClient());
        await new Promise((r) => setTimeout(r, 200));
      }
      await probe();
      await Promise.all(holders);
      expect(others.length).toBeGreaterThanOrEqual(10);
      expect(others.map((a) => a.status)).toEqual(others.map(() => 200));
      const refused = answers.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThan(1000); // 1,020 at once, then again as they are reopened
      const body = expectError(refused[0]!, 503, 'server_error', 'over the per-client cap');
      expect(body.hint).toContain(
        `has ${LIMITS.MAX_CONNECTIONS_PER_CLIENT} connections open, the most one client may hold`,
      );
      return `${answers.length} connections from one address (${refused.length} refused), ${others.length} health probes from another: all 200`;
    });
  }, 60_000);
});
