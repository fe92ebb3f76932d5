/**
 * Vercel's real build (`vercel build`, the CLI in devDependencies) of this checkout, served as
 * Vercel serves its Build Output API folder (test/support/vercel-output.ts), answers the contract's
 * requests as `npm start` answers them, over the same history and site URL. A build that fails, a
 * function that cannot load or a middleware import that is missing fails here, in beforeAll.
 */
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { alertsEndpointOf, exampleMeasureQuery } from '../src/api/alerts.ts';
import { breakEvenEndpointOf } from '../src/api/break-even.ts';
import { endpointsOf, exampleEntityId, HEALTH_PATH } from '../src/endpoints.ts';
import { ALERTS_FEED_FILE, FEEDS_PREFIX, INSTITUTIONS_PATH, STATUS_PATH } from '../src/paths.ts';
import { Health } from '../src/schemas/health.ts';
import { changesEndpointOf } from '../src/changes/endpoint.ts';
import { restToolsOf } from '../src/mcp/rest-tools.ts';
import { API_FUNCTION, API_ROUTE_SOURCE } from '../src/build/on-vercel.ts';
import { SECURITY_HEADERS } from '../src/http/security-headers.ts';
import { STATUS_PAGE_CACHE_CONTROL } from '../src/http/caching.ts';
import { ROOT, SITE } from './support/constants.ts';
import { largestDataset } from './support/datasets.ts';
import { historyDir, newestDates, tempDir } from './support/history.ts';
import { JSON_HEADERS, MCP_PATH, modern } from './support/mcp.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';
import {
  buildWithVercel,
  serveVercelOutput,
  type VercelBuild,
  type VercelDeployment,
} from './support/vercel-output.ts';

let build: VercelBuild | undefined;
let vercel: VercelDeployment;
let local: ProductionSite | undefined;

beforeAll(async () => {
  // The two builds are independent: run side by side, and clean up whichever succeeded if the other failed.
  const [built, served] = await Promise.allSettled([
    buildWithVercel({ snapshotsDir: historyDir(), siteUrl: SITE }),
    buildAndServe({
      name: 'vercel-parity',
      snapshotsDir: historyDir(),
      statusDir: await tempDir('rates-status-'),
      buildEnv: { SITE_URL: SITE },
      serverEnv: { SITE_URL: SITE },
    }),
  ]);
  if (built.status === 'fulfilled') build = built.value;
  if (served.status === 'fulfilled') local = served.value;
  if (built.status === 'rejected') throw built.reason;
  if (served.status === 'rejected') throw served.reason;
  console.log(`vercel build: ${(build!.ms / 1000).toFixed(1)} s`);
  vercel = await serveVercelOutput(build!.outputDir, { SITE_URL: SITE });
}, 900_000);

afterAll(async () => {
  await vercel?.stop();
  await local?.stop();
  await build?.remove();
});

// What the router or a function reported (a function that threw, a payload over Vercel's limit)
// fails the test that caused it.
afterEach(() => {
  const problems = vercel?.problems.splice(0) ?? [];
  expect(problems, 'failures reported while serving the Vercel output').toEqual([]);
  if (local && !local.alive()) expect.fail(`npm start exited:\n${local.output()}`);
});

interface Seen {
  status: number;
  headers: Headers;
  text: string;
}

interface Pair {
  vercel: Seen;
  local: Seen;
}

async function ask(base: string, path: string, init: RequestInit = {}): Promise<Seen> {
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The same request to the Vercel output and to npm start. */
async function both(path: string, init: RequestInit = {}): Promise<Pair> {
  const [v, l] = await Promise.all([ask(vercel.url, path, init), ask(local!.url, path, init)]);
  return { vercel: v, local: l };
}

/**
 * Headers a caller or a cache acts on, compared as the function gives them to Vercel's CDN. The
 * CDN itself then consumes `s-maxage` and `vercel-cdn-cache-control` (vercel.com/docs/caching/
 * cache-control-headers), so a browser on Vercel sees less than this; that cache is not emulated.
 */
const COMPARED = [
  'content-type',
  'cache-control',
  'vercel-cdn-cache-control',
  ...Object.keys(SECURITY_HEADERS),
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
  'allow',
];

/** Response-time values (`timestamp`, raw or inside an MCP text), so two answers of the same data compare equal. */
function normalised({ headers, text }: Seen): unknown {
  const timeless = text.replace(/(\\?"timestamp\\?":\s*\\?")[^"\\]*/g, '$1<time>');
  return headers.get('content-type')?.includes('json') && timeless ? JSON.parse(timeless) : timeless;
}

/** Status, the compared headers (but `except`), whether `x-request-id` is there, and the body: all as npm start answers. */
function expectSame({ vercel: v, local: l }: Pair, what: string, except: string[] = []) {
  expect(v.status, `${what}: status`).toBe(l.status);
  for (const name of COMPARED.filter((h) => !except.includes(h)))
    expect(v.headers.get(name), `${what}: ${name}`).toBe(l.headers.get(name));
  expect(v.headers.has('x-request-id'), `${what}: x-request-id present`).toBe(l.headers.has('x-request-id'));
  expect(normalised(v), `${what}: body`).toEqual(normalised(l));
}

/** Every dataset's list, one detail, and its time series with no date, one date and a range. */
const DATA_PATHS = DATASETS.flatMap((dataset) => {
  const { list, detail, timeSeries } = endpointsOf(dataset);
  const newest = newestDates()[dataset.slug];
  return [
    list.path,
    detail.path.replace(`{${detail.pathParam}}`, exampleEntityId(dataset)),
    timeSeries.path,
    `${timeSeries.path}?date=${newest}`,
    `${timeSeries.path}?startDate=2024-11-01&endDate=${newest}`,
  ];
});

describe('the Vercel build output, served as Vercel serves it, answers as npm start', () => {
  it('builds, with the middleware route before handle: filesystem, and functions of a known size', () => {
    const routes = vercel.config.routes ?? [];
    const middleware = routes.findIndex((r) => r.middlewarePath === 'middleware');
    const filesystem = routes.findIndex((r) => r.handle === 'filesystem');
    expect(middleware).toBeGreaterThanOrEqual(0);
    expect(filesystem).toBeGreaterThan(middleware);
    expect(routes[middleware]).toMatchObject({ continue: true });
    // The API's own function (scripts/build-vercel-api.ts), routed first after the files: /api never reaches Astro's.
    expect(vercel.functions.map((f) => f.name).sort()).toEqual([API_FUNCTION, '_render', 'middleware']);
    expect(routes[filesystem + 1]).toEqual({ src: API_ROUTE_SOURCE, dest: `/${API_FUNCTION}` });
    for (const { name, bytes } of vercel.functions) console.log(`function ${name}.func: ${bytes} bytes`);
  });

  it.each(DATA_PATHS)('%s', async (path) => {
    const pair = await both(path);
    expect(pair.local.status).toBe(200);
    expectSame(pair, path);
  });

  /** Beyond the contract: each dataset's lowest open rates, its quote check, its change log filtered, its alerts (JSON Feed, and Atom under /feeds), its break-even rates where it has fixed terms, and the registry. */
  it.each([
    ...DATASETS.flatMap((d) => {
      const query = `${exampleMeasureQuery(d)}&below=50`;
      const breakEven = breakEvenEndpointOf(d);
      return [
        endpointsOf(d).lowest.path,
        `${endpointsOf(d).quote.path}?${exampleMeasureQuery(d)}&rate=6`,
        `${changesEndpointOf(d).path}?since=2000-01-01&direction=down,new&minBps=10`,
        `${alertsEndpointOf(d).path}?${query}`,
        `${FEEDS_PREFIX}/${d.slug}/${ALERTS_FEED_FILE}?${query}`,
        ...(breakEven ? [breakEven.path] : []),
      ];
    }),
    INSTITUTIONS_PATH,
  ])('%s', async (path) => {
    const pair = await both(path);
    expect(pair.local.status).toBe(200);
    expect(pair.local.text.length).toBeGreaterThan(200);
    expectSame(pair, path);
    expect(vercel.invocations.findLast((i) => i.url === path)?.function, path).toBe(API_FUNCTION);
  });

  it('the status figures: every dataset present, each deployment saying it has no recorded run', async () => {
    const { vercel: v, local: l } = await both(STATUS_PATH);
    expect([v.status, l.status]).toEqual([200, 200]);
    for (const name of ['content-type', 'cache-control']) expect(v.headers.get(name), name).toBe(l.headers.get(name));
    const [onVercel, onNode] = [JSON.parse(v.text), JSON.parse(l.text)];
    expect(Object.keys(onVercel.datasets)).toEqual(DATASETS.map((d) => d.slug));
    expect(Object.keys(onNode.datasets)).toEqual(DATASETS.map((d) => d.slug));
    for (const d of DATASETS) {
      expect(onVercel.datasets[d.slug].runs, d.slug).toBe(0);
      expect(onNode.datasets[d.slug].runs, d.slug).toBe(0);
    }
    expect(onVercel.runLog).toMatchObject({ status: 'empty', store: 'none' });
    expect(onNode.runLog).toMatchObject({ status: 'empty', store: 'filesystem' });
  });

  it.each(
    DATASETS.flatMap((d) =>
      restToolsOf(d)
        .filter((t) => t.name.startsWith('get_lowest_') || t.name.endsWith('_changes'))
        .map((t) => [t.name]),
    ),
  )('MCP tools/call %s answers as npm start', async (name) => {
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: {} } };
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' };
    const pair = await both(MCP_PATH, { method: 'POST', headers, body: JSON.stringify(call) });
    expect(pair.local.status).toBe(200);
    expect(JSON.parse(pair.local.text).result.isError).toBeFalsy();
    expectSame(pair, name);
  });

  it('every /api answer comes from the API function, with the same set of headers as npm start (but the coding, which is the CDN’s there)', async () => {
    const NOT_COMPARED =
      /^(date|connection|keep-alive|transfer-encoding|content-length|content-encoding|vary|x-vercel-.*|x-request-id)$/;
    const names = (headers: Headers) => [...headers.keys()].filter((name) => !NOT_COMPARED.test(name)).sort();
    for (const path of [
      endpointsOf(DATASETS[0]).list.path,
      '/api/v1/nope',
      '/api/v1/health',
      '/api/search?query=rates',
    ]) {
      const pair = await both(path);
      expect(names(pair.vercel.headers), path).toEqual(names(pair.local.headers));
      expect(vercel.invocations.findLast((i) => i.url === path)?.function, path).toBe(API_FUNCTION);
    }
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const mcp = await both(MCP_PATH, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(ping),
    });
    expect(mcp.vercel.status).toBe(200);
    expect(names(mcp.vercel.headers)).toEqual(names(mcp.local.headers));
  });

  it('the largest dataset’s whole history: 200, complete, streamed through the function past the 4.5 MB buffered limit', async () => {
    const largest = await largestDataset(historyDir());
    const path = `${endpointsOf(largest).timeSeries.path}?startDate=2000-01-01&endDate=2099-12-31`;
    const pair = await both(path);
    expect(pair.local.status).toBe(200);
    expectSame(pair, path);
    const invocation = vercel.invocations.findLast((i) => i.url === path)!;
    expect(invocation).toMatchObject({ function: API_FUNCTION, status: 200, streamed: true });
    expect(invocation.bytes).toBeGreaterThan(4_500_000);
    expect(Buffer.byteLength(pair.vercel.text)).toBe(invocation.bytes);
    expect(invocation.chunks).toBeGreaterThan(1);
    expect(invocation.firstChunkMs!).toBeLessThan(invocation.lastChunkMs!);
  });

  it('health: the same data and database status; the status store is each deployment’s own', async () => {
    const { vercel: v, local: l } = await both(HEALTH_PATH);
    expect(v.status).toBe(l.status);
    for (const name of COMPARED) expect(v.headers.get(name), name).toBe(l.headers.get(name));
    expect(v.headers.has('x-request-id')).toBe(true);
    expect(l.headers.has('x-request-id')).toBe(true);
    const [onVercel, onNode] = [JSON.parse(v.text), JSON.parse(l.text)];
    expect(Health.parse(onVercel)).toEqual(onVercel);
    expect(Health.parse(onNode)).toEqual(onNode);
    expect(onVercel.database).toEqual(onNode.database);
    const lastUpdated = (body: any) =>
      Object.fromEntries(Object.entries(body.datasets).map(([slug, d]: [string, any]) => [slug, d.lastUpdated]));
    expect(lastUpdated(onVercel)).toEqual(lastUpdated(onNode));
    // Without BLOB_READ_WRITE_TOKEN a production deployment has no status store, by design, and
    // requires one (README, Configuration): degraded. npm start reads its STATUS_DIR, empty here.
    expect(onVercel.collection).toMatchObject({ status: 'not_configured', store: 'none', required: true });
    expect(onVercel.status).toBe('degraded');
    expect(onNode.collection).toMatchObject({ status: 'not_configured', store: 'filesystem', required: false });
  });

  it('/status: rendered for each request by the site function, with the page’s short shared cache; it says what the deployment lacks', async () => {
    const { vercel: v, local: l } = await both('/status');
    expect(v.status).toBe(200);
    expect(l.status).toBe(200);
    for (const seen of [v, l]) {
      expect(seen.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(seen.headers.get('cache-control')).toBe(STATUS_PAGE_CACHE_CONTROL);
      for (const d of DATASETS) expect(seen.text).toContain(d.title);
    }
    // Production without BLOB_READ_WRITE_TOKEN: health's sentence, said on the page.
    expect(v.text).toContain('Something needs attention');
    expect(v.text).toContain('BLOB_READ_WRITE_TOKEN');
    expect(l.text).toContain('no collector reports here');
  });

  it('MCP 2025-06-18: initialize, then tools/call', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'parity', version: '1' } },
    };
    expectSame(
      await both(MCP_PATH, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(init) }),
      'initialize',
    );
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: restToolsOf(DATASETS.at(-1)!)[0]!.name, arguments: {} },
    };
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' };
    const pair = await both(MCP_PATH, { method: 'POST', headers, body: JSON.stringify(call) });
    expect(pair.local.status).toBe(200);
    expect(JSON.parse(pair.local.text).result.structuredContent.type).toBe(DATASETS.at(-1)!.type);
    expectSame(pair, 'tools/call 2025-06-18');
  });

  it('MCP 2026-07-28: tools/call with its headers and _meta', async () => {
    const pair = await both(MCP_PATH, modern('tools/call', { name: restToolsOf(DATASETS[0])[2]!.name, arguments: {} }));
    expect(pair.local.status).toBe(200);
    expect(JSON.parse(pair.local.text).result.resultType).toBe('complete');
    expectSame(pair, 'tools/call 2026-07-28');
  });

  it('a parameter of the wrong format: 400, without x-request-id', async () => {
    const path = `${endpointsOf(DATASETS[0]).timeSeries.path}?date=5-5-5`;
    const pair = await both(path);
    expect(pair.local.status).toBe(400);
    expect(pair.vercel.headers.has('x-request-id')).toBe(false);
    expectSame(pair, path);
  });

  it('an unknown path: 404, without x-request-id', async () => {
    const pair = await both('/api/v1/nope');
    expect(pair.local.status).toBe(404);
    expect(pair.vercel.headers.has('x-request-id')).toBe(false);
    expectSame(pair, '/api/v1/nope');
  });

  it('a CORS preflight: its status and max-age, without x-request-id', async () => {
    const headers = { origin: 'https://agent.example', 'access-control-request-method': 'GET' };
    const pair = await both(endpointsOf(DATASETS[0]).list.path, { method: 'OPTIONS', headers });
    expect(pair.local.status).toBe(204);
    expect(pair.vercel.headers.get('access-control-max-age')).toBe('600');
    expect(pair.vercel.headers.has('x-request-id')).toBe(false);
    expectSame(pair, 'preflight');
  });

  it.each(['/', '/docs/quickstart'])('the page %s: 200 HTML', async (path) => {
    const pair = await both(path);
    expect(pair.local.status).toBe(200);
    expect(pair.vercel.headers.get('content-type')).toMatch(/^text\/html/);
    expectSame(pair, path, ['cache-control']);
    // Neither sets its own Cache-Control for a page, so each server's default applies; both mean
    // "revalidate before reuse". Vercel's is documented (vercel.com/docs/caching/cache-control-headers);
    // npm start's comes from the Astro Node adapter's file server.
    expect(pair.vercel.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
    expect(pair.local.headers.get('cache-control')).toBe('public, max-age=0');
  });

  it('a docs page asked for as Markdown is its .md file, through the middleware’s rewrite; a browser gets the HTML; both vary with Accept, as npm start', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const [path, file] of [
      ['/docs/quickstart', 'docs/quickstart.md'],
      ['/docs', 'docs.md'],
    ] as const) {
      const markdown = await readFile(join(build!.outputDir, 'static', file), 'utf8');
      const md = await both(path, { headers: { accept: 'text/markdown' } });
      expect(md.vercel.status, path).toBe(200);
      expect(md.vercel.headers.get('content-type'), path).toBe('text/markdown; charset=utf-8');
      expect(md.vercel.text, path).toBe(markdown);
      const html = await both(path, { headers: { accept: browser } });
      expect(html.vercel.status, path).toBe(200);
      expect(html.vercel.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(html.vercel.text, path).toContain('<title>');
      for (const [what, pair] of [
        ['Markdown', md],
        ['HTML', html],
      ] as const) {
        expect(pair.vercel.headers.get('vary'), `${path} ${what}`).toBe('Accept');
        expect(pair.local.headers.get('vary'), `${path} ${what}`).toMatch(/\bAccept\b/);
        expect(pair.vercel.headers.has('x-request-id'), `${path} ${what}`).toBe(false);
        expectSame(pair, `${path} ${what}`, ['cache-control']);
      }
    }
    // The .md file itself is no negotiated page.
    const file = await ask(vercel.url, '/docs/quickstart.md', { headers: { accept: 'text/html' } });
    expect(file.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(file.headers.has('vary')).toBe(false);
  });

  it('the API catalog is a file of the output with vercel.json’s type and Link header: as npm start answers it, and the home page links it', async () => {
    for (const method of ['GET', 'HEAD']) {
      const pair = await both('/.well-known/api-catalog', { method });
      expect(pair.local.status).toBe(200);
      expect(pair.vercel.headers.get('content-type')).toMatch(/^application\/linkset\+json; profile=/);
      expect(pair.vercel.headers.get('link'), method).toBe(pair.local.headers.get('link'));
      expectSame(pair, `${method} /.well-known/api-catalog`, ['cache-control']);
    }
    const home = await both('/');
    expect(home.vercel.headers.get('link')).toBe('</.well-known/api-catalog>; rel="api-catalog"');
    expect(home.vercel.headers.get('link')).toBe(home.local.headers.get('link'));
  });

  it('x-request-id: a safe id sent is echoed; two calls without one get two different ids', async () => {
    const path = endpointsOf(DATASETS[0]).list.path;
    const sent = await both(path, { headers: { 'x-request-id': 'trace-42' } });
    expect(sent.vercel.headers.get('x-request-id')).toBe('trace-42');
    expect(sent.local.headers.get('x-request-id')).toBe('trace-42');
    for (const base of [vercel.url, local!.url]) {
      const [first, second] = [await ask(base, path), await ask(base, path)];
      expect(first.headers.get('x-request-id'), base).toBeTruthy();
      expect(second.headers.get('x-request-id'), base).toBeTruthy();
      expect(first.headers.get('x-request-id'), base).not.toBe(second.headers.get('x-request-id'));
    }
  });

  it('a middleware that cannot load (an import not shipped, a read outside its folder) fails serving, with its error', async () => {
    const outside = JSON.stringify(join(ROOT, 'package.json'));
    const cases = [
      ["import './src/http/request-id.ts';", /ERR_MODULE_NOT_FOUND/],
      [`import { readFileSync } from 'node:fs'; readFileSync(${outside});`, /ERR_ACCESS_DENIED/],
    ] as const;
    for (const [line, error] of cases) {
      const dir = await tempDir('rates-vercel-broken-');
      await cp(join(build!.outputDir, 'config.json'), join(dir, 'config.json'));
      await cp(join(build!.outputDir, 'functions', 'middleware.func'), join(dir, 'functions', 'middleware.func'), {
        recursive: true,
      });
      const file = join(dir, 'functions', 'middleware.func', 'middleware.js');
      await writeFile(file, `${line}\n${await readFile(file, 'utf8')}`);
      await expect(serveVercelOutput(dir, { SITE_URL: SITE })).rejects.toThrow(error);
      await rm(dir, { recursive: true });
    }
  });

  it('a function that may not stream: an answer over 4.5 MB is Vercel’s 500, a smaller one arrives whole', async () => {
    const handler =
      "export default { fetch: (r) => new Response('x'.repeat(Number(new URL(r.url).searchParams.get('n')))) };";
    const dir = await outputOf({
      'config.json': JSON.stringify({ version: 3, routes: [{ handle: 'filesystem' }] }),
      'functions/buffered.func/.vc-config.json': JSON.stringify({ runtime: 'nodejs24.x', handler: 'index.mjs' }),
      'functions/buffered.func/index.mjs': handler,
    });
    const deployment = await serveVercelOutput(dir, { SITE_URL: SITE });
    try {
      const small = await ask(deployment.url, '/buffered?n=4500000');
      expect(small.status).toBe(200);
      expect(small.text).toHaveLength(4_500_000);
      const large = await ask(deployment.url, '/buffered?n=4500001');
      expect(large.status).toBe(500);
      expect(large.headers.get('x-vercel-error')).toBe('FUNCTION_RESPONSE_PAYLOAD_TOO_LARGE');
      expect(deployment.problems).toEqual([expect.stringMatching(/FUNCTION_RESPONSE_PAYLOAD_TOO_LARGE/)]);
    } finally {
      await deployment.stop();
      await rm(dir, { recursive: true });
    }
  });
});

/** A Build Output folder of the given files (path → text). */
async function outputOf(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('rates-vercel-output-');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}
