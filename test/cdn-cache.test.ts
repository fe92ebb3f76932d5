/**
 * Through a real shared cache: nginx, started here, keyed on method and URL like a CDN and
 * honouring the server's Cache-Control, in front of two production builds of different snapshot
 * trees (a deployment, then the next one). Two set-ups:
 *
 * - as on Vercel: nginx plays the CDN, and runs the routing middleware (src/server/vercel-middleware.ts)
 *   on every /api/v1 request before its cache, adding the headers it returns, as Vercel does; the
 *   origin is the function Vercel runs for /api (src/server/vercel-function.ts, built);
 * - self-hosted: the nginx configuration printed on the docs' caching page, in front of `npm start`.
 *
 * Either way a caller sees: a second identical request is a cache HIT, ids are never shared
 * between callers (hits included), a sent id comes back, nothing varies on x-request-id, and
 * after a deployment with new data an old ETag gets the new answer while the current one gets 304.
 */
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_CACHE_CONTROL, VERCEL_CDN_CACHE_CONTROL } from '../src/http/caching.ts';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { endpointsOf, exampleListRequest } from '../src/endpoints.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import middleware from '../src/server/vercel-middleware.ts';
import { ROOT } from './support/constants.ts';
import { freePort } from './support/free-port.ts';
import { historyDir, newestDates, tempDir } from './support/history.ts';
import { type Listening, listen, nodeRequest } from './support/http.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';
import { NGINX, type Running, startNginx } from './support/nginx.ts';
import { startServer } from './support/server-process.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ANY_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

/** The routing middleware as Vercel runs it: the request in, the headers it adds out (nginx's auth_request asks here). */
function startMiddleware(): Promise<Listening> {
  return listen((req, res) => {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const method = headers.get('x-original-method') ?? 'GET';
    const answer = middleware(new Request(`http://${req.headers.host}${req.url}`, { method, headers }));
    if (answer.headers.get('x-middleware-next') !== '1') {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, Object.fromEntries([...answer.headers].filter(([name]) => name !== 'x-middleware-next'))).end();
  });
}

/** nginx as Vercel's edge: routing middleware before the cache on /api/v1, the CDN cache, the function behind. */
function vercelEdge(functionUrl: string, middlewareUrl: string) {
  const fn = new URL(functionUrl).host;
  const mw = new URL(middlewareUrl).host;
  return (port: number, dir: string) => `
  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=cdn:10m inactive=1d use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    location /api/v1/ {
      auth_request /_routing_middleware;
      auth_request_set $middleware_request_id $upstream_http_x_request_id;
      add_header X-Request-Id $middleware_request_id always;
      add_header X-Cache-Status $upstream_cache_status always;
      proxy_pass http://${fn};
      proxy_cache cdn;
      proxy_cache_key $request_method$request_uri;
    }
    location / {
      add_header X-Cache-Status $upstream_cache_status always;
      proxy_pass http://${fn};
      proxy_cache cdn;
      proxy_cache_key $request_method$request_uri;
    }
    location = /_routing_middleware {
      internal;
      proxy_pass http://${mw}$request_uri;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-Method $request_method;
    }
  }`;
}

/** The nginx configuration of content/docs/caching.md, pointed at this origin, port and cache folder. */
async function documentedEdge(originUrl: string) {
  const page = await readFile(resolve(ROOT, 'content/docs/caching.md'), 'utf8');
  const documented = /```nginx\n([\s\S]*?)```/.exec(page)?.[1];
  if (!documented) throw new Error('content/docs/caching.md has no nginx block');
  for (const part of ['/var/cache/nginx/nz-rates', 'listen 80;', 'http://127.0.0.1:8787']) {
    if (!documented.includes(part)) throw new Error(`the documented nginx configuration no longer has ${part}`);
  }
  return (port: number, dir: string) =>
    documented
      .replace('/var/cache/nginx/nz-rates', `${dir}/cache`)
      .replace('listen 80;', `listen 127.0.0.1:${port};`)
      .replaceAll('http://127.0.0.1:8787', `http://${new URL(originUrl).host}`);
}

/** Every answer seen through a cache, for the check that nothing varies on x-request-id. */
const seen: Response[] = [];
const through = async (base: string, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${base}${path}`, init);
  seen.push(response);
  return response;
};
const status = (response: Response) => response.headers.get('x-cache-status');

/**
 * The datasets the requests name: A's newest snapshot is what the newer deployment adds; B is one
 * it leaves alone; C another (each test asks for paths no earlier test asked the same cache for).
 */
const A = DATASETS[0];
const B = DATASETS.at(-1)!;
const C = DATASETS[1] ?? A;
const list = (d: Dataset) => endpointsOf(d).list.path;
const series = (d: Dataset) => endpointsOf(d).timeSeries.path;
const newestOf = (d: Dataset) => newestDates()[d.slug];

let oldSite: ProductionSite;
let newSite: ProductionSite;
const functions: Record<'old' | 'new', Running> = {} as never;
let mw: Listening;
const cleanup: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install nginx (.ci/run does)`);
  // The deployment before: the same history without A's newest snapshot.
  const older = await tempDir('rates-cdn-old-');
  await cp(historyDir(), older, { recursive: true });
  const newestOfA = (await readdir(join(older, A.slug))).sort().at(-1)!;
  await rm(join(older, A.slug, newestOfA));
  const statusDir = await tempDir('rates-status-');
  cleanup.push(
    () => rm(older, { recursive: true, force: true }),
    () => rm(statusDir, { recursive: true, force: true }),
  );
  [oldSite, newSite] = await Promise.all([
    buildAndServe({ name: 'cdn-old', snapshotsDir: older, statusDir }),
    buildAndServe({ name: 'cdn-new', snapshotsDir: historyDir(), statusDir }),
  ]);
  cleanup.push(
    () => oldSite.stop(),
    () => newSite.stop(),
  );
  // The function Vercel runs for /api, from the same build, with no layer in front.
  for (const [key, site] of [
    ['old', oldSite],
    ['new', newSite],
  ] as const) {
    const port = await freePort();
    const env = {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      SITE_URL: site.url,
      ASTRO_TELEMETRY_DISABLED: '1',
    };
    functions[key] = await startServer(process.execPath, [join(ROOT, 'test', 'support', 'function-server.mjs')], {
      port,
      env: { ...env, BUILD_DIR: site.buildDir },
    });
    cleanup.push(() => functions[key].stop());
  }
  mw = await startMiddleware();
  cleanup.push(() => mw.close());
}, 240_000);

afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe.each([
  ['as on Vercel: routing middleware before the CDN cache, the function behind', 'vercel'],
  ['self-hosted: the documented nginx configuration in front of npm start', 'self-hosted'],
] as const)('%s', (_title, setup) => {
  let edge: Running;
  const edgeFor = async (deployment: 'old' | 'new') =>
    startNginx(
      setup === 'vercel'
        ? vercelEdge(functions[deployment].url, mw.url)
        : await documentedEdge((deployment === 'old' ? oldSite : newSite).url),
    );
  const idPattern = setup === 'vercel' ? UUID : ANY_ID;

  beforeAll(async () => {
    edge = await edgeFor('old');
  });
  afterAll(() => edge?.stop());

  it('keeps one answer per method and URL: the second identical request is a HIT with the same bytes', async () => {
    const path = list(C);
    const first = await through(edge.url, path);
    const firstBody = await first.text();
    const second = await through(edge.url, path);
    expect(first.status).toBe(200);
    expect(status(first)).toBe('MISS');
    expect(status(second)).toBe('HIT');
    expect(await second.text()).toBe(firstBody); // even the timestamp: the origin was not asked again
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.headers.get('cache-control')).toContain('max-age=300');
  });

  it("never hands one caller's id to another, on a HIT too; a sent id comes back", async () => {
    const path = `${list(B)}/${B.exampleEntityId}`;
    const a = await through(edge.url, path);
    const b = await through(edge.url, path);
    const c = await through(edge.url, path, { headers: { 'x-request-id': 'caller-c.1' } });
    const d = await through(edge.url, path, { headers: { 'x-request-id': 'not safe' } });
    expect([a, b, c, d].map(status)).toEqual(['MISS', 'HIT', 'HIT', 'HIT']);
    const [idA, idB, idD] = [a, b, d].map((r) => r.headers.get('x-request-id'));
    for (const id of [idA, idB, idD]) expect(id).toMatch(idPattern);
    expect(new Set([idA, idB, idD]).size).toBe(3);
    expect(c.headers.get('x-request-id')).toBe('caller-c.1');
    expect(idD).not.toBe('not safe');
  });

  it('HEAD and a 304 from the cache carry the id as the 200 does', async () => {
    const path = `${series(B)}?date=${newestOf(B)}`;
    const etag = (await through(edge.url, path)).headers.get('etag')!;
    const head = await through(edge.url, path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-request-id')).toMatch(idPattern);
    const revalidated = await through(edge.url, path, {
      headers: { 'if-none-match': etag, 'x-request-id': 'revalidate-1' },
    });
    expect(revalidated.status).toBe(304);
    expect(status(revalidated)).toBe('HIT');
    expect(revalidated.headers.get('x-request-id')).toBe('revalidate-1');
    const anonymous = await through(edge.url, path, { headers: { 'if-none-match': etag } });
    expect(anonymous.status).toBe(304);
    expect(anonymous.headers.get('x-request-id')).toMatch(idPattern);
  });

  it('adds no id where the contract has none: unknown paths and wrong-format 400s, cached or not', async () => {
    for (const [path, code] of [
      ['/api/v1/no-such-thing', 404],
      [`${series(A)}?date=5-5-5`, 400],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const response = await through(edge.url, path, { headers: { 'x-request-id': 'should-not-come-back' } });
        expect(response.status, path).toBe(code);
        expect(response.headers.get('x-request-id'), path).toBeNull();
        expect(ErrorBody.parse(await response.json()).code).toBe(code);
      }
    }
    const unknownParam = await through(edge.url, `${list(A)}?colour=blue`, {
      headers: { 'x-request-id': 'kept' },
    });
    expect(unknownParam.status).toBe(400);
    expect(unknownParam.headers.get('x-request-id')).toBe('kept');
  });

  it('after a deployment with new data (a new, empty cache): the old ETag gets 200 and the new ETag, which then gets 304', async () => {
    const changed = `${list(A)}/${A.exampleEntityId}`;
    const unchanged = list(B);
    const before = await through(edge.url, changed);
    const oldEtag = before.headers.get('etag')!;
    const unchangedEtag = (await through(edge.url, unchanged)).headers.get('etag')!;
    const oldLastUpdated = (await before.json()).lastUpdated;
    expect((await through(edge.url, changed, { headers: { 'if-none-match': oldEtag } })).status).toBe(304);

    await edge.stop();
    edge = await edgeFor('new');

    const after = await through(edge.url, changed, {
      headers: { 'if-none-match': oldEtag, 'x-request-id': 'after-deploy' },
    });
    expect(after.status).toBe(200);
    const newEtag = after.headers.get('etag')!;
    expect(newEtag).toMatch(/^"[\w.-]+"$/);
    expect(newEtag).not.toBe(oldEtag);
    expect((await after.json()).lastUpdated > oldLastUpdated).toBe(true);
    expect(after.headers.get('x-request-id')).toBe('after-deploy');

    const current = await through(edge.url, changed, { headers: { 'if-none-match': newEtag } });
    expect(current.status).toBe(304);
    expect(status(current)).toBe('HIT');
    expect(current.headers.get('x-request-id')).toMatch(idPattern);
    // A dataset the deployment did not change keeps its ETag: the client's copy is still good.
    expect((await through(edge.url, unchanged, { headers: { 'if-none-match': unchangedEtag } })).status).toBe(304);
  });

  it('nothing answered through the cache varies on x-request-id', () => {
    expect(seen.length).toBeGreaterThan(10);
    for (const response of seen) expect(response.headers.get('vary') ?? '', response.url).not.toMatch(/x-request-id/i);
  });
});

describe('what the CDN caches: the function Vercel runs for /api, with no layer in front', () => {
  it("its cacheable answers carry no x-request-id and no Vary, so even a CDN that stamps nothing replays no one's id", async () => {
    for (const path of [list(A), `${list(A)}/${A.entity.prefix}:nobody`, `${series(B)}?date=${newestOf(B)}`]) {
      const response = await fetch(`${functions.new.url}${path}`, { headers: { 'x-request-id': 'caller-1' } });
      expect(response.status, path).toBeLessThan(500);
      expect(response.headers.get('x-request-id'), path).toBeNull();
      expect(response.headers.get('vary'), path).toBeNull();
      expect(response.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
      expect(response.headers.get('vercel-cdn-cache-control')).toBe(VERCEL_CDN_CACHE_CONTROL);
    }
  });

  it('answers every /api path with the documented JSON error, never the HTML 404 page', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing'],
      ['GET', `/api/v2/${A.slug}`],
      ['POST', '/api/anything/deeper'],
      ['GET', '/api/v1/no-such-rates'],
      ['GET', '/api'],
    ]) {
      const response = await fetch(`${functions.new.url}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/json/);
      const body = await response.json();
      expect(ErrorBody.parse(body)).toEqual(body);
      expect(body).toMatchObject({
        code: 404,
        error: 'not_found',
        documentationUrl: `${newSite.url}/docs/errors#not_found`,
      });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
    const search = await fetch(`${functions.new.url}/api/search?query=termInMonths&limit=1`);
    expect(search.status).toBe(200);
    expect((await search.json()).results).toHaveLength(1);
  });
});

describe('npm start: the stamp on the node server itself', () => {
  it('gives each data answer its id (the sent one, or a new one), and none where the contract says so', async () => {
    const path = exampleListRequest(A);
    const [a, b] = [await fetch(`${newSite.url}${path}`), await fetch(`${newSite.url}${path}`)];
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).toMatch(UUID);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect(
      (await fetch(`${newSite.url}${path}`, { headers: { 'x-request-id': 'mine-1' } })).headers.get('x-request-id'),
    ).toBe('mine-1');
    const notModified = await fetch(`${newSite.url}${path}`, {
      headers: { 'if-none-match': a.headers.get('etag')!, 'x-request-id': 'mine-2' },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('x-request-id')).toBe('mine-2');
    for (const none of [
      '/api/v1/no-such-thing',
      `${series(A)}?date=5-5-5`,
      '/api/search?query=rates',
      '/api/nothing',
    ]) {
      expect(
        (await fetch(`${newSite.url}${none}`, { headers: { 'x-request-id': 'r' } })).headers.get('x-request-id'),
        none,
      ).toBeNull();
    }
    expect(a.headers.get('vary') ?? '').not.toMatch(/x-request-id/i);
  });

  it('answers any other /api path with the JSON not_found, as the function does', async () => {
    const response = await fetch(`${newSite.url}/api/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: 'not_found',
      documentationUrl: `${newSite.url}/docs/errors#not_found`,
    });
  });

  it('a poisoned Host never reaches a body, on npm start or on the function', async () => {
    const raw = async (base: string, path: string) =>
      (await nodeRequest(`${base}${path}`, { headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } }))
        .text;
    for (const [base, site] of [
      [newSite.url, newSite.url],
      [functions.new.url, newSite.url],
    ] as const) {
      for (const path of [
        '/api/v1/no-such-rates',
        '/api/nothing',
        `${list(A)}/${A.entity.prefix}:nobody`,
        '/api/search?query=',
      ]) {
        const text = await raw(base, path);
        expect(text, `${base}${path}`).toContain(`${site}/docs/errors#`);
        expect(text, `${base}${path}`).not.toContain('evil.example');
      }
    }
  });
});
