import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { SITE } from './support/constants.ts';
import { DATASETS } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { historyDir } from './support/history.ts';

let api: Handler;
beforeAll(async () => {
  api = await apiOver(historyDir());
});

const list = (d: (typeof DATASETS)[number]) => endpointsOf(d).list.path;
const series = (d: (typeof DATASETS)[number]) => endpointsOf(d).timeSeries.path;
const A = list(DATASETS[0]);
/** Every dataset's list, an entity of it, and its time series; and health. */
const dataPaths = [
  ...DATASETS.flatMap((d) => [list(d), `${list(d)}/${d.exampleEntityId}`, series(d)]),
  '/api/v1/health',
];

describe('x-request-id', () => {
  it.each(dataPaths)('echoes the value a caller sent on %s', async (path) => {
    const response = await get(api, path, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-abc.123');
  });

  it('generates a fresh value when none is sent', async () => {
    const a = (await get(api, A)).headers.get('x-request-id');
    const b = (await get(api, A)).headers.get('x-request-id');
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });

  it('replaces a value that is too long or has unsafe characters', async () => {
    for (const sent of ['x'.repeat(500), 'a b', '<script>']) {
      const got = (await get(api, A, { headers: { 'x-request-id': sent } })).headers.get('x-request-id');
      expect(got).not.toBe(sent);
      expect(got).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('is carried by 404s of existing endpoints', async () => {
    for (const d of DATASETS) {
      const response = await get(api, `${series(d)}?date=2001-01-01`, { headers: { 'x-request-id': 'r1' } });
      expect(response.status, d.slug).toBe(404);
      expect(response.headers.get('x-request-id'), d.slug).toBe('r1');
    }
  });

  it('is absent on unknown paths and on wrong-format 400s', async () => {
    for (const path of [
      '/api/v1/nothing-here',
      ...DATASETS.flatMap((d) => [
        `${list(d)}/a/b`,
        `${series(d)}?date=5-5-5`,
        ...d.filters.map((f) => `${list(d)}?${f.name}=abc`),
      ]),
    ]) {
      const response = await get(api, path, { headers: { 'x-request-id': 'r2' } });
      expect([400, 404], path).toContain(response.status);
      expect(response.headers.get('x-request-id'), path).toBeNull();
    }
  });
});

describe('CORS', () => {
  it.each(dataPaths)('lets every origin read %s', async (path) => {
    const response = await get(api, path, { headers: { origin: 'https://example.org' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
  });

  it.each(DATASETS.map((d) => series(d)))(
    'answers a preflight of %s with 204 and access-control-max-age: 600',
    async (path) => {
      const response = await get(api, path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://example.org',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-request-id',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-max-age')).toBe('600');
      expect(response.headers.get('access-control-allow-methods')).toContain('GET');
      expect(response.headers.get('access-control-allow-headers')).toContain('x-request-id');
    },
  );
});

describe('methods', () => {
  it.each(DATASETS.map((d) => [d.slug, d] as const))('%s: answers HEAD like GET, without a body', async (_, d) => {
    const viaGet = await get(api, list(d));
    const viaHead = await get(api, list(d), { method: 'HEAD' });
    expect(viaHead.status).toBe(200);
    expect(viaHead.headers.get('content-type')).toBe(viaGet.headers.get('content-type'));
    expect(viaHead.headers.get('x-request-id')).toBeTruthy();
    expect(await viaHead.text()).toBe('');
    const notFound = await get(api, `${list(d)}/${d.entity.prefix}:nobody`, { method: 'HEAD' });
    expect(notFound.status).toBe(404);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 method_not_allowed and Allow', async (method) => {
    for (const d of DATASETS) {
      const response = await get(api, list(d), { method });
      expect(response.status, d.slug).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      const body = await response.json();
      expect(ErrorBody.parse(body)).toEqual(body);
      expect(body.error).toBe('method_not_allowed');
    }
  });
});

describe('unknown paths', () => {
  it.each([
    '/api/v1/nothing-here',
    ...DATASETS.flatMap((d) => [`${list(d)}/${d.exampleEntityId}/products`, `/api/v1/time-series/${d.slug}`]),
    '/api/v1',
  ])('%s is a JSON 404 not_found', async (path) => {
    const { response, body } = await getJson(api, path);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(ErrorBody.parse(body)).toEqual(body);
    expect(body).toMatchObject({ code: 404, error: 'not_found' });
    expect(body.documentationUrl).toBe(`${SITE}/docs/errors#not_found`);
  });

  it('500 unknown parameters: a 400 under 2 KB naming the first 5 (each to 60 characters) and counting the rest, cached as every URL-only 400 is', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `unknown${String(i).padStart(3, '0')}`.padEnd(30, 'x'));
    names[1] = 'n'.repeat(5_000); // quoted to 60 characters
    const response = await get(api, `${A}?${names.map((name) => `${name}=1`).join('&')}`);
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(Buffer.byteLength(text)).toBeLessThan(2048);
    const body = JSON.parse(text);
    expect(ErrorBody.parse(body)).toEqual(body);
    expect(body).toMatchObject({ code: 400, error: 'invalid_request', message: 'Invalid request parameters' });
    const named = [names[0], `${'n'.repeat(60)}…`, ...names.slice(2, 5)].map((name) => `"${name}"`).join(', ');
    expect(
      body.hint.startsWith(`This endpoint does not use ${named} and 495 more unknown parameters. It accepts: `),
    ).toBe(true);
    expect(body.hint).not.toContain(names[5]);
    // The same Cache-Control as a 400 for one unknown name: the answer depends on the URL alone.
    const one = await get(api, `${A}?colour=blue`);
    expect(one.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe(one.headers.get('cache-control'));
    expect(response.headers.get('cache-control')).toMatch(/^public/);
  });

  it('never answers a client mistake with a 5xx or a stack trace', async () => {
    const paths = DATASETS.flatMap((d) => [
      `${list(d)}/%E0%A4%A`,
      `${list(d)}/..%2F..%2Fetc%2Fpasswd`,
      `${list(d)}?colour=${'9'.repeat(400)}`,
      ...d.filters.flatMap((f) => [
        `${list(d)}?${f.name}=${'9'.repeat(400)}`,
        `${list(d)}?${f.name}=${f.example}&${f.name}=${f.example}0`,
      ]),
      `${series(d)}?date=2025-01-07&${d.entity.param}=%00`,
    ]);
    for (const path of paths) {
      const response = await get(api, path);
      expect(response.status, path).toBeLessThan(500);
      const text = await response.text();
      expect(text, path).not.toMatch(/at \w+ \(|node_modules|Error:/);
    }
  });
});
