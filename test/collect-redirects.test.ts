/**
 * Redirects are followed only to the source's own host and port (src/collect/fetch-page.ts),
 * against real local servers: the source on 127.0.0.1, "another host" on 127.0.0.2 (another
 * loopback address, so another hostname), `localhost` (the same machine, but not the same
 * hostname) and "another port", a second server on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../src/collect/collect.ts';
import { FetchError, fetchPage, MAX_REDIRECTS } from '../src/collect/fetch-page.ts';
import { DATASETS } from '../src/datasets.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { historyDir, newestDates, tempDir, treeOfNewest } from './support/history.ts';

/** Two retries, so a refusal that was retried would show as more requests. */
const FAST = { timeoutMs: 1_000, retries: 2, retryDelayMs: 5 };

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface TinyServer {
  origin: string;
  port: number;
  /** Every request's path, in order. */
  requests: string[];
  handle: Handler;
  close(): Promise<void>;
}

async function startServer(host: string): Promise<TinyServer> {
  const sockets = new Set<Socket>();
  const tiny: TinyServer = {
    origin: '',
    port: 0,
    requests: [],
    handle: (_req, res) => void res.writeHead(404).end('not found'),
    close: () =>
      new Promise((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
  const server = createServer((req, res) => {
    tiny.requests.push(req.url ?? '');
    tiny.handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  tiny.port = (server.address() as { port: number }).port;
  tiny.origin = `http://${host}:${tiny.port}`;
  return tiny;
}

const redirect = (res: ServerResponse, status: number, location?: string) =>
  void res.writeHead(status, location === undefined ? {} : { location }).end('moved');

/** The other host's page: nothing of it may reach an error, a log or the status page. */
const OTHER_TITLE = 'Zanzibar Parked Domain Offers';
const OTHER_PAGE = `<!DOCTYPE html><html><head><title>${OTHER_TITLE}</title></head><body><h1>${OTHER_TITLE}</h1><p>quokka-marmalade</p></body></html>`;

let source: TinyServer;
let other: TinyServer;
let otherPort: TinyServer;

beforeAll(async () => {
  source = await startServer('127.0.0.1');
  other = await startServer('127.0.0.2');
  otherPort = await startServer('127.0.0.1');
});
afterAll(() => Promise.all([source.close(), other.close(), otherPort.close()]));
beforeEach(() => {
  for (const server of [source, other, otherPort]) server.requests.length = 0;
  for (const server of [other, otherPort])
    server.handle = (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(OTHER_PAGE);
});

/** The error fetchPage rejects with. */
async function refusal(url: string): Promise<FetchError> {
  const error = await fetchPage(url, FAST).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}

describe('fetchPage and redirects', () => {
  it(`follows a chain of ${MAX_REDIRECTS} redirects on the same host (every redirect status, relative and absolute) to its page`, async () => {
    const statuses = [301, 302, 303, 307, 308];
    expect(statuses).toHaveLength(MAX_REDIRECTS);
    source.handle = (req, res) => {
      const hop = Number(/^\/hop\/(\d+)$/.exec(req.url ?? '')?.[1] ?? Number.NaN);
      if (hop < MAX_REDIRECTS) {
        // Odd hops give an absolute Location, naming the source's own host and port.
        const path = `/hop/${hop + 1}`;
        return redirect(res, statuses[hop]!, hop % 2 ? `${source.origin}${path}` : path);
      }
      if (hop === MAX_REDIRECTS) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>the page</p>');
      res.writeHead(404).end();
    };
    expect(await fetchPage(`${source.origin}/hop/0`, FAST)).toBe('<p>the page</p>');
    expect(source.requests).toEqual(Array.from({ length: MAX_REDIRECTS + 1 }, (_, i) => `/hop/${i}`));
  });

  it('refuses a redirect to another host at once: never asks it, names the host, does not retry', async () => {
    source.handle = (_req, res) => redirect(res, 302, `${other.origin}/borrowing`);
    const error = await refusal(`${source.origin}/borrowing`);
    expect(error.message).toContain('another host (127.0.0.2)');
    expect(error.message).toContain('followed only within 127.0.0.1');
    expect(error.message).not.toContain(OTHER_TITLE);
    expect(source.requests).toEqual(['/borrowing']);
    expect(other.requests).toEqual([]);
    // The other host was there to be asked: the test is not passing for want of a server.
    expect(await (await fetch(`${other.origin}/borrowing`)).text()).toBe(OTHER_PAGE);
  });

  it('refuses a redirect to another port of the same host at once: never asks it, names both ports', async () => {
    source.handle = (_req, res) => redirect(res, 302, `http://127.0.0.1:${otherPort.port}/borrowing`);
    const error = await refusal(`${source.origin}/borrowing`);
    expect(error.message).toContain(`another port (127.0.0.1:${otherPort.port}) refused`);
    expect(error.message).toContain(`followed only to 127.0.0.1:${source.port}`);
    expect(error.message).not.toContain(OTHER_TITLE);
    expect(source.requests).toEqual(['/borrowing']);
    expect(otherPort.requests).toEqual([]);
    // The other port was there to be asked: the test is not passing for want of a server.
    expect(await (await fetch(`${otherPort.origin}/borrowing`)).text()).toBe(OTHER_PAGE);
  });

  it('refuses http → https off the schemes’ own ports (80 → 443 is the one upgrade followed)', async () => {
    source.handle = (_req, res) => redirect(res, 301, `https://127.0.0.1:${source.port}/secure`);
    const error = await refusal(`${source.origin}/plain`);
    expect(error.message).toContain(
      `redirect from http://127.0.0.1:${source.port} to https://127.0.0.1:${source.port} refused; http becomes https only from port 80 to port 443`,
    );
    expect(source.requests).toEqual(['/plain']);
  });

  it('compares hostnames exactly: localhost is another host than 127.0.0.1, even on the same server', async () => {
    source.handle = (req, res) =>
      req.url === '/start' ? redirect(res, 301, `http://localhost:${source.port}/page`) : res.end('the page');
    const error = await refusal(`${source.origin}/start`);
    expect(error.message).toContain('another host (localhost)');
    expect(source.requests).toEqual(['/start']);
  });

  it(`refuses a redirect loop past ${MAX_REDIRECTS} redirects, once (no retry)`, async () => {
    source.handle = (_req, res) => redirect(res, 302, '/loop');
    const error = await refusal(`${source.origin}/loop`);
    expect(error.message).toMatch(new RegExp(`more than ${MAX_REDIRECTS} redirects from .*/loop refused`));
    expect(source.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('refuses a redirect without a Location, once (no retry)', async () => {
    source.handle = (_req, res) => redirect(res, 302);
    const error = await refusal(`${source.origin}/nowhere`);
    expect(error.message).toContain('HTTP 302');
    expect(error.message).toContain('without a Location');
    expect(source.requests).toEqual(['/nowhere']);
  });

  it('quotes a hostile host short: a 600-character hostname is cut to 200', async () => {
    const host = `${'a'.repeat(600)}.example`;
    source.handle = (_req, res) => redirect(res, 307, `http://${host}/`);
    const error = await refusal(`${source.origin}/long`);
    const quoted = /another host \(([^)]*)\)/.exec(error.message)?.[1] ?? '';
    expect(quoted).toHaveLength(200);
    expect(quoted.endsWith('…')).toBe(true);
    expect(source.requests).toEqual(['/long']);
  });
});

describe('a collection whose page redirects to another host', () => {
  const dataset = DATASETS[0];

  it('fails that dataset, keeps its newest snapshot, and records the host but nothing of its page', async () => {
    const snapshots = await treeOfNewest();
    const status = new FileStatusStore(await tempDir('rates-status-'));
    source.handle = (_req, res) => redirect(res, 301, `${other.origin}${dataset.sourcePath}`);
    const [result] = await collect({
      baseUrl: source.origin,
      snapshotsDir: snapshots,
      status,
      datasets: [dataset.slug],
      now: () => new Date('2026-11-21T03:00:00.000Z'),
      fetch: FAST,
    });
    expect(result!.outcome).toBe('failed');
    expect(other.requests).toEqual([]);
    expect(source.requests).toEqual([dataset.sourcePath]);

    const date = newestDates()[dataset.slug];
    expect(await readdir(join(snapshots, dataset.slug))).toEqual([`${date}.json`]);
    expect(await readFile(join(snapshots, dataset.slug, `${date}.json`), 'utf8')).toBe(
      await readFile(join(historyDir(), dataset.slug, `${date}.json`), 'utf8'),
    );

    const recorded = await status.read(dataset.slug);
    expect(recorded?.lastChecked).toBeNull();
    expect(recorded?.lastErrorAt).toBe('2026-11-21T03:00:00.000Z');
    expect(recorded?.lastError).toContain('another host (127.0.0.2)');
    expect(recorded?.lastError).not.toContain(OTHER_TITLE);
    expect(recorded?.lastError).not.toContain('quokka');
  });
});
