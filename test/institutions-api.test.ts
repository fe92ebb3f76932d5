/**
 * `GET /api/v1/institutions` over the test history: every institution and issuer any snapshot of
 * any dataset lists, once per lender (its earlier ids and names as aliases, every rename of the
 * history joined), with the datasets that list it, its first and last snapshot dates, its
 * newest name, whether it is a bank (src/explorer/lender-types.ts) and the eligibility rules on its
 * name; the envelope and caching of every data answer; the documented error body; worked out once
 * per process; and its 200 satisfies its OpenAPI schema, whose examples are real.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lenderRows } from '../src/build/lenders.ts';
import { DATASETS } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { BANK_SLUGS } from '../src/explorer/lender-types.ts';
import { datasetViews, entityUrl } from '../src/explorer/pages.ts';
import { RESTRICTIONS } from '../src/explorer/restrictions.ts';
import { DATA_CACHE_CONTROL } from '../src/http/caching.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { InstitutionsResponse } from '../src/schemas/institutions.ts';
import { createService } from '../src/service.ts';
import { compileSnapshotTree, newestOnly } from '../src/store/compile.ts';
import { historyFiles } from '../src/store/history-build.ts';
import { ServedStore } from '../src/store/served-store.ts';
import { SITE } from './support/constants.ts';
import { documentOverHistory } from './support/openapi.ts';
import { coreOver, get, getJson } from './support/core.ts';
import { historyDir, tempDir } from './support/history.ts';
import { FileStatusStore } from '../src/status/status-store.ts';

const PATH = '/api/v1/institutions';

interface Seen {
  id: string;
  name: string;
  datasets: Set<string>;
  firstSeen: string;
  lastSeen: string;
}

/** What the snapshot files on disk say, read without the store: per lower-case id, who and when. */
async function seenInFiles(): Promise<{ seen: Map<string, Seen>; lastUpdated: string }> {
  const seen = new Map<string, Seen>();
  let lastUpdated = '';
  for (const { slug } of DATASETS) {
    const files = (await readdir(join(historyDir(), slug))).filter((f) => f.endsWith('.json')).sort();
    for (const file of files) {
      const date = file.slice(0, 10);
      const snapshot = JSON.parse(await readFile(join(historyDir(), slug, file), 'utf8'));
      if (snapshot.lastUpdated > lastUpdated) lastUpdated = snapshot.lastUpdated;
      for (const entity of snapshot.data as { id: string; name: string }[]) {
        const key = entity.id.toLowerCase();
        const known = seen.get(key);
        if (!known) {
          seen.set(key, { ...entity, datasets: new Set([slug]), firstSeen: date, lastSeen: date });
          continue;
        }
        known.datasets.add(slug);
        if (date < known.firstSeen) known.firstSeen = date;
        if (date > known.lastSeen) Object.assign(known, { lastSeen: date, name: entity.name, id: entity.id });
      }
    }
  }
  return { seen, lastUpdated };
}

let api: Awaited<ReturnType<typeof coreOver>>;
let body: any;
let response: Response;
beforeAll(async () => {
  api = await coreOver(historyDir());
  response = await get(api, PATH);
  body = await response.json();
}, 60_000);

describe('the registry of institutions and issuers', () => {
  it('lists every id of any snapshot once, as an entry or an alias of one, with the datasets that list it and its first and last snapshot dates', async () => {
    expect(response.status).toBe(200);
    const { seen } = await seenInFiles();
    const ids = body.data.flatMap((i: any) => [i.id, ...i.aliases.map((a: any) => a.id)].map((id) => id.toLowerCase()));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...seen.keys()].sort());
    const order = DATASETS.map((d) => d.slug as string);
    for (const institution of body.data) {
      const all = [institution.id, ...institution.aliases.map((a: any) => a.id)].map(
        (id) => seen.get(id.toLowerCase())!,
      );
      const expected = seen.get(institution.id.toLowerCase())!;
      expect(institution, institution.id).toMatchObject({
        id: expected.id,
        firstSeen: all.map((s) => s.firstSeen).sort()[0],
        lastSeen: all
          .map((s) => s.lastSeen)
          .sort()
          .at(-1),
        datasets: order.filter((slug) => all.some((s) => s.datasets.has(slug))),
      });
      const kind = (id: string) => id.slice(0, id.indexOf(':'));
      for (const alias of institution.aliases) {
        const own = seen.get(alias.id.toLowerCase())!;
        expect(alias, alias.id).toEqual({
          id: own.id,
          name: own.name,
          datasets: order.filter((slug) => own.datasets.has(slug)),
          firstSeen: own.firstSeen,
          lastSeen: own.lastSeen,
        });
        // The entry is its newest listing of its kind: no alias of that kind was listed later.
        if (kind(alias.id) === kind(institution.id)) expect(alias.lastSeen <= expected.lastSeen, alias.id).toBe(true);
        // An institution id leads any entry that has one.
        if (kind(alias.id) === 'institution') expect(kind(institution.id), alias.id).toBe('institution');
      }
    }
    // The test history has lenders listed in several datasets, and some no longer listed.
    expect(body.data.some((i: any) => i.datasets.length > 1)).toBe(true);
    expect(new Set(body.data.map((i: any) => i.firstSeen)).size).toBeGreaterThan(1);
  });

  it('is one entry per lender under its newest name, its earlier ids and names inside it, never entries of their own', () => {
    const entry = (name: string) =>
      body.data.filter((i: any) => [i.name, ...i.aliases.map((a: any) => a.name)].includes(name));
    const lenders: [string, string[]][] = [
      ['Nelson Bldg Society', ['Nelson', 'Nelson Bldg Socy']],
      ['Wairarapa Bldg Society', ['Wairarapa', 'Wairarapa Bldg Socy']],
      ['Heretaunga Bldg Socy', ['Heretaunga']],
      ['UnityMoney', ['Unity']],
    ];
    for (const [name, earlier] of lenders) {
      for (const n of [name, ...earlier]) expect(entry(n), n).toHaveLength(1);
      const [found] = entry(name);
      expect(found.name).toBe(name);
      expect(found.aliases.map((a: any) => a.name)).toEqual(earlier);
    }
  });

  it('is one entry for a lender that also issues cards: its institution id leads, its issuer id inside with the card dataset', async () => {
    const { seen } = await seenInFiles();
    const entryOf = new Map<string, any>();
    for (const i of body.data)
      for (const id of [i.id, ...i.aliases.map((a: any) => a.id)]) entryOf.set(id.toLowerCase(), i);
    // Every slug the history lists both as an institution and as an issuer of one name.
    const both = [...seen.values()].filter(
      (s) => s.id.startsWith('issuer:') && seen.get(`institution:${s.id.slice(7)}`)?.name === s.name,
    );
    expect(both.map((s) => s.name)).toEqual(expect.arrayContaining(['ANZ', 'ASB', 'BNZ', 'Kiwibank', 'Westpac']));
    const cards = DATASETS.filter((d) => d.entity.kind === 'issuer').map((d) => d.slug as string);
    for (const issuer of both) {
      const entry = entryOf.get(issuer.id.toLowerCase());
      expect(entry, issuer.id).toBe(entryOf.get(`institution:${issuer.id.slice(7)}`));
      expect(entry.id.toLowerCase(), issuer.id).toBe(`institution:${issuer.id.slice(7)}`);
      expect(entry.datasets, issuer.id).toEqual(expect.arrayContaining(cards));
      expect(
        entry.aliases.find((a: any) => a.id === issuer.id),
        issuer.id,
      ).toMatchObject({ name: issuer.name, datasets: cards });
    }
    // No name is two entries.
    const names = body.data.map((i: any) => i.name);
    expect(new Set(names).size).toBe(names.length);
    // The id the alias names answers its dataset: the card dataset knows `issuer:anz`.
    const anz = await getJson(
      api,
      `${endpointsOf(DATASETS.find((d) => d.entity.kind === 'issuer')!).list.path}/issuer:anz`,
    );
    expect(anz.response.status).toBe(200);
  });

  it('joins every rename the history holds: an id gone and a new one listing the same items and values the next snapshot are one entry', async () => {
    /** What an entity lists, without ids: the collector's test for a possible rename (src/collect/summary.ts). */
    const listing = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(listing).sort().join(',')}]`;
      if (value !== null && typeof value === 'object')
        return `{${Object.entries(value)
          .filter(([key]) => key !== 'id')
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([key, v]) => `${key}:${listing(v)}`)
          .join(',')}}`;
      return JSON.stringify(value === 0 ? null : value);
    };
    const entryOf = new Map<string, string>();
    for (const i of body.data) for (const id of [i.id, ...i.aliases.map((a: any) => a.id)]) entryOf.set(id, i.id);
    const renames: string[] = [];
    for (const dataset of DATASETS) {
      const files = (await readdir(join(historyDir(), dataset.slug))).filter((f) => f.endsWith('.json')).sort();
      let before: any[] = [];
      for (const file of files) {
        const now: any[] = JSON.parse(await readFile(join(historyDir(), dataset.slug, file), 'utf8')).data;
        const ids = (list: any[]) => new Set(list.map((e) => e.id));
        const gone = before.filter((e) => !ids(now).has(e.id));
        const added = now.filter((e) => !ids(before).has(e.id));
        for (const old of gone)
          for (const made of added)
            if (listing(old[dataset.itemsKey]) === listing(made[dataset.itemsKey])) {
              renames.push(`${old.name} → ${made.name}`);
              expect(entryOf.get(made.id), `${dataset.slug} ${file}: ${old.name} → ${made.name}`).toBe(
                entryOf.get(old.id),
              );
            }
        before = now;
      }
    }
    expect(renames.length).toBeGreaterThanOrEqual(8);
  });

  it('names each by the name of its newest listing', async () => {
    const { seen } = await seenInFiles();
    for (const institution of body.data) {
      const expected = seen.get(institution.id.toLowerCase())!;
      expect(institution.name, institution.id).toBe(expected.name);
    }
  });

  it('says bank for the registered banks of the explorer’s table, non-bank for every other', () => {
    for (const institution of body.data) {
      const slug = institution.id.slice(institution.id.indexOf(':') + 1);
      expect(institution.lenderType, institution.id).toBe(BANK_SLUGS.has(slug) ? 'bank' : 'non-bank');
    }
    expect(body.data.some((i: any) => i.lenderType === 'bank')).toBe(true);
    expect(body.data.some((i: any) => i.lenderType === 'non-bank')).toBe(true);
  });

  it('gives the rules read on the lender’s name that its datasets apply, and no rule read on a product’s name', () => {
    let restricted = 0;
    for (const institution of body.data) {
      const applied = new Set(
        institution.datasets.flatMap((slug: keyof typeof EXPLORER) => EXPLORER[slug].restrictions),
      );
      const expected = RESTRICTIONS.filter(
        (r) => r.field === 'entity' && applied.has(r.key) && r.catches.includes(institution.name),
      ).map((r) => ({ key: r.key, label: r.label }));
      expect(institution.restrictions, institution.id).toEqual(expected);
      if (expected.length) restricted++;
    }
    expect(restricted).toBeGreaterThan(0);
    const productRules = new Set(RESTRICTIONS.filter((r) => r.field === 'product').map((r) => r.key as string));
    for (const institution of body.data)
      for (const r of institution.restrictions) expect(productRules.has(r.key)).toBe(false);
  });

  it('is an envelope like the other data answers: type, data, lastUpdated (the newest collection), termsOfUse, timestamp', async () => {
    const { lastUpdated } = await seenInFiles();
    expect(InstitutionsResponse.parse(body)).toEqual(body);
    expect(Object.keys(body)).toEqual(['type', 'data', 'lastUpdated', 'termsOfUse', 'timestamp']);
    expect(body.type).toBe('Institutions');
    expect(body.termsOfUse).toBe(TERMS_OF_USE);
    expect(body.lastUpdated).toBe(lastUpdated);
  });

  it('is cached like every data answer, with a strong ETag answered 304', async () => {
    expect(response.headers.get('cache-control')).toBe(DATA_CACHE_CONTROL);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await get(api, PATH, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await get(api, `${PATH}/`)).headers.get('etag')).toBe(etag);
  });

  it('bad input is the documented error body: 400 for any parameter, 404 below the path, 405 for a write', async () => {
    const cases: [string, string, number, string][] = [
      ['GET', `${PATH}?colour=blue`, 400, 'invalid_request'],
      ['GET', `${PATH}/anz`, 404, 'not_found'],
      ['DELETE', PATH, 405, 'method_not_allowed'],
    ];
    for (const [method, path, status, error] of cases) {
      const { response: answer, body: errorBody } = await getJson(api, path, { method });
      expect(answer.status, path).toBe(status);
      expect(ErrorBody.parse(errorBody)).toEqual(errorBody);
      expect(errorBody.error).toBe(error);
    }
  });

  it('is worked out once per process: the first request reads each dataset’s history index alone, later ones read nothing', async () => {
    const compiled = await compileSnapshotTree(historyDir());
    const files = historyFiles(compiled);
    const reads: string[] = [];
    const store = new ServedStore(newestOnly(compiled), async (path) => {
      reads.push(path);
      return files.get(path)!;
    });
    const service = createService({
      loadStore: async () => store,
      status: new FileStatusStore(await tempDir('rates-status-')),
      siteUrl: SITE,
    });
    const first = await service(new Request(`${SITE}${PATH}`));
    expect(first.status).toBe(200);
    expect(reads.sort()).toEqual(DATASETS.map((d) => `${d.slug}/index.json`).sort());
    reads.length = 0;
    const second = await service(new Request(`${SITE}${PATH}?`));
    expect(second.status).toBe(200);
    expect(reads).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('the answer satisfies its 200 schema (which lets a field added later through), and every example in the document is real', async () => {
    const { doc, ajv, service } = await documentOverHistory();
    const op = doc.paths[PATH].get;
    expect(op.operationId).toBe('listInstitutions');
    const check = ajv.compile(op.responses['200'].content['application/json'].schema);
    expect(check(body), ajv.errorsText(check.errors)).toBe(true);
    // Open: a release may add a field (/docs/stability#where-new-fields-may-appear).
    expect(check({ ...body, extra: 1 })).toBe(true);
    expect(check({ ...body, data: [{ ...body.data[0], extra: 1 }] })).toBe(true);
    for (const status of ['200', '400', '500']) {
      const media = op.responses[status].content['application/json'];
      const found = Object.values(media.examples ?? {}) as any[];
      expect(found.length, status).toBeGreaterThan(0);
      const valid = ajv.compile(media.schema);
      for (const example of found) {
        expect(valid(example.value), status).toBe(true);
        if (status === '500') continue;
        const answer = await (await service(new Request(`${SITE}${example.summary.replace(/^GET /, '')}`))).json();
        // A list's example keeps its first entries (src/examples.ts EXAMPLE_CUT).
        const kept = Array.isArray(answer.data) ? { data: answer.data.slice(0, example.value.data.length) } : {};
        expect({ ...answer, ...kept, timestamp: undefined }).toEqual({ ...example.value, timestamp: undefined });
      }
    }
  }, 60_000);
});

describe('the lenders page’s rows (/rates/lenders)', () => {
  it('are the registry the API answers, each dataset linking to the lender’s explorer page while the newest snapshot lists it', async () => {
    const views = datasetViews(await compileSnapshotTree(historyDir()));
    const rows = lenderRows(views);
    expect(rows.map(({ pages: _, firstDay: __, lastDay: ___, ...institution }) => institution)).toEqual(body.data);
    let linked = 0;
    let unlinked = 0;
    for (const row of rows) {
      expect(row.pages.map((p) => p.slug)).toEqual(row.datasets);
      for (const page of row.pages) {
        const view = views.find((v) => v.dataset.slug === page.slug)!;
        const ids = [row.id, ...row.aliases.map((a) => a.id)].map((id) => id.toLowerCase());
        const now = view.latest.data.find((e) => ids.includes(e.id.toLowerCase()));
        expect(page.url, `${row.id} ${page.slug}`).toBe(now ? entityUrl(view.definition, now.id) : undefined);
        if (page.url) linked++;
        else unlinked++;
      }
    }
    expect(linked).toBeGreaterThan(0);
    expect(unlinked).toBeGreaterThan(0);
  });
});
