/**
 * Property-based tests over the REST core: random and hostile paths, query strings, methods and
 * headers. For every request: never a 5xx, a body of the documented shape, no file read.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { createApi } from '../src/service.ts';
import { DATASETS } from '../src/datasets.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { Health } from '../src/schemas/health.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';
import { UnconfiguredStatusStore } from '../src/status/status-store.ts';
import { withoutFsReads } from './support/no-fs-reads.ts';
import { NOW } from './support/constants.ts';
import { historyDir } from './support/history.ts';

vi.mock('node:fs', async (real) => (await import('./support/no-fs-reads.ts')).guarded(await real()));
vi.mock('node:fs/promises', async (real) => (await import('./support/no-fs-reads.ts')).guarded(await real()));

let api: Handler;
const seen = { requests: 0, status: new Map<number, number>() };

beforeAll(async () => {
  const store = servedStoreOf(await compileSnapshotTree(historyDir()));
  // Loaded up front: the property is about requests, not the build.
  for (const dataset of DATASETS) await store.history(dataset.slug);
  api = createApi({ loadStore: async () => store, status: new UnconfiguredStatusStore(false), now: () => NOW });
});

afterAll(() => {
  console.log(
    `fuzz-api: ${seen.requests} requests; statuses ${JSON.stringify(Object.fromEntries([...seen.status].sort()))}`,
  );
});

const slugs = DATASETS.map((d) => d.slug);
const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 1000, maxLength: 6000 }),
  fc.constantFrom(
    '..',
    '../..',
    '%2e%2e',
    '%2E%2E%2F',
    '..%2F..%2Fetc%2Fpasswd',
    '%00',
    '%2500',
    '%252F',
    '%',
    '%%',
    '%E0%A4%A',
    '\u0000',
    'institution:anz%00',
    'INSTITUTION:ANZ',
    'issuer:amex/../../x',
  ),
  fc.bigInt({ min: 0n, max: 10n ** 400n }).map(String),
  fc.constantFrom(
    '0000-01-01',
    '0001-01-01',
    '9999-12-31',
    '2024-02-30',
    '2024-13-01',
    '2025-03-05',
    '+002025-03-05',
    '2025-3-5',
    '-1',
    '1e309',
    'NaN',
    'Infinity',
  ),
);
/** Text for a URL: sometimes as is, sometimes percent-encoded, sometimes encoded twice. */
const inUrl = hostile.chain((s) =>
  fc.constantFrom(s, encodeURIComponent(s), encodeURIComponent(encodeURIComponent(s))),
);
const key = fc.oneof(
  {
    arbitrary: fc.constantFrom('date', 'startDate', 'endDate', 'institutionId', 'issuerId', 'termInMonths'),
    weight: 4,
  },
  { arbitrary: fc.constantFrom('interval', 'start', 'end', 'institution'), weight: 1 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
);
const value = fc.oneof(
  {
    arbitrary: fc.constantFrom('2025-03-05', '2024-06-30', '2025-01-07', '12', '24', 'institution:anz', 'issuer:amex'),
    weight: 2,
  },
  { arbitrary: inUrl, weight: 3 },
);
const query = fc
  .array(fc.tuple(key, value), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&'));
const validId = fc.constantFrom(
  'institution:anz',
  'INSTITUTION:ASB',
  'kiwibank',
  'issuer:amex',
  'institution%3Aanz',
  'Issuer:Amex',
);
const path = fc.oneof(
  fc.tuple(fc.constantFrom(...slugs), fc.oneof(validId, inUrl)).map(([slug, id]) => `/api/v1/${slug}/${id}`),
  fc.constantFrom(...slugs).map((slug) => `/api/v1/${slug}/time-series`),
  fc.constantFrom(...slugs).map((slug) => `/api/v1/${slug}`),
  fc.constantFrom('/api/v1/health', '/api/v1', '/api/v1/', ...slugs.flatMap((s) => [`/api/v1//${s}`, `/api/v1/${s}/`])),
  inUrl.map((s) => `/api/v1/${s}`),
  fc.tuple(fc.constantFrom(...slugs), inUrl, inUrl).map(([slug, a, b]) => `/api/v1/${slug}/${a}/${b}`),
);
const method = fc.oneof(
  { arbitrary: fc.constant('GET'), weight: 12 },
  { arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH'), weight: 3 },
  { arbitrary: fc.stringMatching(/^[A-Z]{1,10}$/), weight: 1 },
);
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 300,
});
const headers = fc.record(
  {
    'x-request-id': headerValue,
    'if-none-match': headerValue,
    origin: headerValue,
    'access-control-request-method': fc.constantFrom('GET', 'POST', 'X'),
  },
  { requiredKeys: [] },
);

function schemaFor(url: URL) {
  const [, , , slug, second] = url.pathname.split('/');
  if (slug === 'health') return Health;
  const dataset = DATASETS.find((d) => d.slug === slug);
  if (!dataset) return undefined;
  return second === 'time-series' ? dataset.schemas.timeSeries : dataset.schemas.envelope;
}

describe('the REST core under random and hostile requests', () => {
  it('never answers 5xx, always with a documented body, and never reads a file', async () => {
    const { reads } = await withoutFsReads(() =>
      fc.assert(
        fc.asyncProperty(path, query, method, headers, async (p, q, m, h) => {
          let request: Request;
          try {
            request = new Request(`http://rates.test${p}${q ? `?${q}` : ''}`, { method: m, headers: h });
          } catch {
            return; // not a request an HTTP server could receive
          }
          const response = await api(request);
          seen.requests++;
          seen.status.set(response.status, (seen.status.get(response.status) ?? 0) + 1);
          expect(response.status, `${m} ${request.url}`).toBeLessThan(500);
          const text = await response.text();
          if (m === 'HEAD' || m === 'OPTIONS' || response.status === 304) {
            expect(text).toBe('');
            return;
          }
          const body = JSON.parse(text);
          if (response.status >= 400) expect(ErrorBody.safeParse(body).success, text.slice(0, 300)).toBe(true);
          else {
            const schema = schemaFor(new URL(request.url));
            expect(schema, request.url).toBeDefined();
            expect(schema!.safeParse(body).success, request.url).toBe(true);
          }
          const id = response.headers.get('x-request-id');
          if (id !== null) expect(id).toMatch(/^[A-Za-z0-9._:@+=/-]{1,128}$/);
        }),
        { numRuns: 5000 },
      ),
    );
    expect(reads).toEqual([]);
    expect(seen.requests).toBeGreaterThan(4500);
    expect(seen.status.get(200) ?? 0, 'enough requests reach real data').toBeGreaterThan(200);
  }, 120_000);

  it('a file read during a request would be caught (the trap works)', async () => {
    const { readFile } = await import('node:fs/promises');
    const { reads } = await withoutFsReads(async () => {
      try {
        await readFile('/etc/passwd');
      } catch {
        // refused, as it should be
      }
    });
    expect(reads).toEqual(['readFile(/etc/passwd)']);
  });
});
