/**
 * The Node fast path (src/server/fast-path.ts) against the ordinary path (the core through the
 * web adapter, behind compression): the same production server twice, one with the fast path and
 * one without, asked the same requests. Status, headers (but date and the value of a new
 * x-request-id) and decoded bodies must be the same; ready answers are precompressed, so both
 * must also decode to the identity body. And health's status reads are kept for their window.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Core } from '../src/api/app.ts';
import { STATUS_CACHE_MS } from '../src/api/health.ts';
import { withRequestIds } from '../src/api/request-id.ts';
import { NODE_CODINGS } from '../src/server/codings.ts';
import { serveFast } from '../src/server/fast-path.ts';
import { DEFAULT_LIMITS } from '../src/server/limits.ts';
import { toNodeListener } from '../src/server/node-http.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';
import { FileStatusStore, type CollectionStatus, type StatusStore } from '../src/status/status-store.ts';
import { NOW, SITE } from './support/constants.ts';
import { historyDir, tempDir } from './support/history.ts';
import { decodedText, type NodeAnswer, nodeRequest } from './support/http.ts';

const ask = (base: string, path: string, method: string, headers: Record<string, string>) =>
  nodeRequest(`${base}${path}`, { method, headers });

/** What must be equal: date and a generated id differ per response, nothing else may. */
function comparable(answer: NodeAnswer, sentId: boolean) {
  const { date, 'x-request-id': id, connection, 'keep-alive': _, ...headers } = answer.headers;
  return {
    status: answer.status,
    headers,
    id: id === undefined ? 'none' : sentId ? id : 'generated',
    body: decodedText(answer),
  };
}

async function start(core: Core, fast: boolean) {
  const server = createNodeServer({
    api: toNodeListener(withRequestIds(core), SITE),
    fast: fast ? (req, res) => serveFast(core, req, res) : undefined,
    pages: async (_req, res) => void res.end('page'),
    limits: DEFAULT_LIMITS,
    site: SITE,
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let fast: Awaited<ReturnType<typeof start>>;
let ordinary: Awaited<ReturnType<typeof start>>;
let fastCore: Core;
let date: string;

beforeAll(async () => {
  const store = servedStoreOf(await compileSnapshotTree(historyDir()));
  const status = new FileStatusStore(await tempDir('rates-status-'));
  const core = () =>
    createApi({
      loadStore: async () => store,
      status,
      now: () => NOW,
      siteUrl: SITE,
      codings: NODE_CODINGS,
      statusCacheMs: STATUS_CACHE_MS,
    });
  fastCore = core();
  fast = await start(fastCore, true);
  ordinary = await start(core(), false);
  date = store.newest('mortgage-rates').dates.at(-1)!;
});

afterAll(() => {
  for (const { server } of [fast, ordinary]) {
    server.closeAllConnections();
    server.close();
  }
});

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

async function both(path: string, method: string, headers: Record<string, string>) {
  // Twice each: the first answer makes the URL ready, the second is the fast path's.
  await ask(fast.url, path, method, headers);
  const [a, b] = [await ask(fast.url, path, method, headers), await ask(ordinary.url, path, method, headers)];
  const sentId = 'x-request-id' in headers;
  return { fast: a, ordinary: b, same: [comparable(a, sentId), comparable(b, sentId)] as const };
}

describe('the Node fast path answers as the ordinary path does', () => {
  it('every endpoint kind, filter, bad parameter and unknown path, GET and HEAD, with every kind of Accept-Encoding', async () => {
    let taken = 0;
    for (const path of PATHS()) {
      for (const method of ['GET', 'HEAD']) {
        for (const encoding of ENCODINGS) {
          const headers: Record<string, string> = encoding === undefined ? {} : { 'accept-encoding': encoding };
          const { same, fast: answer } = await both(path, method, headers);
          expect(same[0], `${method} ${path} ${encoding}`).toEqual(same[1]);
          if (fastCore.readyAnswer(path)) taken++;
          if (answer.body.length > 0 && answer.headers['content-encoding'])
            expect(JSON.parse(decodedText(answer))).toBeTruthy();
        }
      }
    }
    expect(taken).toBeGreaterThan(PATHS().length * 10); // most of these were the fast path's
  });

  it('conditional GETs per coding: each coding has its own ETag and a 304 only for its own', async () => {
    const path = '/api/v1/mortgage-rates';
    const plain = await ask(fast.url, path, 'GET', {});
    const br = await ask(fast.url, path, 'GET', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    expect(decodedText(br)).toBe(plain.body.toString());
    for (const [encoding, etag, status] of [
      ['br', br.headers.etag!, 304],
      ['br', plain.headers.etag!, 200],
      ['identity', plain.headers.etag!, 304],
      ['gzip', br.headers.etag!, 200],
    ] as const) {
      const headers = { 'accept-encoding': encoding, 'if-none-match': etag, 'x-request-id': 'abc-1' };
      const { same, fast: answer } = await both(path, 'GET', headers);
      expect(answer.status, `${encoding} ${etag}`).toBe(status);
      expect(same[0]).toEqual(same[1]);
    }
  });

  it('request ids: echoed when safe, new when not, none on unknown paths and wrong-format 400s', async () => {
    for (const [path, id, expected] of [
      ['/api/v1/mortgage-rates', 'caller-7', 'caller-7'],
      ['/api/v1/mortgage-rates', 'bad id!', 'generated'],
      ['/api/v1/nowhere', 'caller-7', 'none'],
      ['/api/v1/mortgage-rates?termInMonths=abc', 'caller-7', 'none'],
    ] as const) {
      const { fast: answer, ordinary: other } = await both(path, 'GET', { 'x-request-id': id });
      for (const { headers } of [answer, other]) {
        const sent = headers['x-request-id'];
        if (expected === 'none') expect(sent).toBeUndefined();
        else if (expected === 'generated') expect(sent).toMatch(/^[0-9a-f-]{36}$/);
        else expect(sent).toBe(expected);
      }
    }
  });
});

describe('health keeps its status store reads for a stated window', () => {
  it('two requests within the window read the store once; after it, twice', async () => {
    let reads = 0;
    const counting: StatusStore = {
      kind: 'filesystem',
      required: false,
      read: async (): Promise<CollectionStatus | null> => {
        reads++;
        return null;
      },
      write: async () => {},
    };
    let clock = 0;
    const store = servedStoreOf(await compileSnapshotTree(historyDir()));
    const core = createApi({
      loadStore: async () => store,
      status: counting,
      now: () => NOW,
      siteUrl: SITE,
      statusCacheMs: STATUS_CACHE_MS,
      clock: () => clock,
    });
    const health = () => core(new Request('http://rates.test/api/v1/health'));
    expect((await health()).status).toBe(200);
    const perRound = reads;
    expect(perRound).toBeGreaterThan(0); // one read per dataset
    clock += STATUS_CACHE_MS - 1;
    expect((await health()).status).toBe(200);
    expect(reads).toBe(perRound);
    clock += 1;
    expect((await health()).status).toBe(200);
    expect(reads).toBe(2 * perRound);
  });
});
