/**
 * What a shared cache may keep, and what is stamped outside it: the bare core's answers carry no
 * `x-request-id` and no Vary; the stamp (npm start's outermost layer, and on Vercel the routing
 * middleware) gives every response its own id by the contract's rules. And every absolute URL
 * comes from the configured site URL, never from the request.
 */
import { DOCS_PAGE_MATCHERS } from '../src/http/docs-negotiation.ts';
import type { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { alertsEndpointOf } from '../src/api/alerts.ts';
import { breakEvenEndpointOf } from '../src/api/break-even.ts';
import { changesEndpointOf } from '../src/changes/endpoint.ts';
import { DATASET_SLUG_SHAPE } from '../src/paths.ts';
import { PARAMETER_FORMATS } from '../src/schemas/params.ts';
import type { Handler } from '../src/api/app.ts';
import { DATA_CACHE_CONTROL, VERCEL_CDN_CACHE_CONTROL } from '../src/http/caching.ts';
import { createSearchCore } from '../src/docs/search.ts';
import { buildSearchIndex } from '../src/docs/search-index.ts';
import middleware, { MIDDLEWARE_MATCHER } from '../src/server/vercel-middleware.ts';
import { siteUrl } from '../src/site.ts';
import { apiOver, coreOver, get, rawServiceOver, serviceOver } from './support/core.ts';
import { ORIGIN, SITE } from './support/constants.ts';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { endpointsOf, exampleListRequest } from '../src/endpoints.ts';
import { toolNamesOf } from './support/datasets.ts';
import { historyDir, newestDates, tempDir } from './support/history.ts';
import { nodeRequest, serveService } from './support/http.ts';
import { JSON_HEADERS, MCP_PATH, toolCall } from './support/mcp.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const list = (d: Dataset) => endpointsOf(d).list.path;
const series = (d: Dataset) => endpointsOf(d).timeSeries.path;
/** Each filter given a value that is not of its format, and given twice. */
const badFilters = (d: Dataset) =>
  d.filters.flatMap((f) => [`${list(d)}?${f.name}=abc`, `${list(d)}?${f.name}=${f.example}&${f.name}=${f.example}`]);
const A = DATASETS[0];
let core: Handler;
let api: Handler;
beforeAll(async () => {
  core = await coreOver(historyDir());
  api = await apiOver(historyDir());
});

describe('the bare core: one answer per method and URL, for any caller', () => {
  const cacheable = [
    ...DATASETS.flatMap((d) => [
      list(d),
      `${list(d)}/${d.exampleEntityId}`,
      `${series(d)}?date=${newestDates()[d.slug]}`,
      `${list(d)}/${d.entity.prefix}:nobody`,
      `${list(d)}?colour=blue`,
      `${series(d)}?date=5-5-5`,
      ...badFilters(d),
    ]),
    '/api/v1/institutions',
    '/api/v1/institutions?colour=blue',
    '/api/v1/nothing-here',
  ];

  it.each(cacheable)(
    "%s: no x-request-id, no Vary, kept by the browser 300 s and by Vercel's CDN for the deployment",
    async (path) => {
      const response = await get(core, path, { headers: { 'x-request-id': 'caller-1' } });
      expect(response.status, path).toBeLessThan(500);
      expect(response.headers.get('x-request-id')).toBeNull();
      expect(response.headers.get('vary')).toBeNull();
      expect(response.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
      expect(response.headers.get('vercel-cdn-cache-control')).toBe(VERCEL_CDN_CACHE_CONTROL);
    },
  );

  it('a 304 carries no id either, and the caching headers of the 200', async () => {
    const etag = (await get(core, list(A))).headers.get('etag')!;
    const again = await get(core, list(A), {
      headers: { 'if-none-match': etag, 'x-request-id': 'r' },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-request-id')).toBeNull();
    expect(again.headers.get('vercel-cdn-cache-control')).toBe(VERCEL_CDN_CACHE_CONTROL);
  });

  it('health, 405 and server errors stay out of every cache', async () => {
    const broken = await coreOver(await tempDir());
    for (const response of [
      await get(core, '/api/v1/health'),
      await get(core, '/api/v1/status'),
      ...(await Promise.all(DATASETS.map((d) => get(core, list(d), { method: 'POST' })))),
      ...(await Promise.all(DATASETS.map((d) => get(broken, list(d))))),
    ]) {
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('vercel-cdn-cache-control')).toBeNull();
      expect(response.headers.get('x-request-id')).toBeNull();
    }
  });
});

describe('the stamp, by the contract', () => {
  const carries: [string, string, number][] = [
    ...DATASETS.flatMap((d): [string, string, number][] => [
      ['GET', list(d), 200],
      ['HEAD', `${list(d)}/${d.exampleEntityId}`, 200],
      ['GET', `${list(d)}/`, 200],
      ['GET', `${list(d)}?colour=blue`, 400],
      ['GET', `${series(d)}?startDate=2025-01-01`, 400],
      ['GET', `${list(d)}/${d.entity.prefix}:nobody`, 404],
      ['GET', `${series(d)}?date=2001-01-01`, 404],
      ['POST', list(d), 405],
    ]),
    ['GET', '/api/v1/health', 200],
    ['GET', '/api/v1/health?verbose=1', 400],
    ['DELETE', '/api/v1/health', 405],
    ['GET', '/api/v1/status', 200],
    ['HEAD', '/api/v1/status/', 200],
    ['GET', '/api/v1/status?verbose=1', 400],
    ['DELETE', '/api/v1/status', 405],
    ['GET', '/api/v1/institutions', 200],
    ['HEAD', '/api/v1/institutions/', 200],
    ['GET', '/api/v1/institutions?colour=blue', 400],
    ['DELETE', '/api/v1/institutions', 405],
  ];
  const carriesNone: [string, string, number][] = [
    ['GET', '/api/v1/nothing-here', 404],
    ['GET', '/api/v1', 404],
    ['POST', '/api/v1/nothing-here', 404],
    ['GET', '/api/v1/health?a=1&a=2', 400],
    ['GET', '/api/v1/status/more', 404],
    ['GET', '/api/v1/institutions/more', 404],
    ...DATASETS.flatMap((d): [string, string, number][] => [
      ['GET', `${list(d)}/a/b`, 404],
      ['GET', `${series(d)}?date=5-5-5`, 400],
      ...badFilters(d).map((path): [string, string, number] => ['GET', path, 400]),
      ['OPTIONS', list(d), 204],
    ]),
  ];

  it.each(carries)('%s %s (%i) carries the sent id, or a new one', async (method, path, status) => {
    const echoed = await get(api, path, { method, headers: { 'x-request-id': 'trace-7' } });
    expect(echoed.status).toBe(status);
    expect(echoed.headers.get('x-request-id')).toBe('trace-7');
    const a = (await get(api, path, { method })).headers.get('x-request-id');
    const b = (await get(api, path, { method })).headers.get('x-request-id');
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
  });

  it.each(carriesNone)('%s %s (%i) carries none', async (method, path, status) => {
    const response = await get(api, path, {
      method,
      headers: { 'x-request-id': 'trace-8', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(status);
    expect(response.headers.get('x-request-id')).toBeNull();
  });

  it('the MCP endpoint, a data endpoint under /api/v1, carries one too', async () => {
    const service = await serviceOver(historyDir());
    const response = await get(service, '/api/v1/mcp', {
      method: 'POST',
      headers: { 'x-request-id': 'trace-9', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.headers.get('x-request-id')).toBe('trace-9');
  });
});

describe('the stamp decides from the path and the query alone, as the core answers', () => {
  /** Every dataset's endpoints with, for every parameter any endpoint takes, a value of its format and one not, once and twice. */
  const names = [
    ...new Set(
      DATASETS.flatMap((d) => [...endpointsOf(d).timeSeries.query.keyof().options, ...d.filters.map((f) => f.name)]),
    ),
  ];
  const good: Record<string, string> = Object.fromEntries(
    names.map((n) => [n, n.endsWith('Id') ? A.exampleEntityId : /date/i.test(n) ? '2025-01-01' : '12']),
  );
  const queries = [
    '',
    '?colour=blue',
    ...names.flatMap((n) => [`?${n}=${good[n]}`, `?${n}=abc%20def`, `?${n}=`, `?${n}=${good[n]}&${n}=${good[n]}`]),
  ];
  const paths = [
    '/api/v1/health',
    '/api/v1/status',
    '/api/v1/institutions',
    '/api/v1/nothing-here',
    '/api/v1',
    ...DATASETS.flatMap((d) => [
      list(d),
      `${list(d)}/`,
      `${list(d)}/${d.exampleEntityId}`,
      series(d),
      `${list(d)}/changes`,
      `${list(d)}/a/b`,
    ]),
  ];

  it('every answer carries an id unless it is a 404 of no endpoint or a 400 of a wrong format (the body says which)', async () => {
    let checked = 0;
    for (const path of paths)
      for (const query of queries) {
        const response = await get(api, `${path}${query}`, { headers: { 'x-request-id': 'r' } });
        const body = response.status >= 400 ? await response.json() : undefined;
        const formatError =
          response.status === 400 && !/does not use|Give|without|after|both|range|at most/.test(`${body.hint}`);
        const noEndpoint = response.status === 404 && body.error === 'not_found';
        expect(response.headers.get('x-request-id'), `${path}${query}: ${response.status} ${body?.hint}`).toBe(
          noEndpoint || formatError ? null : 'r',
        );
        checked++;
      }
    expect(checked).toBeGreaterThan(500);
  });

  it("every dataset's slug has the shape the stamp knows, and every parameter an endpoint takes has its format in PARAMETER_FORMATS", () => {
    for (const d of DATASETS) {
      expect(d.slug).toMatch(DATASET_SLUG_SHAPE);
      const breakEven = breakEvenEndpointOf(d);
      const endpoints = [
        ...Object.values(endpointsOf(d)),
        changesEndpointOf(d),
        alertsEndpointOf(d),
        ...(breakEven ? [breakEven] : []),
      ];
      for (const endpoint of endpoints)
        for (const [name, schema] of Object.entries(endpoint.query.shape)) {
          const format = PARAMETER_FORMATS[name];
          expect(format, `${endpoint.path}: ${name}`).toBeDefined();
          // The endpoint's own rule is its format's (optional, perhaps with a description of its own).
          for (const value of ['abc', '', '12', '5.25', '-1', '2025-01-01', 'institution:asb'])
            expect((schema as z.ZodType).safeParse(value).success, `${name}=${value}`).toBe(
              format!.safeParse(value).success,
            );
        }
    }
  });

  it('a path shaped like a dataset that names none is a 404 that carries an id; one of another shape carries none', async () => {
    const shaped = await get(api, '/api/v1/term-deposit-rates', { headers: { 'x-request-id': 'r' } });
    expect(shaped.status).toBe(404);
    expect(shaped.headers.get('x-request-id')).toBe('r');
    const other = await get(api, '/api/v1/nope', { headers: { 'x-request-id': 'r' } });
    expect(other.status).toBe(404);
    expect(other.headers.get('x-request-id')).toBeNull();
  });
});

describe('the Vercel routing middleware', () => {
  const run = (path: string, init: RequestInit = {}) => middleware(new Request(`${ORIGIN}${path}`, init));

  it('runs on every /api/v1 request and lets it continue, adding only the id', () => {
    // Its other paths are the docs pages (test/vercel-middleware.test.ts), which get no id.
    expect(MIDDLEWARE_MATCHER).toEqual(['/api/v1/:path*', ...DOCS_PAGE_MATCHERS]);
    const response = run(exampleListRequest(A));
    expect(response.headers.get('x-middleware-next')).toBe('1');
    expect([...response.headers.keys()].sort()).toEqual(['x-middleware-next', 'x-request-id']);
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    expect(run(list(A)).headers.get('x-request-id')).not.toBe(response.headers.get('x-request-id'));
  });

  it('echoes a safe sent id, replaces an unsafe one, and adds none where the contract says so', () => {
    expect(run('/api/v1/health', { headers: { 'x-request-id': 'abc:1/2' } }).headers.get('x-request-id')).toBe(
      'abc:1/2',
    );
    expect(run('/api/v1/health', { headers: { 'x-request-id': 'a b' } }).headers.get('x-request-id')).toMatch(UUID);
    for (const d of DATASETS) expect(run(list(d), { method: 'POST' }).headers.get('x-request-id')).toMatch(UUID);
    expect(run('/api/v1/institutions', { headers: { 'x-request-id': 'r' } }).headers.get('x-request-id')).toBe('r');
    expect(run('/api/v1/mcp', { method: 'POST', headers: { 'x-request-id': 'r' } }).headers.get('x-request-id')).toBe(
      'r',
    );
    for (const path of [
      '/api/v1/nothing-here',
      ...DATASETS.flatMap((d) => [`${series(d)}?date=5-5-5`, ...badFilters(d)]),
    ]) {
      const response = run(path, { headers: { 'x-request-id': 'r' } });
      expect(response.headers.get('x-middleware-next'), path).toBe('1');
      expect(response.headers.get('x-request-id'), path).toBeNull();
    }
    for (const d of DATASETS) expect(run(list(d), { method: 'OPTIONS' }).headers.get('x-request-id')).toBeNull();
  });
});

describe('one site URL', () => {
  it("SITE_URL, else Vercel's production domain, else the local address with PORT", () => {
    expect(siteUrl({ SITE_URL: 'https://rates.nz/', VERCEL_PROJECT_PRODUCTION_URL: 'x.vercel.app' })).toBe(
      'https://rates.nz',
    );
    expect(siteUrl({ VERCEL_PROJECT_PRODUCTION_URL: 'nz-rates.vercel.app' })).toBe('https://nz-rates.vercel.app');
    expect(siteUrl({ PORT: '9000' })).toBe('http://127.0.0.1:9000');
    expect(siteUrl({})).toBe('http://127.0.0.1:8787');
  });

  it('a poisoned Host never reaches a body or a header: REST errors, MCP tool results, search errors', async () => {
    const service = await serveService(await rawServiceOver(historyDir()));
    const search = await serveService(
      await rawServiceOver(historyDir(), { search: createSearchCore(async () => buildSearchIndex([]), SITE) }),
    );
    const poison = 'evil.example';
    const send = async (
      base: string,
      method: string,
      path: string,
      body?: string,
      headers: Record<string, string> = {},
    ) => {
      const answer = await nodeRequest(`${base}${path}`, {
        method,
        headers: { host: poison, 'x-forwarded-host': poison, forwarded: `host=${poison}`, ...headers },
        body,
      });
      return { status: answer.status, text: answer.text, head: JSON.stringify(answer.headers) };
    };
    const mcp = (name: string, args: Record<string, unknown>) =>
      send(service.url, 'POST', MCP_PATH, JSON.stringify(toolCall(1, name, args)), {
        ...JSON_HEADERS,
        'mcp-protocol-version': '2025-11-25',
      });
    try {
      const answers = [
        await send(service.url, 'GET', '/api/v1/nothing-here'),
        await send(service.url, 'GET', `${list(A)}/${A.entity.prefix}:nobody`),
        await send(service.url, 'GET', `${series(A)}?date=5-5-5`),
        await send(service.url, 'POST', list(A), 'x'),
        await mcp(toolNamesOf(A).list, { colour: 'twelve' }),
        await mcp(toolNamesOf(A).detail, { [A.entity.param]: `${A.entity.prefix}:nobody` }),
        await send(search.url, 'GET', '/api/search?query='),
      ];
      for (const { status, text, head } of answers) {
        expect(text).toContain(`${SITE}/docs/errors#`);
        expect(text).not.toContain(poison);
        expect(head).not.toContain(poison);
        expect(status).toBeLessThan(500);
      }
      expect(answers.map((a) => a.status)).toEqual([404, 404, 400, 405, 200, 200, 400]);
    } finally {
      await service.close();
      await search.close();
    }
  });
});
