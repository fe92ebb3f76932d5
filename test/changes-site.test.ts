/**
 * The Atom feeds and CSV downloads, as the production build writes them and `npm start` serves
 * them, over the real history: every feed parses with a real feed parser
 * (@rowanmanning/feed-parser) and its entries are the differences between the API's snapshots;
 * entry ids are stable across two builds; every CSV parses with a real CSV parser (csv-parse) and
 * each row equals the API's value for its date and id; every new link on the pages, in the feeds,
 * the docs and llms.txt resolves; vercel.json gives the files their types and download names;
 * the feeds the hourly job tells the WebSub hub of are the files the build writes.
 */
import { execFile } from 'node:child_process';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseFeed } from '@rowanmanning/feed-parser';
import { parseAtomFeed } from 'feedsmith';
import { getTransformedRoutes } from '@vercel/routing-utils';
import * as cheerio from 'cheerio';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeDays, type SnapshotData } from '../src/changes/model.ts';
import { atomFeed } from '../src/changes/feeds.ts';
import { feedTexts } from '../scripts/hourly/feeds.ts';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { lowestChangesAtom } from '../src/api/alerts.ts';
import { EXPLORER, type ExplorerDefinition } from '../src/explorer/definitions.ts';
import { datasetViews } from '../src/explorer/pages.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { MortgageInstitution } from '../src/schemas/rates.ts';
import { expectedDays, expectedMovement, type ExpectedChange } from './support/changes-diff.ts';
import { ROOT } from './support/constants.ts';
import { datasetOfSchema } from './support/datasets.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

/** The explorer's address of each dataset, as users see it (its explorer facts). */
const pathOf = (dataset: Dataset) => EXPLORER[dataset.slug].path;

let site: ProductionSite;
/** The dataset with the longest history: the one the second build changes. */
let LONG: Dataset;
/**
 * A second build, same site address, of the history without LONG's newest snapshot, and with one
 * more, older one: a copy of its first snapshot on 31 December of the year before (it moves no
 * value, so no feed changes), so that this build's history of LONG spans three years and the CSV
 * files' two-year bound shows.
 */
let earlierBuild: string;
let droppedDate: string;
/** LONG's first snapshot date, and the older one the second build's history starts with. */
let firstDate: string;
let olderDate: string;
/** LONG's snapshot dates of the second build, oldest first. */
let earlierDates: string[];
const series: Record<string, Record<string, { data: any[]; lastUpdated: string }>> = {};

const get = (path: string) => fetch(path.startsWith('http') ? path : `${site.url}${path}`);
const slug = (id: string) => id.slice(id.indexOf(':') + 1);
/** The calendar years of these dates, newest first. */
const yearsOf = (dates: readonly string[]) => [...new Set(dates.map((d) => d.slice(0, 4)))].sort().reverse();
/** The dates of these years. */
const datesIn = (dates: readonly string[], years: readonly string[]) =>
  dates.filter((d) => years.includes(d.slice(0, 4)));
/** Every CSV file of a dataset and the snapshot dates it must hold: the newest, the newest two years, each year. */
const csvFilesOf = (name: string, dates: readonly string[]): [string, string[]][] => [
  [`${name}.csv`, dates.slice(-1)],
  [`${name}-history.csv`, datesIn(dates, yearsOf(dates).slice(0, 2))],
  ...yearsOf(dates).map((year): [string, string[]] => [`${name}-history-${year}.csv`, datesIn(dates, [year])]),
];
/** The dates a CSV file holds, in its order, once each. */
const datesOfCsv = (text: string) => [
  ...new Set((parseCsv(text, { bom: true }) as string[][]).slice(1).map((row) => row[0]!)),
];

beforeAll(async () => {
  site = await buildAndServe({
    name: 'changes',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
  for (const d of DATASETS) {
    const dates: string[] = (await (await get(`/api/v1/${d.slug}/time-series`)).json()).availableDates;
    series[d.slug] = (
      await (await get(`/api/v1/${d.slug}/time-series?startDate=${dates[0]}&endDate=${dates.at(-1)}`)).json()
    ).timeSeries;
  }
  LONG = [...DATASETS].sort((a, b) => Object.keys(series[b.slug]!).length - Object.keys(series[a.slug]!).length)[0]!;
  const earlier = await tempDir('rates-history-earlier-');
  await cp(historyDir(), earlier, { recursive: true });
  droppedDate = Object.keys(series[LONG.slug]!).at(-1)!;
  await rm(join(earlier, LONG.slug, `${droppedDate}.json`));
  const first = Object.keys(series[LONG.slug]!)[0]!;
  const older = `${Number(first.slice(0, 4)) - 1}-12-31`;
  [firstDate, olderDate] = [first, older];
  const copy = JSON.parse(await readFile(join(earlier, LONG.slug, `${first}.json`), 'utf8'));
  await writeFile(
    join(earlier, LONG.slug, `${older}.json`),
    JSON.stringify({ ...copy, lastUpdated: `${older}T00:00:00.000Z` }, null, 2),
  );
  earlierDates = (await readdir(join(earlier, LONG.slug)))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  earlierBuild = resolve(ROOT, '.builds', 'changes-earlier');
  await promisify(execFile)('npm', ['run', 'build'], {
    cwd: ROOT,
    env: {
      ...process.env,
      BUILD_DIR: earlierBuild,
      GENERATED_DIR: `${earlierBuild}-generated`,
      SNAPSHOTS_DIR: earlier,
      SITE_URL: site.url,
      ASTRO_TELEMETRY_DISABLED: '1',
    },
    maxBuffer: 32 * 1024 * 1024,
  });
}, 300_000);
afterAll(() => site?.stop());

interface Scope {
  feed: string;
  dataset?: (typeof DATASETS)[number];
  entity?: { id: string; listedNow: boolean };
}

/** Every feed the site must have: all datasets, each dataset, each institution or issuer ever listed. */
function scopes(): Scope[] {
  const list: Scope[] = [{ feed: '/rates/changes.atom' }];
  for (const dataset of DATASETS) {
    const path = pathOf(dataset);
    list.push({ feed: `/rates/${path}/changes.atom`, dataset });
    const snapshots = Object.values(series[dataset.slug]!);
    const now = new Set(snapshots.at(-1)!.data.map((e) => e.id));
    const ever = new Set(snapshots.flatMap((s) => s.data.map((e) => e.id as string)));
    for (const id of ever)
      list.push({ feed: `/rates/${path}/${slug(id)}/changes.atom`, dataset, entity: { id, listedNow: now.has(id) } });
  }
  return list;
}

/** The feed of every change of the lowest open rate beside each comparison page of every lender, with its dataset and measure. */
const lowestFeeds = () =>
  DATASETS.flatMap((dataset) => {
    const definition = EXPLORER[dataset.slug] as ExplorerDefinition;
    return definition.measures
      .filter((m) => definition.compared.includes(m.key))
      .map((measure) => ({
        feed: `/rates/${definition.path}/${measure.slug}/lowest.atom`,
        dataset,
        measure: measure.key,
      }));
  });

/** The entries a feed must have, newest first: [entry id suffix, dataset, day]. */
function expectedEntries(scope: Scope) {
  const datasets = scope.dataset ? [scope.dataset] : DATASETS;
  return datasets
    .flatMap((d) => expectedDays(series[d.slug]!, scope.entity?.id).map((day) => ({ dataset: d, day })))
    .sort(
      (a, b) =>
        b.day.date.localeCompare(a.day.date) ||
        b.day.lastUpdated.localeCompare(a.day.lastUpdated) ||
        a.dataset.slug.localeCompare(b.dataset.slug),
    )
    .slice(0, 100);
}

const line = (c: {
  kind: string;
  entity: string;
  item: string;
  id: string;
  from?: unknown;
  to?: unknown;
  direction: unknown;
  bps: unknown;
}) =>
  `${c.kind}|${c.entity}|${c.item}|${c.id}|${JSON.stringify(c.from)}|${JSON.stringify(c.to)}|${c.direction}|${c.bps}`;
const expectedLine = (c: ExpectedChange) =>
  line({ kind: c.kind, entity: c.entityId, item: c.itemId, id: c.id, from: c.from, to: c.to, ...expectedMovement(c) });

/**
 * The HTML content of each entry, read with an XML parser (cheerio's): @rowanmanning/feed-parser
 * decodes entities in `type="html"` content once more than XML does, so its `content` is text
 * rather than the HTML we wrote (a name such as "Prime <60% LVR" would come back as a tag).
 */
function contents(xml: string): string[] {
  const $ = cheerio.load(xml, { xml: true });
  return $('entry')
    .map((_, e) => $(e).children('content[type="html"]').text())
    .get();
}

/** The changes an entry's HTML content lists, from the data attributes of its list items. */
function listed(html: string) {
  const $ = cheerio.load(html);
  return $('li[data-kind]')
    .map((_, li) => {
      const attr = (name: string) => $(li).attr(`data-${name}`);
      const value = (name: string) => (attr(name) === undefined ? undefined : JSON.parse(attr(name)!));
      return {
        kind: attr('kind')!,
        entity: attr('entity')!,
        item: attr('item')!,
        id: attr('id')!,
        from: value('from'),
        to: value('to'),
        direction: value('direction') ?? null,
        bps: value('bps') ?? null,
        text: $(li).text(),
      };
    })
    .get();
}

describe('Atom feeds', () => {
  it('every feed parses, is served as Atom, and lists the differences between the API snapshots, newest first, at most 100', async () => {
    const host = new URL(site.url).hostname;
    let entries = 0;
    for (const scope of scopes()) {
      const response = await get(scope.feed);
      expect(response.status, scope.feed).toBe(200);
      expect(response.headers.get('content-type'), scope.feed).toMatch(/^application\/atom\+xml/);
      const xml = await response.text();
      const feed = parseFeed(xml);
      const html = contents(xml);
      expect(feed.meta.type, scope.feed).toBe('atom');
      expect(feed.self).toBe(`${site.url}${scope.feed}`);
      expect(feed.copyright).toBe(TERMS_OF_USE);
      const expected = expectedEntries(scope);
      expect(feed.items.length, scope.feed).toBe(expected.length);
      // Every entry has its own rights: the terms of use.
      const $ = cheerio.load(xml, { xml: true });
      expect(
        $('entry > rights')
          .map((_, r) => $(r).text().trim())
          .get(),
      ).toEqual(expected.map(() => TERMS_OF_USE));
      for (const [i, item] of feed.items.entries()) {
        const { dataset, day } = expected[i]!;
        const where = `${scope.feed} entry ${i} (${dataset.slug} ${day.date})`;
        expect(item.id, where).toBe(
          `tag:${host},2024:${dataset.slug}/${scope.entity ? `${scope.entity.id}/` : ''}${day.date}`,
        );
        expect(item.updated?.toISOString(), where).toBe(day.lastUpdated);
        const shown = listed(html[i]!);
        expect(shown.map(line).sort(), where).toEqual(day.changes.map(expectedLine).sort());
        const more = shown.length > 1 ? ` and ${shown.length - 1} more` : '';
        expect(item.title, where).toBe(`${scope.entity ? '' : `${dataset.title} — `}${shown[0]!.text}${more}`);
        const page = scope.entity
          ? scope.entity.listedNow
            ? `/rates/${pathOf(dataset)}/${slug(scope.entity.id)}`
            : `/rates/${pathOf(dataset)}`
          : `/rates/${pathOf(dataset)}`;
        expect(item.url, where).toBe(`${site.url}${page}`);
        const json = $('entry').eq(i).find('link[rel="related"]');
        expect(json.attr('type')).toBe('application/json');
        expect(json.attr('href'), where).toBe(
          `${site.url}/api/v1/${dataset.slug}/changes?since=${day.date}&until=${day.date}${scope.entity ? `&${dataset.entity.param}=${scope.entity.id}` : ''}`,
        );
        entries++;
      }
    }
    expect(entries).toBeGreaterThan(500);
  }, 120_000);

  it.each(DATASETS.map((d) => [d.slug, d] as const))(
    '%s: an entry reads as a person expects: the title, the change in words, the page and the JSON',
    async (_, dataset) => {
      // The entity feed of the example institution, else of the first entity listed now whose feed has an entry;
      // in it, the newest entry that lists more than one change, else the newest.
      const newestData = series[dataset.slug]![Object.keys(series[dataset.slug]!).at(-1)!]!.data;
      let id = '';
      let xml = '';
      for (const candidate of [dataset.exampleEntityId, ...newestData.map((e) => e.id as string)]) {
        [id, xml] = [candidate, await (await get(`/rates/${pathOf(dataset)}/${slug(candidate)}/changes.atom`)).text()];
        if (contents(xml).length > 0) break;
      }
      const feed = parseFeed(xml);
      const html = contents(xml);
      expect(html.length).toBeGreaterThan(0);
      const index = Math.max(
        0,
        html.findIndex((h) => listed(h).length > 1),
      );
      const entry = feed.items[index]!;
      const shown = listed(html[index]!);
      const name = newestData.find((e) => e.id === id).name;
      expect(entry.title).toBe(`${shown[0]!.text}${shown.length > 1 ? ` and ${shown.length - 1} more` : ''}`);
      for (const c of shown) {
        expect(c.text.startsWith(`${name} · `), c.text).toBe(true);
        // A move reads "…: <which way>, <from> → <to>" ("down 25 bps", "up" for a fee), each value as the field is written (5.29 %, $65).
        if (typeof c.from === 'number' && typeof c.to === 'number') {
          const way =
            c.bps === null ? c.direction : `${c.direction} ${Math.abs(c.bps)} bp${Math.abs(c.bps) === 1 ? '' : 's'}`;
          const moved = c.text.slice(c.text.lastIndexOf(': ') + 2);
          expect(moved.startsWith(`${way}, `), c.text).toBe(true);
          const said = moved.slice(`${way}, `.length);
          expect(said, c.text).toContain(' → ');
          const numbers = (said.match(/\d[\d,]*(?:\.\d+)?/g) ?? []).map((n) => Number(n.replaceAll(',', '')));
          expect(numbers, c.text).toEqual([c.from, c.to]);
        }
      }
      expect(html[index]).toContain(`href="${site.url}/rates/${pathOf(dataset)}/${slug(id)}"`);
      // The JSON link answers the same changes.
      const $ = cheerio.load(xml, { xml: true });
      const date = entry.id!.slice(entry.id!.lastIndexOf('/') + 1);
      const href = $('entry').eq(index).find('link[rel="related"]').attr('href')!;
      const body = await (await get(href)).json();
      expect(body.changes.map((d: any) => d.date)).toEqual([date]);
      const item = dataset.itemsKey === 'products' ? 'product' : 'plan';
      const fromJson = ['changed', 'added', 'removed'].flatMap((kind) =>
        body.changes[0][kind].map((c: any) =>
          line({
            kind,
            entity: c[dataset.entity.param],
            item: c[`${item}Id`],
            id: c.rateId ?? `${c[`${item}Id`]}#${c.field}`,
            from: c.from,
            to: c.to,
            direction: c.direction,
            bps: c.bps,
          }),
        ),
      );
      expect(fromJson.sort()).toEqual(shown.map(line).sort());
    },
  );

  it('names and values are escaped: a hostile name reads back as text', () => {
    // Data of termed rates, as the entity below has.
    const dataset = datasetOfSchema(MortgageInstitution);
    const entity = (name: string, rate: number) => ({
      id: 'institution:odd',
      name,
      products: [
        {
          id: 'product:odd:special',
          name: 'Special <b>',
          rates: [{ id: 'rate:odd:special:1-year', rate, term: '1 year' as const, termInMonths: 12 }],
        },
      ],
    });
    const name = 'A & B <script>alert("x")</script> ]]> Bank';
    const snapshots: SnapshotData[] = [
      { date: '2025-01-01', lastUpdated: '2025-01-01T01:00:00.000Z', data: [entity(name, 5.5)] },
      { date: '2025-01-02', lastUpdated: '2025-01-02T01:00:00.000Z', data: [entity(name, 5.25)] },
    ];
    const xml = atomFeed(
      { kind: 'dataset', dataset },
      [{ dataset, days: changeDays(dataset, snapshots), lastUpdated: snapshots[1]!.lastUpdated }],
      'https://rates.example',
    );
    const feed = parseFeed(xml);
    expect(feed.items).toHaveLength(1);
    expect(feed.items[0]!.title).toBe(`${dataset.title} — ${name} · Special <b> · 1 year: down 25 bps, 5.50 → 5.25 %`);
    const $ = cheerio.load(contents(xml)[0]!);
    expect($('script')).toHaveLength(0);
    expect($('b')).toHaveLength(0);
    expect($('li').text()).toBe(`${name} · Special <b> · 1 year: down 25 bps, 5.50 → 5.25 %`);
    // The snapshot dated as the pages date it: when it was collected, in New Zealand time, never by its UTC date.
    expect($('p').first().text()).toBe(
      `1 change to ${dataset.label} in the snapshot collected 2 Jan 2025, 2:00 pm (New Zealand time), compared with the snapshot before it.`,
    );
    expect($.root().text()).not.toMatch(/2025-01-0\d/);
  });

  it('each comparison page of every lender has its lowest-rate feed, served as Atom: the changes of the lowest open rate over the whole history', async () => {
    const views = datasetViews(await compileSnapshotTree(historyDir()));
    let entries = 0;
    for (const { feed, dataset, measure } of lowestFeeds()) {
      const response = await get(feed);
      expect(response.status, feed).toBe(200);
      expect(response.headers.get('content-type'), feed).toBe('application/atom+xml; charset=utf-8');
      const xml = await response.text();
      const view = views.find((v) => v.dataset === dataset)!;
      expect(xml, feed).toBe(lowestChangesAtom(dataset, view.snapshots, measure, site.url));
      const parsed = parseAtomFeed(xml);
      expect(parsed.links?.find((l) => l.rel === 'self')?.href, feed).toBe(`${site.url}${feed}`);
      entries += parsed.entries?.length ?? 0;
    }
    expect(entries).toBeGreaterThan(20);
  });

  it('the hourly job makes the feeds it tells the WebSub hub of as the build writes them: every .atom file under /rates, the same text', async () => {
    const built = (await readdir(join(site.buildDir, 'client', 'rates'), { recursive: true }))
      .filter((f) => f.endsWith('.atom'))
      .map((f) => `/rates/${f}`);
    const listed = await feedTexts(historyDir(), site.url);
    expect([...listed.keys()].sort()).toEqual(built.sort());
    for (const [path, text] of listed)
      expect(text, path).toBe(await readFile(join(site.buildDir, 'client', path), 'utf8'));
  });

  it('entry ids are stable across builds: a build of the history one snapshot shorter has the same entries, less the new date', async () => {
    const files = (await readdir(join(earlierBuild, 'client', 'rates'), { recursive: true })).filter((f) =>
      f.endsWith('.atom'),
    );
    expect(files.length).toBe(scopes().length + lowestFeeds().length);
    let compared = 0;
    for (const file of files) {
      const [before, after] = await Promise.all([
        readFile(join(earlierBuild, 'client', 'rates', file), 'utf8'),
        readFile(join(site.buildDir, 'client', 'rates', file), 'utf8'),
      ]);
      const old = new Map(parseFeed(before).items.map((i) => [i.id!, i]));
      const now = new Map(parseFeed(after).items.map((i) => [i.id!, i]));
      /**
       * A lowest-rate feed of LONG opens with where the rate stood in its history's first snapshot
       * (so that no feed is empty for a new subscriber): the second build's history starts with
       * the older copy, so its opening entry is of that date, and this build's of the first.
       */
      const opening = (id: string, date: string) =>
        file.endsWith('/lowest.atom') && file.startsWith(`${pathOf(LONG)}/`) && id.endsWith(`/${date}`);
      for (const [id, item] of now) {
        const was = old.get(id);
        if (!was && opening(id, firstDate)) {
          expect(old.has(`${id.slice(0, -firstDate.length)}${olderDate}`), `${file} ${id}`).toBe(true);
          continue;
        }
        if (!was) {
          expect(id, file).toMatch(
            new RegExp(`:${LONG.slug}/(${LONG.entity.prefix}:[^/]+/|lowest/[^/]+/)?${droppedDate}$`),
          );
          continue;
        }
        expect(
          { title: item.title, content: item.content, updated: item.updated, url: item.url },
          `${file} ${id}`,
        ).toEqual({
          title: was.title,
          content: was.content,
          updated: was.updated,
          url: was.url,
        });
        compared++;
      }
      // What the newer build no longer has was pushed out by the 100-entry limit: the oldest entries.
      const gone = [...old.keys()].filter((id) => !now.has(id) && !opening(id, olderDate));
      if (gone.length) expect(now.size, file).toBe(100);
      // A feed the new snapshot does not touch is the same file, byte for byte.
      if (!file.startsWith(`${pathOf(LONG)}/`) && file !== 'changes.atom') expect(after, file).toBe(before);
    }
    expect(compared).toBeGreaterThan(500);
    const long = parseFeed(
      await readFile(join(site.buildDir, 'client', 'rates', pathOf(LONG), 'changes.atom'), 'utf8'),
    );
    expect(long.items[0]!.id).toMatch(new RegExp(`:${LONG.slug}/${droppedDate}$`));
  });
});

describe('CSV downloads', () => {
  it.each(DATASETS.map((d) => [d.slug, d] as const))(
    '%s: the newest snapshot, the newest two years and each year, row by row as the API gives them',
    async (name, dataset) => {
      const keys = dataset.itemsKey === 'products' ? ['productId', 'productName'] : ['planId', 'planName'];
      const entityKeys = [dataset.entity.param, `${dataset.entity.kind}Name`];
      // The values' columns are the schema's fields, in its order: a rate's (its id as rateId), or a plan's own.
      const dates = Object.keys(series[name]!);
      const [item] = series[name]![dates.at(-1)!]!.data[0][dataset.itemsKey];
      const values = item.rates
        ? ['rateId', ...Object.keys(item.rates[0]).filter((k) => k !== 'id')]
        : Object.keys(item).filter((k) => k !== 'id' && k !== 'name');
      const header = ['date', ...entityKeys, ...keys, ...values];
      const files = csvFilesOf(name, dates);
      // The files are those of the years with snapshots, no more: none for a year without one.
      expect(
        (await readdir(join(site.buildDir, 'client', 'rates', pathOf(dataset))))
          .filter((f) => f.endsWith('.csv'))
          .sort(),
      ).toEqual(files.map(([file]) => file).sort());
      const held: Record<string, string[]> = {};
      for (const [file, wanted] of files) {
        const response = await get(`/rates/${pathOf(dataset)}/${file}`);
        expect(response.status, file).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        const bytes = Buffer.from(await response.arrayBuffer());
        expect([...bytes.subarray(0, 3)], 'a UTF-8 byte order mark').toEqual([0xef, 0xbb, 0xbf]);
        const text = bytes.toString('utf8');
        expect(text.split('\r\n')[0]).toBe(`\ufeff${header.join(',')}`);
        expect(text.replaceAll('\r\n', '')).not.toContain('\n');
        const rows: string[][] = parseCsv(text, { bom: true, relax_quotes: false, relax_column_count: false });
        expect(rows[0]).toEqual(header);
        held[file] = datesOfCsv(text);
        expect(held[file], file).toEqual(wanted);
        // The API's values on each date, by row id (rate id, or plan id for cards), as the CSV writes them.
        const expected: string[][] = [];
        for (const date of wanted) {
          for (const entity of series[name]![date]!.data) {
            for (const item of entity[dataset.itemsKey]) {
              const head = [date, entity.id, entity.name, item.id, item.name];
              const cell = (v: unknown) => (v === null || v === undefined ? '' : String(v));
              if (item.rates)
                for (const r of item.rates)
                  expected.push([...head, ...header.slice(5).map((k) => cell(r[k === 'rateId' ? 'id' : k]))]);
              else expected.push([...head, ...header.slice(5).map((k) => cell(item[k]))]);
            }
          }
        }
        expect(rows.length - 1, file).toBe(expected.length);
        const byKey = (row: string[]) => `${row[0]}|${row[5]?.startsWith('rate:') ? row[5] : row[3]}`;
        const api = new Map(expected.map((row) => [byKey(row), row]));
        expect(api.size).toBe(expected.length);
        for (const row of rows.slice(1)) expect(row, byKey(row)).toEqual(api.get(byKey(row)));
      }
      // Each year's file holds that year's dates only, and together they hold every date, each once.
      const years = yearsOf(dates);
      for (const year of years)
        expect(
          held[`${name}-history-${year}.csv`]!.every((d) => d.startsWith(`${year}-`)),
          year,
        ).toBe(true);
      expect(years.flatMap((year) => held[`${name}-history-${year}.csv`]!).sort()).toEqual(dates);
      // The newest two years (in the test history, 2024 and 2025: every snapshot).
      expect(yearsOf(held[`${name}-history.csv`]!)).toEqual(years.slice(0, 2));
    },
    60_000,
  );

  it('no file grows without bound: over three years, -history.csv holds the newest two, each year has its file, the page links them all', async () => {
    const dir = join(earlierBuild, 'client', 'rates', pathOf(LONG));
    const years = yearsOf(earlierDates);
    expect(years).toHaveLength(3);
    const files = csvFilesOf(LONG.slug, earlierDates);
    expect((await readdir(dir)).filter((f) => f.endsWith('.csv')).sort()).toEqual(files.map(([file]) => file).sort());
    const held: Record<string, string[]> = {};
    for (const [file, wanted] of files) {
      held[file] = datesOfCsv(await readFile(join(dir, file), 'utf8'));
      expect(held[file], file).toEqual(wanted);
    }
    expect(yearsOf(held[`${LONG.slug}-history.csv`]!)).toEqual(years.slice(0, 2));
    expect(held[`${LONG.slug}-history.csv`]).not.toContain(earlierDates[0]);
    expect(years.flatMap((year) => held[`${LONG.slug}-history-${year}.csv`]!).sort()).toEqual(earlierDates);
    // The page lists the newest snapshot, the recent history and each year, newest first.
    const $ = cheerio.load(await readFile(join(dir, 'index.html'), 'utf8'));
    expect(
      $('a.follow-csv')
        .map((_, a) => $(a).attr('href'))
        .get(),
    ).toEqual(files.map(([file]) => `/rates/${pathOf(LONG)}/${file}`));
  });
});

describe('links', () => {
  /** Every built page under /rates, as its path. */
  async function ratesPages(): Promise<string[]> {
    const client = join(site.buildDir, 'client');
    const files = await readdir(join(client, 'rates'), { recursive: true });
    return files
      .filter((f) => f.endsWith('index.html'))
      .map((f) => `/${relative(client, join(client, 'rates', f)).replace(/\/?index\.html$/, '')}`);
  }

  it('every explorer page announces its feed in <head>, and every feed and download link on it resolves with its type', async () => {
    const pages = await ratesPages();
    expect(pages.length).toBeGreaterThan(100);
    const checked = new Map<string, string>();
    const resolveLink = async (href: string) => {
      if (!checked.has(href)) {
        const response = await get(href);
        expect(response.status, href).toBe(200);
        checked.set(href, response.headers.get('content-type') ?? '');
        await response.body?.cancel();
      }
      return checked.get(href)!;
    };
    for (const page of pages) {
      const $ = cheerio.load(await readFile(join(site.buildDir, 'client', page, 'index.html'), 'utf8'));
      const feeds = $('head link[rel="alternate"][type="application/atom+xml"]')
        .map((_, l) => $(l).attr('href'))
        .get();
      expect(feeds.length, page).toBeGreaterThan(0);
      const parts = page.split('/').filter(Boolean);
      // A page comparing every institution on one measure (/rates/<path>/<measure>/banks) announces the
      // measure's lowest-rate feed, then its dataset's feed, and links the first below its table.
      const compared = Object.values(EXPLORER).some(
        (d) => d.path === parts[1] && d.measures.some((m) => m.slug === parts[2]),
      );
      if (compared) {
        const lowest = `/rates/${parts[1]}/${parts[2]}/lowest.atom`;
        expect(feeds, page).toEqual([lowest, `/rates/${parts[1]}/changes.atom`]);
        expect($('p.lowest-feed a[type="application/atom+xml"]').attr('href'), page).toBe(lowest);
      } else if (parts.length >= 3) expect(feeds, page).toEqual([`/rates/${parts[1]}/${parts[2]}/changes.atom`]);
      // Pages about every dataset (the hub, what changed, the lenders) announce the whole change log first.
      const everyDataset = ['/rates', '/rates/changes', '/rates/lenders'].includes(page);
      if (parts.length === 2 && !everyDataset) expect(feeds, page).toEqual([`${page}/changes.atom`]);
      if (everyDataset) expect(feeds[0], page).toBe('/rates/changes.atom');
      for (const href of feeds) expect(await resolveLink(href), href).toMatch(/^application\/atom\+xml/);
      for (const a of $('a.follow-atom, a.follow-csv, a.follow-json').toArray()) {
        const href = $(a).attr('href')!;
        const type = await resolveLink(href);
        if ($(a).hasClass('follow-csv')) {
          expect(type, href).toBe('text/csv; charset=utf-8');
          expect($(a).attr('download'), href).toBe(href.split('/').pop());
        } else if ($(a).hasClass('follow-json')) expect(type, href).toMatch(/^application\/json/);
        else expect(type, href).toMatch(/^application\/atom\+xml/);
      }
    }
    // Each dataset's page links each of its CSV files: the newest, the recent history, each year newest first.
    for (const d of DATASETS) {
      const page = cheerio.load(
        await readFile(join(site.buildDir, 'client', 'rates', pathOf(d), 'index.html'), 'utf8'),
      );
      expect(
        page('a.follow-csv')
          .map((_, a) => page(a).attr('href'))
          .get(),
        d.slug,
      ).toEqual(csvFilesOf(d.slug, Object.keys(series[d.slug]!)).map(([file]) => `/rates/${pathOf(d)}/${file}`));
    }
  }, 120_000);

  it('every link in the feeds resolves: the pages and the JSON of each entry', async () => {
    const hrefs = new Set<string>();
    for (const scope of [...scopes(), ...lowestFeeds()]) {
      const $ = cheerio.load(await (await get(scope.feed)).text(), { xml: true });
      $('link').each((_, l) => void hrefs.add($(l).attr('href')!));
    }
    expect(hrefs.size).toBeGreaterThan(500);
    for (const href of hrefs) {
      expect(href.startsWith(site.url), href).toBe(true);
      const response = await get(href);
      expect(response.status, href).toBe(200);
      await response.body?.cancel();
    }
  }, 120_000);

  it('the docs page and llms.txt link the feeds, the downloads and the change log, and every such link resolves', async () => {
    const page = await (await get('/docs/changes')).text();
    const $ = cheerio.load(page);
    const links = $('main a, article a')
      .map((_, a) => $(a).attr('href'))
      .get()
      .filter((href) => /^\/(rates|api)\//.test(href));
    const markdown = await (await get('/docs/changes.md')).text();
    for (const d of DATASETS) {
      expect(markdown).toContain(`/api/v1/${d.slug}/changes`);
      expect(links).toContain(`/rates/${pathOf(d)}/changes.atom`);
      expect(links).toContain(`/rates/${pathOf(d)}/${d.slug}.csv`);
      expect(links).toContain(`/rates/${pathOf(d)}/${d.slug}-history.csv`);
      expect(markdown).toContain(`${d.slug}-history-<year>.csv`);
    }
    expect(links).toContain('/rates/changes.atom');
    expect(DATASETS.some((d) => markdown.includes(`"type": "${d.type}Changes"`))).toBe(true);
    const llms = await (await get('/llms.txt')).text();
    const urls = [...llms.matchAll(/\]\((http[^)]+)\)/g)]
      .map((m) => m[1]!)
      .filter((u) => /\/(rates\/|api\/v1\/[^/]+\/changes)/.test(u));
    expect(urls.length).toBeGreaterThanOrEqual(13);
    for (const url of [...urls, ...links]) {
      const response = await get(url);
      expect(response.status, url).toBe(200);
      await response.body?.cancel();
    }
  }, 60_000);

  it('on Vercel, vercel.json gives feeds and downloads their types, and each CSV its file name', async () => {
    const vercel = JSON.parse(await readFile(resolve(ROOT, 'vercel.json'), 'utf8'));
    const { routes, error } = getTransformedRoutes({ headers: vercel.headers });
    expect(error).toBeNull();
    /** The headers Vercel adds for a path: every matching rule's, `$n` replaced by its capture. */
    const headersFor = (path: string) => {
      const headers: Record<string, string> = {};
      for (const route of (routes ?? []) as { src?: string; headers?: Record<string, string> }[]) {
        if (route.src === undefined || !route.headers) continue;
        const match = new RegExp(route.src).exec(path);
        if (!match) continue;
        for (const [key, value] of Object.entries(route.headers))
          headers[key.toLowerCase()] = value.replace(/\$(\d+)/g, (_, n: string) => match[Number(n)] ?? '');
      }
      return headers;
    };
    const files = (await readdir(join(site.buildDir, 'client', 'rates'), { recursive: true })).filter((f) =>
      /\.(atom|csv)$/.test(f),
    );
    const csvCount = DATASETS.reduce((n, d) => n + csvFilesOf(d.slug, Object.keys(series[d.slug]!)).length, 0);
    expect(files.length).toBe(scopes().length + lowestFeeds().length + csvCount);
    for (const file of files) {
      const headers = headersFor(`/rates/${file}`);
      if (file.endsWith('.atom')) expect(headers['content-type'], file).toBe('application/atom+xml; charset=utf-8');
      else {
        expect(headers['content-type'], file).toBe('text/csv; charset=utf-8');
        expect(headers['content-disposition'], file).toBe(`attachment; filename="${file.split('/').pop()}"`);
      }
    }
    expect(headersFor(`/rates/${pathOf(LONG)}/${slug(LONG.exampleEntityId)}`)['content-type']).toBeUndefined();
  });
});
