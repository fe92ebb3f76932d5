/**
 * The JSON change log, `GET /api/v1/<dataset>/changes`, over the real history: it equals the
 * difference between the time-series answers for the same dates, each change's direction and bps
 * included (worked out by test/support/changes-diff.ts, independently of src/snapshots/diff.ts and
 * src/changes/), filters by institution, follows the error, caching and x-request-id
 * rules of every data endpoint, matches its zod schema and its OpenAPI schema, and is reserved in
 * routing (the build refuses an institution whose slug is `changes`).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { changesSchemaOf } from '../src/changes/schema.ts';
import { DATASETS, type Dataset, entityOf } from '../src/datasets.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';
import { expectedDays, expectedMovement, type ExpectedChange } from './support/changes-diff.ts';
import { apiOver, get, getJson } from './support/core.ts';
import { ROOT, SITE } from './support/constants.ts';
import { documentOverHistory } from './support/openapi.ts';
import { EACH } from './support/datasets.ts';
import { historyDir, tempDir } from './support/history.ts';

let api: Handler;
const series: Record<string, any> = {};

beforeAll(async () => {
  api = await apiOver(historyDir());
  for (const d of DATASETS) {
    const dates: string[] = (await getJson(api, `/api/v1/${d.slug}/time-series`)).body.availableDates;
    series[d.slug] = (
      await getJson(api, `/api/v1/${d.slug}/time-series?startDate=${dates[0]}&endDate=${dates.at(-1)}`)
    ).body;
  }
}, 60_000);

/** Expected changes as sorted lines per kind, comparable with linesOf. */
function expectedLines(changes: ExpectedChange[]) {
  const line = (c: ExpectedChange, rest: string) => {
    const { direction, bps } = expectedMovement(c);
    return `${c.entityId}|${c.entityName}|${c.itemId}|${c.itemName}|${c.id}|${rest}|${direction}|${bps}`;
  };
  const of = (kind: ExpectedChange['kind']) => changes.filter((c) => c.kind === kind);
  return {
    changed: of('changed')
      .map((c) => line(c, `${JSON.stringify(c.from)}>${JSON.stringify(c.to)}`))
      .sort(),
    added: of('added')
      .map((c) => line(c, JSON.stringify(c.to)))
      .sort(),
    removed: of('removed')
      .map((c) => line(c, JSON.stringify(c.from)))
      .sort(),
  };
}

/** The same lines from a change-log entry, whatever the dataset calls its keys. */
function linesOf(dataset: Dataset, day: any) {
  const e = dataset.entity.param;
  const k = `${dataset.entity.kind}Name`;
  const item = dataset.itemsKey === 'products' ? 'product' : 'plan';
  const id = (c: any) => c.rateId ?? `${c[`${item}Id`]}#${c.field}`;
  const line = (c: any, rest: string) =>
    `${c[e]}|${c[k]}|${c[`${item}Id`]}|${c[`${item}Name`]}|${id(c)}|${rest}|${c.direction}|${c.bps}`;
  return {
    changed: day.changed.map((c: any) => line(c, `${JSON.stringify(c.from)}>${JSON.stringify(c.to)}`)).sort(),
    added: day.added.map((c: any) => line(c, JSON.stringify(c.to))).sort(),
    removed: day.removed.map((c: any) => line(c, JSON.stringify(c.from))).sort(),
  };
}

/** Every snapshot date whose diff in scope is not empty, with that diff as lines. */
function expectedLog(slug: string, only?: string) {
  return expectedDays(series[slug].timeSeries, only).map((d) => ({
    date: d.date,
    previousDate: d.previousDate,
    lastUpdated: d.lastUpdated,
    lines: expectedLines(d.changes),
  }));
}

async function expectError(path: string, status: number, error: string, requestId: boolean) {
  const response = await get(api, path, { headers: { 'x-request-id': 'req-1' } });
  const body = await response.json();
  expect(response.status, path).toBe(status);
  expect(ErrorBody.parse(body)).toEqual(body);
  expect(body.error, path).toBe(error);
  expect(body.documentationUrl).toBe(`${SITE}/docs/errors#${error}`);
  expect(response.headers.get('x-request-id'), `x-request-id on ${path}`).toBe(requestId ? 'req-1' : null);
  return body;
}

describe.each(DATASETS.map((d) => [d.slug, d] as const))('%s change log', (slug, dataset) => {
  const path = `/api/v1/${slug}/changes`;

  it('over the whole history equals the diff of consecutive time-series answers, date by date', async () => {
    const dates = Object.keys(series[slug].timeSeries);
    const { response, body } = await getJson(api, `${path}?since=${dates[0]}&until=${dates.at(-1)}`);
    expect(response.status).toBe(200);
    expect(changesSchemaOf(dataset).parse(body)).toEqual(body);
    const expected = expectedLog(slug);
    expect(expected.length).toBeGreaterThan(0);
    expect(body.changes.map((d: any) => d.date)).toEqual(expected.map((d) => d.date));
    for (const [i, day] of body.changes.entries()) {
      expect(
        { date: day.date, previousDate: day.previousDate, lastUpdated: day.lastUpdated, lines: linesOf(dataset, day) },
        day.date,
      ).toEqual(expected[i]);
    }
    expect(body).toMatchObject({
      type: `${dataset.type}Changes`,
      since: dates[0],
      until: dates.at(-1),
      lastUpdated: series[slug].timeSeries[dates.at(-1)!].lastUpdated,
    });
    expect(body.termsOfUse).toMatch(/may be incorrect/);
  });

  it(`${dataset.entity.param} keeps one ${dataset.entity.kind}: the same diff, narrowed to it, for every one ever listed`, async () => {
    const dates = Object.keys(series[slug].timeSeries);
    const ever = new Set(
      Object.values(series[slug].timeSeries).flatMap((s: any) => s.data.map((e: any) => e.id as string)),
    );
    let withChanges = 0;
    for (const id of ever) {
      const { response, body } = await getJson(api, `${path}?since=${dates[0]}&${dataset.entity.param}=${id}`);
      expect(response.status, id).toBe(200);
      const expected = expectedLog(slug, id);
      expect(
        body.changes.map((d: any) => ({
          date: d.date,
          previousDate: d.previousDate,
          lastUpdated: d.lastUpdated,
          lines: linesOf(dataset, d),
        })),
        id,
      ).toEqual(expected);
      if (expected.length) withChanges++;
    }
    expect(withChanges).toBeGreaterThan(1);
  });

  it('since and until are inclusive; since defaults to 30 days before until, until to the newest snapshot', async () => {
    const all = expectedLog(slug).map((d) => d.date);
    const newest = Object.keys(series[slug].timeSeries).at(-1)!;
    // Two change days in a row (LEAST_HISTORY: each snapshot moves a rate).
    const [a, b] = [all.at(-2)!, all.at(-1)!];
    expect((await getJson(api, `${path}?since=${a}&until=${b}`)).body.changes.map((d: any) => d.date)).toEqual([a, b]);
    const plain = (await getJson(api, path)).body;
    const since = new Date(Date.parse(`${newest}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
    expect(plain).toMatchObject({ since, until: newest });
    expect(plain.changes.map((d: any) => d.date)).toEqual(all.filter((d) => d >= since));
    // until before the newest change: the newest is left out.
    const untilOnly = (await getJson(api, `${path}?until=${a}`)).body;
    expect(untilOnly.since).toBe(new Date(Date.parse(`${a}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10));
    expect(untilOnly.changes.map((d: any) => d.date)).toEqual(all.filter((d) => d >= untilOnly.since && d <= a));
    expect(untilOnly.changes.map((d: any) => d.date)).not.toContain(b);
    const later = await getJson(api, `${path}?since=2099-01-01`);
    expect(later.response.status).toBe(200);
    expect(later.body).toMatchObject({ since: '2099-01-01', until: newest, changes: [] });
  });

  it('every date the answer writes is a valid YYYY-MM-DD: since 30 days before 0000-01-01 is 0000-01-01', async () => {
    for (const until of ['0000-01-01', '0000-01-15']) {
      const { response, body } = await getJson(api, `${path}?until=${until}`);
      expect(response.status).toBe(200);
      expect(body).toMatchObject({ since: '0000-01-01', until, changes: [] });
      expect(changesSchemaOf(dataset).parse(body)).toEqual(body);
    }
  });

  it('errors: a malformed date, since after until, an unknown parameter, an id never listed', async () => {
    await expectError(`${path}?since=2025-3-1`, 400, 'invalid_request', false);
    await expectError(`${path}?until=2025-02-30`, 400, 'invalid_request', false);
    const order = await expectError(`${path}?since=2025-03-05&until=2025-03-01`, 400, 'invalid_request', true);
    expect(order.message).toBe('Start date cannot be after end date');
    const unknown = await expectError(`${path}?termInMonths=12`, 400, 'invalid_request', true);
    expect(unknown.hint).toContain(`It accepts: since, until, ${dataset.entity.param}, direction, minBps.`);
    await expectError(
      `${path}?${dataset.entity.param}=${dataset.entity.prefix}:no-such-lender`,
      404,
      dataset.entity.notFound,
      true,
    );
  });
});

describe('the change log as a data endpoint', () => {
  const A = DATASETS[0];
  const bareOf = (d: Dataset) => d.exampleEntityId.slice(d.exampleEntityId.indexOf(':') + 1);

  it.each(EACH)('%s takes its own entity parameter: the others’ are parameters it does not use', async (slug, d) => {
    for (const param of new Set(DATASETS.map((o) => o.entity.param).filter((p) => p !== d.entity.param))) {
      const body = await expectError(
        `/api/v1/${slug}/changes?${param}=${d.exampleEntityId}`,
        400,
        'invalid_request',
        true,
      );
      expect(body.hint).toContain(d.entity.param);
    }
  });

  /** The entities a dataset listed once and no longer lists. */
  const goneFrom = (slug: string) => {
    const ts = series[slug];
    const dates = Object.keys(ts.timeSeries);
    const newest = new Set(ts.timeSeries[dates.at(-1)!].data.map((e: any) => e.id));
    return [
      ...new Set(Object.values(ts.timeSeries).flatMap((s: any) => s.data.map((e: any) => e.id as string))),
    ].filter((id) => !newest.has(id));
  };

  it('some dataset has an entity it no longer lists', () => {
    expect(DATASETS.flatMap((d) => goneFrom(d.slug)).length).toBeGreaterThan(0);
  });

  it.each(EACH)('%s: an entity no longer listed still has its changes, including its removal', async (slug, d) => {
    const [gone] = goneFrom(slug);
    if (gone === undefined) return;
    const dates = Object.keys(series[slug].timeSeries);
    const { response, body } = await getJson(
      api,
      `/api/v1/${slug}/changes?since=${dates[0]}&${d.entity.param}=${gone}`,
    );
    expect(response.status).toBe(200);
    expect(body.changes.some((day: any) => day.removed.length > 0)).toBe(true);
    expect((await get(api, `/api/v1/${slug}/${gone}`)).status).toBe(404);
  });

  it.each(EACH)(
    '%s: `changes` is the change log, not an entity; the detail route still answers ids and bare slugs',
    async (slug, d) => {
      expect((await getJson(api, `/api/v1/${slug}/changes`)).body.type).toBe(`${d.type}Changes`);
      expect((await getJson(api, `/api/v1/${slug}/changes/`)).body.type).toBe(`${d.type}Changes`);
      expect((await getJson(api, `/api/v1/${slug}/${bareOf(d)}`)).body.data[0].id).toBe(d.exampleEntityId);
      expect((await get(api, `/api/v1/${slug}/changes/${bareOf(d)}`)).status).toBe(404);
      // The id form of the slug is an entity id, never the change log.
      expect((await getJson(api, `/api/v1/${slug}/${d.entity.prefix}:changes`)).body.error).toBe(d.entity.notFound);
    },
  );

  it('caching: the data Cache-Control, a strong ETag answered with 304, CORS, HEAD without a body, x-request-id outside the cache', async () => {
    const dates = Object.keys(series[A.slug].timeSeries);
    const [since, nextDay] = dates.slice(0, 2) as [string, string];
    const base = `/api/v1/${A.slug}/changes`;
    const { param, prefix } = A.entity;
    const path = `${base}?since=${since}&${param}=${bareOf(A)}`;
    const first = await get(api, path);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300, s-maxage=3600, stale-while-revalidate=86400');
    expect(first.headers.get('vercel-cdn-cache-control')).toBe('max-age=31536000');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await get(api, path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // Same data, another spelling of the same institution: same answer and ETag (the key is the canonical id).
    expect(
      (await get(api, `${base}?since=${since}&${param}=${prefix}:${bareOf(A).toUpperCase()}`)).headers.get('etag'),
    ).toBe(etag);
    expect((await get(api, `${base}?since=${nextDay}&${param}=${bareOf(A)}`)).headers.get('etag')).not.toBe(etag);
    const head = await get(api, path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    expect(await head.text()).toBe('');
    const body = await first.json();
    expect(Number(first.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(body)));
  });

  it('is worked out once per history and kept: later requests reuse it', async () => {
    const store = servedStoreOf(await compileSnapshotTree(historyDir()));
    for (const { slug } of DATASETS) {
      const history = await store.history(slug);
      expect(await history.changes()).toBe(await history.changes());
      expect((await history.changes()).days.length, slug).toBe(expectedLog(slug).length);
    }
  });

  it('has one MCP tool per dataset, its twin: get_<dataset>_changes', () => {
    expect(TOOLS.map((t) => t.name).filter((name) => name.includes('change'))).toEqual(
      DATASETS.map((d) => `get_${d.slug.replaceAll('-', '_')}_changes`),
    );
  });

  it('each 200 answer satisfies its OpenAPI schema (which lets a field added later through), and every example in the document is real', async () => {
    const { doc, ajv } = await documentOverHistory();
    for (const d of DATASETS) {
      const op = doc.paths[`/api/v1/${d.slug}/changes`].get;
      expect(op.operationId).toBe(`get${d.type}Changes`);
      expect(op.parameters.map((p: any) => p.name)).toEqual(['since', 'until', d.entity.param, 'direction', 'minBps']);
      const check = ajv.compile(op.responses['200'].content['application/json'].schema);
      const { body } = await getJson(api, `/api/v1/${d.slug}/changes?since=2024-01-01`);
      expect(check(body), `${d.slug}: ${ajv.errorsText(check.errors)}`).toBe(true);
      // Open: a release may add a field (/docs/stability#where-new-fields-may-appear).
      expect(check({ ...body, extra: 1 })).toBe(true);
      const day = structuredClone(body.changes.find((c: any) => c.changed.length > 0));
      day.changed[0].extra = 1;
      expect(check({ ...body, changes: [day] })).toBe(true);
      for (const status of ['200', '400', '404']) {
        const media = op.responses[status].content['application/json'];
        expect(Object.keys(media.examples ?? {}).length, `${d.slug} ${status}`).toBeGreaterThan(0);
        const valid = ajv.compile(media.schema);
        for (const example of Object.values(media.examples) as any[])
          expect(valid(example.value), `${d.slug} ${status}`).toBe(true);
      }
    }
  }, 60_000);
});

describe('the build refuses an institution whose slug is a reserved segment', () => {
  it.each(['changes', 'time-series', 'lowest'])(
    'slug "%s": build:data fails, naming the snapshot file',
    async (slug) => {
      const dataset = DATASETS[0];
      const { kind, prefix } = dataset.entity;
      const dir = await tempDir('rates-reserved-');
      const dates = (await readdir(join(historyDir(), dataset.slug))).sort();
      for (const name of dates.slice(0, 2))
        await cp(join(historyDir(), dataset.slug, name), join(dir, dataset.slug, name));
      const file = join(dir, dataset.slug, dates[1]!);
      const snapshot = JSON.parse(await readFile(file, 'utf8'));
      snapshot.data.push(entityOf(dataset, `${prefix}:${slug}`, 'A lender named like a path', []));
      await writeFile(file, JSON.stringify(snapshot, null, 2));
      const generated = await tempDir('rates-reserved-generated-');
      await mkdir(generated, { recursive: true });
      const result = await promisify(execFile)(
        process.execPath,
        [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/build-data.ts'],
        {
          cwd: ROOT,
          env: { ...process.env, SNAPSHOTS_DIR: dir, GENERATED_DIR: generated },
        },
      ).then(
        () => ({ code: 0, out: '' }),
        (e) => ({ code: e.code as number, out: `${e.stdout}${e.stderr}` }),
      );
      expect(result.code).toBe(1);
      expect(result.out).toContain(
        `${dataset.slug}/${dates[1]}: ${kind} ${prefix}:${slug}: the slug "${slug}" is reserved`,
      );
      expect(await readdir(generated)).toEqual([]);
    },
    60_000,
  );
});
