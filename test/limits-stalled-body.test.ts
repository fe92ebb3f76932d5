/**
 * What the limits page (content/docs/limits.md, Timeouts) says of a request body that stops or
 * crawls is what `npm start`'s server does, over a real socket: a body that stops meets both
 * REQUEST_TIMEOUT_MS (from the request's start: a 408) and STALLED_TIMEOUT_MS (from the last byte:
 * dropped with nothing sent), the first to pass deciding; a body that keeps crawling gets the 408.
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiListener } from '../src/server/api-listener.ts';
import { DEFAULT_LIMITS, type ServerLimits } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import type { Service } from '../src/service.ts';
import { ROOT, SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir } from './support/history.ts';
import { MCP_PATH } from './support/mcp.ts';
import { openSocket, parseAnswer, type RawAnswer } from './support/raw-http.ts';

let service: Service;
const servers: { close(): void }[] = [];
beforeAll(async () => {
  service = await rawServiceOver(historyDir());
});
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function start(limits: Partial<ServerLimits>): Promise<number> {
  const server = createNodeServer({
    api: createApiListener(service, { stampRequestIds: true, site: SITE }),
    pages: async () => {},
    limits: { ...DEFAULT_LIMITS, headersTimeoutMs: 500, ...limits },
    site: SITE,
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return (server.address() as AddressInfo).port;
}

/** An MCP POST declaring 100 bytes of body, sent with `first` of them; then `more` every `everyMs` until the server closes. */
async function upload(port: number, options: { everyMs?: number } = {}): Promise<RawAnswer & { afterMs: number }> {
  const socket = await openSocket(port);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => {});
  const started = performance.now();
  socket.write(
    `POST ${MCP_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      'Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
  );
  const crawl = options.everyMs ? setInterval(() => socket.write(' '), options.everyMs) : undefined;
  await new Promise((done) => socket.once('close', done));
  clearInterval(crawl);
  return { ...parseAnswer(text), afterMs: performance.now() - started };
}

describe('a request body that stops or crawls', () => {
  it('stopped, with the stall timeout first: dropped with nothing sent once no byte has moved for it', async () => {
    const port = await start({ requestTimeoutMs: 3000, stalledTimeoutMs: 1000 });
    const answer = await upload(port);
    expect(answer.text).toBe('');
    expect(answer.afterMs).toBeGreaterThanOrEqual(1000);
    expect(answer.afterMs).toBeLessThan(2500);
  });

  it('stopped, with the request timeout first: the 408 error body, and closed', async () => {
    const port = await start({ requestTimeoutMs: 1000, stalledTimeoutMs: 3000 });
    const answer = await upload(port);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 408, error: 'invalid_request' });
    expect(answer.afterMs).toBeLessThan(2900);
  });

  it('crawling, a byte within every stall window: the 408 once the whole request has taken too long', async () => {
    const port = await start({ requestTimeoutMs: 1500, stalledTimeoutMs: 1000 });
    const answer = await upload(port, { everyMs: 200 });
    expect(answer.status).toBe(408);
    expect(answer.afterMs).toBeGreaterThanOrEqual(1500);
  });

  it('the limits page says so, and that at the defaults, equal, either can happen', async () => {
    expect(DEFAULT_LIMITS.requestTimeoutMs).toBe(DEFAULT_LIMITS.stalledTimeoutMs);
    const text = (await readFile(join(ROOT, 'content/docs/limits.md'), 'utf8')).replace(/\s+/g, ' ');
    expect(text).toContain(
      '| whole request, body included, counted from its start: a body that keeps arriving, too slowly | 30 s | `REQUEST_TIMEOUT_MS` | `408`',
    );
    expect(text).toContain(
      'counted from the last byte that moved: a client that stops sending its body, or stops reading its answer | 30 s | `STALLED_TIMEOUT_MS` | the connection is dropped within half a second after it, with nothing sent',
    );
    expect(text).toContain(
      'A client that stops after part of its body gets the `408` if `REQUEST_TIMEOUT_MS` ends first, and is dropped with nothing sent if `STALLED_TIMEOUT_MS` does; at the defaults, both 30 s, either can happen',
    );
    expect(DEFAULT_LIMITS.requestTimeoutMs / 1000).toBe(30);
  });
});
