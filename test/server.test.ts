/** `npm start` as a user runs it: build the real history, serve it, and ask over real HTTP. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyDir, tempDir } from './helpers.ts';

const ROOT = resolve(import.meta.dirname, '..');
let server: ChildProcess;
let base: string;
let output = '';

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
}

async function waitUntilServing(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`npm start exited ${server.exitCode}:\n${output}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`npm start did not serve ${url} in time:\n${output}`);
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: String(port), SNAPSHOTS_DIR: historyDir(), STATUS_DIR: await tempDir('rates-status-'), ASTRO_TELEMETRY_DISABLED: '1' },
  });
  server.stdout!.on('data', (chunk) => (output += chunk));
  server.stderr!.on('data', (chunk) => (output += chunk));
  await waitUntilServing(`${base}/api/v1/health`, Date.now() + 150_000);
}, 160_000);

afterAll(() => {
  if (server?.pid && server.exitCode === null) process.kill(-server.pid, 'SIGTERM');
});

describe('the production server from npm start', () => {
  it('serves the lists of all four datasets from the built history', async () => {
    for (const [slug, type, lastUpdated] of [
      ['mortgage-rates', 'MortgageRates', '2025-03-05T01:32:05.919Z'],
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
    const series = await (await fetch(`${base}/api/v1/credit-card-rates/time-series?date=2025-01-07&issuerId=issuer:amex`)).json();
    expect(series.timeSeries['2025-01-07'].data[0].id).toBe('issuer:amex');
    const health = await fetch(`${base}/api/v1/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).datasets['mortgage-rates'].lastUpdated).toBe('2025-03-05 01:32:05');
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
    const post = await fetch(`${base}/api/v1/car-loan-rates`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain', origin: 'https://example.org' } });
    expect(post.status).toBe(405);
    expect((await post.json()).error).toBe('method_not_allowed');
    const wrongFormat = await fetch(`${base}/api/v1/mortgage-rates?termInMonths=abc`, { headers: { 'x-request-id': 'abc' } });
    expect(wrongFormat.status).toBe(400);
    expect(wrongFormat.headers.get('x-request-id')).toBeNull();
    const unknown = await fetch(`${base}/api/v1/savings-rates`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('not_found');
  });

  it('serves the landing page', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('New Zealand lending rates');
  });
});
