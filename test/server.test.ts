/**
 * End to end, as a user runs it: the real history, plus one hourly collection from a local
 * stand-in for interest.co.nz (`npm run collect`), built and served by `npm start`, read over HTTP.
 */
import { execFile } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { serveSourcePages, startSourceServer, type SourceServer } from './support/source-server.ts';
import { ROOT } from './support/constants.ts';
import { freePort } from './support/free-port.ts';
import { historyDir, newestSnapshots, tempDir, withAnzSpecial } from './support/history.ts';
import { nodeRequest } from './support/http.ts';
import { MCP_PATH, modern } from './support/mcp.ts';
import { answers, type ServerProcess, startServer } from './support/server-process.ts';

let server: ServerProcess;
let source: SourceServer;
let base: string;
let today: string;
let collectOutput: string;

/** Pages rendered from each dataset's newest real snapshot, with ANZ's Special 1-year mortgage rate cut to 4.69. */
async function serveCutPages() {
  source = await startSourceServer();
  const newest = await newestSnapshots();
  serveSourcePages(source, (slug) =>
    slug === 'mortgage-rates' ? withAnzSpecial(newest[slug].data, 4.69) : newest[slug].data,
  );
}

beforeAll(async () => {
  const snapshots = await tempDir('rates-e2e-');
  const statusDir = await tempDir('rates-status-');
  await cp(historyDir(), snapshots, { recursive: true });
  await serveCutPages();
  const before = new Date().toISOString().slice(0, 10);
  const collected = await promisify(execFile)('npm', ['run', '--silent', 'collect'], {
    cwd: ROOT,
    env: { ...process.env, INTEREST_BASE_URL: source.url, SNAPSHOTS_DIR: snapshots, STATUS_DIR: statusDir },
  });
  collectOutput = collected.stdout;
  // The UTC date the collector stamped (the run may straddle midnight).
  today = /mortgage-rates\/(\d{4}-\d{2}-\d{2})\.json/.exec(collectOutput)?.[1] ?? 'none';
  expect([before, new Date().toISOString().slice(0, 10)]).toContain(today);

  const port = await freePort();
  // npm start builds, then serves: its own process group, so stopping it stops the server too.
  server = await startServer('npm', ['start'], {
    port,
    env: {
      ...process.env,
      PORT: String(port),
      SNAPSHOTS_DIR: snapshots,
      STATUS_DIR: statusDir,
      ASTRO_TELEMETRY_DISABLED: '1',
    },
    detached: true,
    ready: answers('/api/v1/health'),
    pollMs: 250,
    timeoutMs: 150_000,
  });
  base = server.url;
}, 160_000);

afterAll(async () => {
  await server?.stop();
  await source?.close();
});

describe('a collection, then npm start', () => {
  it('the collector wrote only the dataset whose rates moved', () => {
    expect(collectOutput).toMatch(new RegExp(`mortgage-rates: changed, wrote mortgage-rates/${today}\\.json`));
    expect(collectOutput).toContain('collect: 1 changed, 3 unchanged, 0 failed');
  });

  it('the API serves the newly collected rate, and the history before it', async () => {
    const response = await fetch(`${base}/api/v1/mortgage-rates/institution:anz?termInMonths=12`);
    const body = await response.json();
    expect(body.lastUpdated.slice(0, 10)).toBe(today);
    expect(body.data[0].products.find((p: any) => p.name === 'Special').rates).toEqual([
      { id: 'rate:anz:special:1-year', rate: 4.69, term: '1 year', termInMonths: 12 },
    ]);
    const series = await (await fetch(`${base}/api/v1/mortgage-rates/time-series`)).json();
    expect(series.availableDates.at(-2)).toBe('2025-03-05');
    expect(series.availableDates.at(-1)).toBe(today);
  });

  it('health reports every dataset checked just now, not stale, and the service ok', async () => {
    const health = await (await fetch(`${base}/api/v1/health`)).json();
    expect(health.status).toBe('ok');
    for (const dataset of DATASETS) {
      const { lastChecked, stale } = health.datasets[dataset.slug];
      expect(lastChecked.slice(0, 10)).toBe(today);
      expect(stale).toBe(false);
    }
    expect(health.datasets['mortgage-rates'].lastUpdated.slice(0, 10)).toBe(today);
    expect(health.datasets['car-loan-rates'].lastUpdated).toBe('2025-02-24 22:04:32');
  });
});

describe('the production server from npm start', () => {
  it('serves the lists of all four datasets from the built history', async () => {
    for (const [slug, type, lastUpdated] of [
      ['personal-loan-rates', 'PersonalLoanRates', '2025-02-04T20:04:55.942Z'],
      ['car-loan-rates', 'CarLoanRates', '2025-02-24T22:04:32.157Z'],
      ['credit-card-rates', 'CreditCardRates', '2025-01-07T08:06:01.522Z'],
    ]) {
      const response = await fetch(`${base}/api/v1/${slug}`, { headers: { origin: 'https://example.org' } });
      expect(response.status, slug).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('x-request-id')).toBeTruthy();
      const body = await response.json();
      expect(body).toMatchObject({ type, lastUpdated });
    }
  });

  it('answers detail, time series and health', async () => {
    const detail = await fetch(`${base}/api/v1/mortgage-rates/INSTITUTION:ANZ?termInMonths=12`);
    expect(detail.status).toBe(200);
    expect((await detail.json()).data[0].id).toBe('institution:anz');
    const series = await (
      await fetch(`${base}/api/v1/credit-card-rates/time-series?date=2025-01-07&issuerId=issuer:amex`)
    ).json();
    expect(series.timeSeries['2025-01-07'].data[0].id).toBe('issuer:amex');
    const previous = await (
      await fetch(`${base}/api/v1/mortgage-rates/time-series?date=2025-03-05&institutionId=anz`)
    ).json();
    expect(previous.timeSeries['2025-03-05'].lastUpdated).toBe('2025-03-05T01:32:05.919Z');
  });

  it('answers HEAD, preflight, POST and mistakes through the framework exactly as the core does', async () => {
    const head = await fetch(`${base}/api/v1/car-loan-rates`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const preflight = await fetch(`${base}/api/v1/car-loan-rates`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    const post = await fetch(`${base}/api/v1/car-loan-rates`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain', origin: 'https://example.org' },
    });
    expect(post.status).toBe(405);
    expect((await post.json()).error).toBe('method_not_allowed');
    const wrongFormat = await fetch(`${base}/api/v1/mortgage-rates?termInMonths=abc`, {
      headers: { 'x-request-id': 'abc' },
    });
    expect(wrongFormat.status).toBe(400);
    expect(wrongFormat.headers.get('x-request-id')).toBeNull();
    const unknown = await fetch(`${base}/api/v1/savings-rates`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('not_found');
  });

  it('answers MCP through the same function: a 2026-07-28 tool call equals the REST response', async () => {
    const response = await fetch(
      `${base}${MCP_PATH}`,
      modern(
        'tools/call',
        { name: 'get_credit_card_rates_by_issuer', arguments: { issuerId: 'issuer:amex' } },
        { headers: { origin: 'https://agent.example' } },
      ),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const { result } = await response.json();
    const rest = await (await fetch(`${base}/api/v1/credit-card-rates/issuer:amex`)).json();
    expect({ ...result.structuredContent, timestamp: null }).toEqual({ ...rest, timestamp: null });
    expect((await fetch(`${base}${MCP_PATH}`)).status).toBe(405);
  });

  it('compresses for clients that accept it, caches built assets as immutable', async () => {
    const raw = async (path: string, encoding?: string) => {
      const { status, headers, body } = await nodeRequest(`${base}${path}`, {
        headers: encoding ? { 'accept-encoding': encoding } : {},
      });
      return { status, headers, length: body.length };
    };
    const plain = await raw('/api/v1/mortgage-rates');
    const brotli = await raw('/api/v1/mortgage-rates', 'br, gzip');
    const gzip = await raw('/api/v1/mortgage-rates', 'gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(brotli.length).toBeLessThan(plain.length / 5);
    expect((await raw('/docs', 'gzip')).headers['content-encoding']).toBe('gzip');
    const html = await (await fetch(`${base}/openapi`)).text();
    const asset = /(\/_astro\/[^"']+\.(?:css|js))/.exec(html)?.[1];
    expect(asset).toBeTruthy();
    expect((await raw(asset!)).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('serves the landing page', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('New Zealand lending rates');
  });
});
