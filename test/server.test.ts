/**
 * End to end, as a user runs it: the real history, plus one hourly collection from a local
 * stand-in for interest.co.nz (`npm run collect`), built and served by `npm start`, read over HTTP.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsupportedNode } from '../src/lib/node-support.ts';
import { healthTime } from '../src/status/health.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { endpointsOf, exampleListRequest } from '../src/endpoints.ts';
import { restToolsOf } from '../src/mcp/rest-tools.ts';
import { serveSourcePages, startSourceServer, type SourceServer } from './support/source-server.ts';
import { ROOT } from './support/constants.ts';
import { freePort } from './support/free-port.ts';
import {
  firstRate,
  historyDir,
  newestDates,
  newestSnapshots,
  type SnapshotFile,
  tempDir,
  withFirstRateMoved,
} from './support/history.ts';
import { nodeRequest } from './support/http.ts';
import { MCP_PATH, modern } from './support/mcp.ts';
import { OLD_NODE, oldNodeVersion } from './support/old-node.ts';
import { answers, type ServerProcess, startServer } from './support/server-process.ts';

let server: ServerProcess;
let source: SourceServer;
let base: string;
let today: string;
let collectOutput: string;
let newest: Record<DatasetSlug, SnapshotFile>;
/** The dataset whose first rate the collection moves, and another one. */
const A = DATASETS[0];
const B = DATASETS.at(-1)!;
const NEWEST = newestDates();
let cut: ReturnType<typeof withFirstRateMoved>;

/** Pages rendered from each dataset's newest real snapshot, A's first rate cut by 0.6 points. */
async function serveCutPages() {
  source = await startSourceServer();
  newest = await newestSnapshots();
  cut = withFirstRateMoved(newest[A.slug].data, -0.6);
  serveSourcePages(source, (slug) => (slug === A.slug ? cut.data : newest[slug].data));
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
  today = new RegExp(`${A.slug}/(\\d{4}-\\d{2}-\\d{2})\\.json`).exec(collectOutput)?.[1] ?? 'none';
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
    expect(collectOutput).toMatch(new RegExp(`${A.slug}: changed, wrote ${A.slug}/${today}\\.json`));
    expect(collectOutput).toContain(`collect: 1 changed, ${DATASETS.length - 1} unchanged, 0 failed`);
  });

  it('the API serves the newly collected rate, and the history before it', async () => {
    const { list, timeSeries } = endpointsOf(A);
    const response = await fetch(`${base}${list.path}/${cut.first.entity.id}`);
    const body = await response.json();
    expect(body.lastUpdated.slice(0, 10)).toBe(today);
    expect(firstRate(body.data)).toMatchObject({ id: cut.first.id, key: cut.first.key, value: cut.value });
    const series = await (await fetch(`${base}${timeSeries.path}`)).json();
    expect(series.availableDates.at(-2)).toBe(NEWEST[A.slug]);
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
    expect(health.datasets[A.slug].lastUpdated.slice(0, 10)).toBe(today);
    for (const dataset of DATASETS.filter((d) => d !== A))
      expect(health.datasets[dataset.slug].lastUpdated).toBe(healthTime(newest[dataset.slug].lastUpdated));
  });
});

describe('the production server from npm start', () => {
  it('serves the list of every dataset the collection left alone from the built history', async () => {
    for (const { slug, type } of DATASETS.filter((d) => d !== A)) {
      const { lastUpdated } = newest[slug];
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
    const [path, query] = exampleListRequest(A).split('?');
    const detail = await fetch(`${base}${path}/${A.exampleEntityId.toUpperCase()}${query ? `?${query}` : ''}`);
    expect(detail.status).toBe(200);
    expect((await detail.json()).data[0].id).toBe(A.exampleEntityId);
    const series = await (
      await fetch(
        `${base}${endpointsOf(B).timeSeries.path}?date=${NEWEST[B.slug]}&${B.entity.param}=${B.exampleEntityId}`,
      )
    ).json();
    expect(series.timeSeries[NEWEST[B.slug]].data[0].id).toBe(B.exampleEntityId);
    const bare = A.exampleEntityId.slice(A.exampleEntityId.indexOf(':') + 1);
    const previous = await (
      await fetch(`${base}${endpointsOf(A).timeSeries.path}?date=${NEWEST[A.slug]}&${A.entity.param}=${bare}`)
    ).json();
    expect(previous.timeSeries[NEWEST[A.slug]].lastUpdated).toBe(newest[A.slug].lastUpdated);
  });

  it('answers HEAD, preflight, POST and mistakes through the framework exactly as the core does', async () => {
    const head = await fetch(`${base}${endpointsOf(B).list.path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const preflight = await fetch(`${base}${endpointsOf(B).list.path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    const post = await fetch(`${base}${endpointsOf(B).list.path}`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain', origin: 'https://example.org' },
    });
    expect(post.status).toBe(405);
    expect((await post.json()).error).toBe('method_not_allowed');
    const wrongFormat = await fetch(`${base}${endpointsOf(A).timeSeries.path}?date=5-5-5`, {
      headers: { 'x-request-id': 'abc' },
    });
    expect(wrongFormat.status).toBe(400);
    expect(wrongFormat.headers.get('x-request-id')).toBeNull();
    const unknown = await fetch(`${base}/api/v1/no-such-rates`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('not_found');
  });

  it('answers MCP through the same function: a 2026-07-28 tool call equals the REST response', async () => {
    const response = await fetch(
      `${base}${MCP_PATH}`,
      modern(
        'tools/call',
        { name: restToolsOf(B)[1]!.name, arguments: { [B.entity.param]: B.exampleEntityId } },
        { headers: { origin: 'https://agent.example' } },
      ),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const { result } = await response.json();
    const rest = await (await fetch(`${base}${endpointsOf(B).list.path}/${B.exampleEntityId}`)).json();
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
    const plain = await raw(endpointsOf(A).list.path);
    const brotli = await raw(endpointsOf(A).list.path, 'br, gzip');
    const gzip = await raw(endpointsOf(A).list.path, 'gzip');
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

describe.skipIf(!existsSync(OLD_NODE) || !unsupportedNode(oldNodeVersion()))(
  'the same build on an unsupported Node',
  () => {
    it(`the server refuses to start on the machine's own Node, in one line, before it listens`, async () => {
      const port = await freePort();
      const failed = await promisify(execFile)(OLD_NODE, ['scripts/serve.mjs'], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port) },
        timeout: 20_000,
      }).then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr).toBe(`needs Node 22.12 or newer; this is v${oldNodeVersion()}\n`);
    });
  },
);
