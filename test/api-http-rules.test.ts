import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { SITE } from './support/constants.ts';
import { historyDir } from './support/history.ts';

let api: Handler;
beforeAll(async () => {
  api = await apiOver(historyDir());
});

const dataPaths = [
  '/api/v1/mortgage-rates',
  '/api/v1/mortgage-rates/institution:anz',
  '/api/v1/car-loan-rates/time-series',
  '/api/v1/credit-card-rates/issuer:amex',
  '/api/v1/health',
];

describe('x-request-id', () => {
  it.each(dataPaths)('echoes the value a caller sent on %s', async (path) => {
    const response = await get(api, path, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-abc.123');
  });

  it('generates a fresh value when none is sent', async () => {
    const a = (await get(api, '/api/v1/mortgage-rates')).headers.get('x-request-id');
    const b = (await get(api, '/api/v1/mortgage-rates')).headers.get('x-request-id');
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });

  it('replaces a value that is too long or has unsafe characters', async () => {
    for (const sent of ['x'.repeat(500), 'a b', '<script>']) {
      const got = (await get(api, '/api/v1/mortgage-rates', { headers: { 'x-request-id': sent } })).headers.get(
        'x-request-id',
      );
      expect(got).not.toBe(sent);
      expect(got).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('is carried by 404s of existing endpoints', async () => {
    const response = await get(api, '/api/v1/mortgage-rates/time-series?date=2001-01-01', {
      headers: { 'x-request-id': 'r1' },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toBe('r1');
  });

  it('is absent on unknown paths and on wrong-format 400s', async () => {
    for (const path of [
      '/api/v1/nothing-here',
      '/api/v1/mortgage-rates/a/b',
      '/api/v1/mortgage-rates?termInMonths=abc',
      '/api/v1/mortgage-rates/time-series?date=5-5-5',
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

  it('answers a preflight with 204 and access-control-max-age: 600', async () => {
    const response = await get(api, '/api/v1/mortgage-rates/time-series', {
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
  });
});

describe('methods', () => {
  it('answers HEAD like GET, without a body', async () => {
    const viaGet = await get(api, '/api/v1/personal-loan-rates');
    const viaHead = await get(api, '/api/v1/personal-loan-rates', { method: 'HEAD' });
    expect(viaHead.status).toBe(200);
    expect(viaHead.headers.get('content-type')).toBe(viaGet.headers.get('content-type'));
    expect(viaHead.headers.get('x-request-id')).toBeTruthy();
    expect(await viaHead.text()).toBe('');
    const notFound = await get(api, '/api/v1/personal-loan-rates/institution:nobody', { method: 'HEAD' });
    expect(notFound.status).toBe(404);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 method_not_allowed and Allow', async (method) => {
    const response = await get(api, '/api/v1/mortgage-rates', { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const body = await response.json();
    expect(ErrorBody.parse(body)).toEqual(body);
    expect(body.error).toBe('method_not_allowed');
  });
});

describe('unknown paths', () => {
  it.each([
    '/api/v1/nothing-here',
    '/api/v1/mortgage-rates/institution:anz/products',
    '/api/v1/time-series/mortgage-rates',
    '/api/v1',
  ])('%s is a JSON 404 not_found', async (path) => {
    const { response, body } = await getJson(api, path);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(ErrorBody.parse(body)).toEqual(body);
    expect(body).toMatchObject({ code: 404, error: 'not_found' });
    expect(body.documentationUrl).toBe(`${SITE}/docs/errors#not_found`);
  });

  it('never answers a client mistake with a 5xx or a stack trace', async () => {
    const paths = [
      '/api/v1/mortgage-rates/%E0%A4%A',
      '/api/v1/mortgage-rates/..%2F..%2Fetc%2Fpasswd',
      `/api/v1/mortgage-rates?termInMonths=${'9'.repeat(400)}`,
      '/api/v1/mortgage-rates?termInMonths=12&termInMonths=24',
      '/api/v1/credit-card-rates/time-series?date=2025-01-07&issuerId=%00',
    ];
    for (const path of paths) {
      const response = await get(api, path);
      expect(response.status, path).toBeLessThan(500);
      const text = await response.text();
      expect(text, path).not.toMatch(/at \w+ \(|node_modules|Error:/);
    }
  });
});
