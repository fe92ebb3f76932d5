/**
 * The rates explorer, built from the real history and served by the built server, for every
 * dataset: the values on each page (read from the built HTML) equal the API's for the same data,
 * "best" (the lowest, or the highest where the dataset's explorer facts say so) counts only offers
 * open to anyone (restricted ones shown apart, labelled), the comparison pages are sorted and
 * filtered as their addresses say, and charts have text alternatives and render in headless
 * Chromium with text of 10 px or more on a phone. The offers a page should show are worked out
 * here from the API's answers and the dataset's explorer facts (src/explorer/definitions.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as cheerio from 'cheerio';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset, itemsOf } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { lineChart, scatterChart } from '../src/explorer/chart.ts';
import {
  EXPLORER,
  type ExplorerDefinition,
  itemName,
  type Measure,
  type Offer,
  offerRate,
} from '../src/explorer/definitions.ts';
import { median } from '../src/explorer/history.ts';
import { lenderType } from '../src/explorer/lender-types.ts';
import { RESTRICTIONS } from '../src/explorer/restrictions.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { diffSnapshots } from '../src/snapshots/diff.ts';
import { chromiumForTests, SCREENSHOTS } from './support/chromium.ts';
import { EACH } from './support/datasets.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

let site: ProductionSite;
const api = async (path: string) => (await fetch(`${site.url}${path}`)).json() as Promise<any>;
const file = (path: string) => join(site.buildDir, 'client', path, 'index.html');
const html = async (path: string) => cheerio.load(await readFile(file(path), 'utf8'));
const exists = (path: string) =>
  readFile(file(path)).then(
    () => true,
    () => false,
  );
const DOC = '/docs/concepts#best-rates-and-restricted-offers';

beforeAll(async () => {
  site = await buildAndServe({
    name: 'explorer',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
}, 180_000);
afterAll(() => site?.stop());

const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;
const slugOf = (id: string) => id.slice(id.indexOf(':') + 1);
const capital = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;
/** A dataset's pages: its overview, its example entity's, and the comparison pages of its measures. */
const pathsOf = (dataset: Dataset) => {
  const definition = definitionOf(dataset);
  const compared = definition.measures.filter((m) => definition.compared.includes(m.key));
  return {
    overview: `rates/${definition.path}`,
    entity: `rates/${definition.path}/${slugOf(dataset.exampleEntityId)}`,
    compared: compared.map((m) => ({ measure: m, path: `rates/${definition.path}/${m.slug}` })),
  };
};

/** Every value the API lists that a page shows, by the id the pages put on each cell. */
function valuesById(dataset: Dataset, body: any): Map<string, number> {
  const definition = definitionOf(dataset);
  return new Map(
    body.data.flatMap((e: any) => itemsOf(e).flatMap((item) => definition.offers(item, e).map((o) => [o.id, o.value]))),
  );
}

interface ApiOffer extends Offer {
  entityId: string;
  entity: string;
  /** The item's name in the API, and as the pages name the offer (a grade ladder by its label, a second listing marked). */
  item: string;
  product: string;
}

/**
 * Offers tied on value in the order a person weighs them: what they pay next first (a card's
 * annual fee, a loan range's end; unknown last), then by lender, item name and id.
 */
const tiedFirst = (a: ApiOffer, b: ApiOffer) =>
  (a.next ?? Number.POSITIVE_INFINITY) - (b.next ?? Number.POSITIVE_INFINITY) ||
  a.entity.localeCompare(b.entity, 'en') ||
  a.item.localeCompare(b.item, 'en') ||
  a.id.localeCompare(b.id);

/** The day in New Zealand a snapshot was collected on, as every page dates it ("5 Mar 2025"). */
const NZ_DAY = new Intl.DateTimeFormat('en-NZ', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'Pacific/Auckland',
});
const nzDay = (snapshot: { lastUpdated: string }) => NZ_DAY.format(new Date(snapshot.lastUpdated));

/** An offer as the cards and comparisons name it: its product, grade, range and what to weigh beside it. */
const offerLine = (o: ApiOffer) =>
  [`${o.product}${o.note ? ` (${o.note})` : ''}`, o.range ? offerRate(o) : '', o.details ?? '']
    .filter(Boolean)
    .join(' ');
/** A best value as the cards write it. */
const valueWords = (value: number, makers: ApiOffer[]) => {
  // As the first of the offers making it reads: "from" where its range starts, "up to" where it is a range's end alone.
  const range = makers[0]?.range;
  return `${range ? (range.from === null ? 'up to ' : 'from ') : ''}${pct(value)}`;
};

/** The API's offers with the measure they count for and whom they are for, by the dataset's explorer facts. */
function offersOf(dataset: Dataset, body: any): ApiOffer[] {
  const definition = definitionOf(dataset);
  return body.data.flatMap((e: any) =>
    itemsOf(e).flatMap((item) =>
      definition.offers(item, e).map((o) => ({
        ...o,
        entityId: e.id,
        entity: e.name,
        item: item.name,
        product: o.label ?? itemName(e, item),
      })),
    ),
  );
}

/** Whether `a` is better than `b` for the dataset's customer, and its best of some values. */
const better = (dataset: Dataset, a: number, b: number) => (definitionOf(dataset).best === 'lowest' ? a < b : a > b);
const bestOf = (dataset: Dataset, values: number[]) =>
  definitionOf(dataset).best === 'lowest' ? Math.min(...values) : Math.max(...values);
const bestFirst = (dataset: Dataset) => (a: number, b: number) =>
  better(dataset, a, b) ? -1 : better(dataset, b, a) ? 1 : 0;
const bestOpen = (dataset: Dataset, offers: ApiOffer[], key: string) =>
  bestOf(
    dataset,
    offers.filter((o) => o.key === key && !o.restricted).map((o) => o.value),
  );
/** Each entity's best open value of a measure. */
function bestByEntity(dataset: Dataset, offers: ApiOffer[], key: string): Map<string, number> {
  const best = new Map<string, number>();
  for (const o of offers)
    if (o.key === key && !o.restricted && (!best.has(o.entity) || better(dataset, o.value, best.get(o.entity)!)))
      best.set(o.entity, o.value);
  return best;
}

const texts = ($: cheerio.CheerioAPI, selector: string) =>
  $(selector)
    .map((_, e) => $(e).text().replace(/\s+/g, ' ').trim())
    .get();
const pct = (n: number) => `${n.toFixed(2)} %`;

describe('chart drawing', () => {
  const svg = lineChart({
    id: 'c',
    title: 'Lowest 1-year rate',
    description: 'Fell from 6.99 % to 4.89 %.',
    yLabel: '% a year',
    series: [
      {
        label: 'Lowest',
        color: '#0072B2',
        points: [
          { date: '2024-02-22', value: 6.99 },
          { date: '2024-08-01', value: 5.5 },
          { date: '2025-03-05', value: 4.89 },
        ],
      },
      {
        label: 'Median',
        color: '#000000',
        dash: '2 3',
        points: [
          { date: '2024-02-22', value: 7.5 },
          { date: '2024-08-01', value: null },
          { date: '2025-03-05', value: 6 },
        ],
      },
    ],
  });
  const $ = cheerio.load(`<div>${svg}</div>`, { xml: true });

  it('draws a wide and a narrow layout, each with a title and description for screen readers', () => {
    expect(
      $('svg')
        .map((_, s) => $(s).attr('class'))
        .get(),
    ).toEqual(['chart chart-wide', 'chart chart-narrow']);
    for (const [own, layout] of [
      ['c', 'wide'],
      ['c-narrow', 'narrow'],
    ]) {
      const one = $(`svg.chart-${layout}`);
      expect(one.attr('role')).toBe('img');
      expect(one.attr('aria-labelledby')).toBe(`${own}-title ${own}-desc`);
      expect(one.find(`title#${own}-title`).text()).toBe('Lowest 1-year rate');
      expect(one.find(`desc#${own}-desc`).text()).toBe('Fell from 6.99 % to 4.89 %.');
    }
  });

  it('draws the lines once and places them in both layouts, with axes, a legend and each line’s newest value', () => {
    const paths = $('defs g#c-lines > path');
    expect(paths).toHaveLength(2);
    expect(
      $('use')
        .map((_, u) => $(u).attr('href'))
        .get(),
    ).toEqual(['#c-lines', '#c-lines']);
    expect(paths.last().attr('d')!.match(/M/g)).toHaveLength(2); // a gap where the median is unknown
    expect(paths.last().attr('stroke-dasharray')).toBe('2 3');
    expect(paths.first().attr('vector-effect')).toBe('non-scaling-stroke');
    for (const layout of ['wide', 'narrow']) {
      expect(texts($, `svg.chart-${layout} text.chart-key`)).toEqual(['Lowest', 'Median']);
      expect(texts($, `svg.chart-${layout} text.chart-end`).sort()).toEqual(['4.89', '6.00']);
      expect(texts($, `svg.chart-${layout} text.chart-tick`)).toContain('7');
    }
    expect(texts($, 'svg.chart-wide text.chart-tick')).toContain('Jan 2025');
    // The phone layout has fewer dates, so that they do not run into each other.
    const dates = (layout: string) => texts($, `svg.chart-${layout} text.chart-tick`).filter((t) => /20\d\d/.test(t));
    expect(dates('narrow').length).toBeLessThan(dates('wide').length);
  });

  it('draws a scatter chart with a labelled point per card, in both layouts', () => {
    const $$ = cheerio.load(
      `<div>${scatterChart({
        id: 's',
        title: 'Rate against fee',
        description: 'Two cards.',
        points: [
          { x: 0, y: 20.95, label: 'A' },
          { x: 149, y: 12.69, label: 'B' },
        ],
        xLabel: 'Fee',
        yLabel: '%',
      })}</div>`,
      { xml: true },
    );
    expect(texts($$, 'defs g#s-dots > path > title')).toEqual(['A', 'B']);
    expect($$('use[href="#s-dots"]')).toHaveLength(2);
  });

  it('takes the median of an odd and an even count', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

/**
 * The best cards of a page or hub section: each measure's best open value, the first `most` offers
 * that make it (and how many more), the first `shown` restricted offers better than it (and how
 * many more), each with whom it is for.
 */
function expectCards(
  $: cheerio.CheerioAPI,
  scope: string,
  dataset: Dataset,
  offers: ApiOffer[],
  { most, shown, linked = false }: { most: number; shown: number; linked?: boolean },
) {
  const definition = definitionOf(dataset);
  const keys = definition.measures.map((m) => m.key).filter((k) => offers.some((o) => o.key === k && !o.restricted));
  // Linked (the hub), a compared measure's name is the link to its page comparing every lender.
  const compares = (k: string) => linked && definition.compared.includes(k);
  expect(texts($, `${scope} .best-card .measure`)).toEqual(
    keys.map((k) => `${definition.measures.find((m) => m.key === k)!.label}${compares(k) ? ' ›' : ''}`),
  );
  expect(
    $(`${scope} .best-card a.measure`)
      .map((_, a) => $(a).attr('href'))
      .get(),
  ).toEqual(
    keys.filter(compares).map((k) => `/rates/${definition.path}/${definition.measures.find((m) => m.key === k)!.slug}`),
  );
  const more = (list: string[], n: number) => [
    ...list.slice(0, n),
    ...(list.length > n ? [`and ${list.length - n} more`] : []),
  ];
  for (const key of keys) {
    const best = bestOpen(dataset, offers, key);
    const card = `${scope} .best-card:has(.value[data-measure="${key}"])`;
    const who = offers.filter((o) => o.key === key && !o.restricted && o.value === best).sort(tiedFirst);
    expect(texts($, `${card} .value`), key).toEqual([valueWords(best, who)]);
    expect(Number($(`${card} .value`).attr('data-value')), key).toBe(best);
    expect(texts($, `${card} .who li`), key).toEqual(
      more(
        who.map((o) => `${o.entity} · ${offerLine(o)}`),
        most,
      ),
    );
    const restricted = offers
      .filter((o) => o.key === key && o.restricted && better(dataset, o.value, best))
      .sort((a, b) => bestFirst(dataset)(a.value, b.value) || tiedFirst(a, b));
    expect(texts($, `${card} .restricted-offers li`), key).toEqual(
      more(
        restricted.map((o) => `${offerRate(o)} ${o.entity} ${o.product} — ${o.restricted}`),
        shown,
      ),
    );
  }
}

describe.each(EACH)('%s: best means open to anyone', (slug, dataset) => {
  const definition = definitionOf(dataset);
  const paths = pathsOf(dataset);

  it('each measure’s card is its best open offer, named by lender and product, restricted offers better than it apart', async () => {
    const offers = offersOf(dataset, await api(endpointsOf(dataset).list.path));
    const $ = await html(paths.overview);
    expectCards($, 'body', dataset, offers, { most: 3, shown: 2 });
    // Then the next two lenders by their best open offer, best first.
    for (const key of definition.measures.map((m) => m.key)) {
      const card = `.best-card:has(.value[data-measure="${key}"])`;
      if ($(card).length === 0) continue;
      const byEntity = bestByEntity(dataset, offers, key);
      const best = bestOpen(dataset, offers, key);
      // Each lender by its best open offer, and of its offers at that value the one a person pays least for next.
      const firstOf = (entity: string, value: number) =>
        offers
          .filter((o) => o.key === key && !o.restricted && o.entity === entity && o.value === value)
          .sort(tiedFirst)[0]!;
      const next = [...byEntity]
        .filter(([, value]) => value !== best)
        .sort(([a, x], [b, y]) => bestFirst(dataset)(x, y) || tiedFirst(firstOf(a, x), firstOf(b, y)))
        .slice(0, 2);
      expect(
        $(`${card} .next li`)
          .map((_, li) => [[$(li).find('a').text(), Number($(li).attr('data-value'))]])
          .get(),
        key,
      ).toEqual(next);
    }
    expect($(`.restriction-note a[href="${DOC}"]`)).toHaveLength(1);
    const note = $('.restriction-note').text().replace(/\s+/g, ' ');
    expect(note).toContain(`“${capital(definition.best)}” counts only offers open to anyone`);
    // What is set apart, only where a rule applies to the dataset; how its offers count, as it declares.
    expect(note.includes(' are set apart, with whom they are for')).toBe(definition.restrictions.length > 0);
    if (definition.restrictions.length === 0) expect(note).toContain('no rule sets any of these offers apart');
    for (const other of DATASETS.map(definitionOf).filter((d) => d.countingNote))
      expect(note.includes(other.countingNote!), other.path).toBe(other.countingNote === definition.countingNote);
  });

  it('the hub: its section shows the same best open offers, one restricted offer apart', async () => {
    const offers = offersOf(dataset, await api(endpointsOf(dataset).list.path));
    const $ = await html('rates');
    const section = DATASETS.indexOf(dataset) + 1;
    expect(texts($, `.hub-section:nth-of-type(${section}) h2`)).toEqual([definition.title]);
    expectCards($, `.hub-section:nth-of-type(${section})`, dataset, offers, { most: 2, shown: 1, linked: true });
  });

  it('every value of the table is the API’s, and the cells marked best are exactly the best open offers', async () => {
    const body = await api(endpointsOf(dataset).list.path);
    const values = valuesById(dataset, body);
    const offers = offersOf(dataset, body);
    const $ = await html(paths.overview);
    const cells = $('td[data-id]')
      .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
      .get() as unknown as [string, number][];
    expect(cells.length).toBe(values.size);
    for (const [id, value] of cells) expect(value, id).toBe(values.get(id));
    const marked = $('td.best')
      .map((_, td) => $(td).attr('data-id'))
      .get()
      .sort();
    const best = new Set(
      definition.measures.map((m) => m.key).filter((k) => offers.some((o) => o.key === k && !o.restricted)),
    );
    const expected = offers
      .filter((o) => best.has(o.key) && !o.restricted && o.value === bestOpen(dataset, offers, o.key))
      .map((o) => o.id)
      .sort();
    expect(marked.length).toBeGreaterThan(0);
    expect(marked).toEqual(expected);
    expect($('.legend-best').text()).toBe(capital(definition.best));
  });

  it('the example institution’s page: its rates as the API gives them, and a chart of one measure against the market', async () => {
    const id = dataset.exampleEntityId;
    const { timeSeries, list } = endpointsOf(dataset);
    const own = await api(`${list.path}/${id}`);
    const $ = await html(paths.entity);
    const cells = $('td[data-id]')
      .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
      .get() as unknown as [string, number][];
    expect(new Map(cells)).toEqual(valuesById(dataset, own));
    // The measures it had an open offer of on any date, the dataset's first chart measure first.
    const dates: string[] = (await api(timeSeries.path)).availableDates;
    const history = await api(
      `${timeSeries.path}?startDate=${dates[0]}&endDate=${dates.at(-1)}&${dataset.entity.param}=${id}`,
    );
    const offered = new Set(
      Object.values(history.timeSeries).flatMap((s: any) =>
        offersOf(dataset, s)
          .filter((o) => !o.restricted)
          .map((o) => o.key),
      ),
    );
    const used = definition.measures.filter((m) => offered.has(m.key));
    const first = used.find((m) => m.key === definition.chartFirst) ?? used[0]!;
    const all = offersOf(dataset, await api(list.path));
    const mine = offersOf(dataset, own);
    const lastRow = ($$: cheerio.CheerioAPI) => {
      const header = texts($$, '.chart-figure details thead th');
      const last = texts($$, '.chart-figure details tbody tr:last-child > *');
      return Object.fromEntries(header.map((h, i) => [h, last[i]]));
    };
    const shown = (offers: ApiOffer[], key: string) =>
      offers.some((o) => o.key === key && !o.restricted) ? bestOpen(dataset, offers, key).toFixed(2) : '—';
    const entityName = own.data[0].name;
    expect($('svg.chart-wide')).toHaveLength(1);
    expect(lastRow($)).toEqual({
      // The snapshot's day in New Zealand, as the page's heading dates it, not the API's UTC key.
      Date: nzDay(history.timeSeries[dates.at(-1)!]),
      [`${entityName} %`]: shown(mine, first.key),
      [`Market ${definition.best} %`]: shown(all, first.key),
      'Market median %': expect.any(String),
    });
    if (used.length < 2) {
      expect($('nav.measure-switch')).toHaveLength(0);
      return;
    }
    // Links to every measure it offered, each its own page charting that measure.
    const ordered = [first, ...used.filter((m) => m !== first)];
    expect(texts($, 'nav.measure-switch a')).toEqual(used.map((m) => m.label));
    expect(texts($, 'nav.measure-switch a[aria-current="page"]')).toEqual([first.label]);
    for (const measure of ordered) {
      const href = $('nav.measure-switch a')
        .filter((_, a) => $(a).text() === measure.label)
        .attr('href')!;
      expect(href).toBe(
        measure === first ? `/${paths.entity}#over-time` : `/${paths.entity}/${measure.slug}#over-time`,
      );
      if (measure === first) continue;
      const $$ = await html(href.slice(1).replace('#over-time', ''));
      expect(texts($$, 'nav.measure-switch a[aria-current="page"]'), measure.slug).toEqual([measure.label]);
      expect(lastRow($$)[`${entityName} %`], measure.slug).toBe(shown(mine, measure.key));
      expect(lastRow($$)[`Market ${definition.best} %`], measure.slug).toBe(shown(all, measure.key));
    }
  });

  it('the trend charts end on the best open value of the newest snapshot, and start on the oldest', async () => {
    const $ = await html(paths.overview);
    const dates: string[] = (await api(endpointsOf(dataset).timeSeries.path)).availableDates;
    const figures = $(`figure[id^="trend-${slug}-"]`);
    expect(figures.length).toBeGreaterThan(0);
    const oldest = await api(`${endpointsOf(dataset).timeSeries.path}?date=${dates[0]}`);
    const first = offersOf(dataset, oldest.timeSeries[dates[0]!]);
    for (const figure of figures.toArray()) {
      const key = $(figure).attr('id')!.slice(`trend-${slug}-`.length);
      const rows = $(figure).find('details tbody tr');
      expect(rows, key).toHaveLength(dates.length);
      expect(rows.last().children().eq(1).text(), key).toBe(
        Number($(`.best-card .value[data-measure="${key}"]`).attr('data-value')).toFixed(2),
      );
      expect(rows.first().children().first().text()).toBe(nzDay(oldest.timeSeries[dates[0]!]));
      expect(rows.first().children().eq(1).text(), key).toBe(
        first.some((o) => o.key === key && !o.restricted) ? bestOpen(dataset, first, key).toFixed(2) : '—',
      );
    }
  });
});

describe('the hub and the docs', () => {
  it('the hub has a section per dataset, in the table’s order, and names its best word', async () => {
    const $ = await html('rates');
    expect(texts($, '.hub-section h2')).toEqual(DATASETS.map((d) => definitionOf(d).title));
    for (const d of DATASETS) expect($('.restriction-note').text()).toContain(`“${capital(definitionOf(d).best)}”`);
    expect($(`.restriction-note a[href="${DOC}"]`)).toHaveLength(1);
  });

  it('the docs state the rule and list every rule with what it caught', async () => {
    const $ = await html('docs/concepts');
    const section = $('#best-rates-and-restricted-offers');
    expect(section).toHaveLength(1);
    const table = $('table').filter((_, t) => $(t).text().includes('restricted to'));
    for (const rule of RESTRICTIONS) {
      expect(table.text(), rule.key).toContain(rule.label);
      expect(table.text(), rule.key).toContain(`“${rule.catches[0]}”`);
    }
    expect($.text().replace(/\s+/g, ' ')).toContain('no restriction field');
  });

  it('what changed: the newest moves are the difference between the two newest snapshots of the newest datasets', async () => {
    const $ = await html('rates/changes');
    const newest = $('tr[data-date]').first().attr('data-date')!;
    const show = (v: unknown) =>
      v === null || v === undefined ? '—' : typeof v === 'number' ? v.toFixed(2) : String(v);
    let checked = 0;
    for (const dataset of DATASETS) {
      const { timeSeries } = endpointsOf(dataset);
      const dates: string[] = (await api(timeSeries.path)).availableDates;
      const [before, after] = dates.slice(-2) as [string, string];
      if (after !== newest) continue;
      const series = await api(`${timeSeries.path}?startDate=${before}&endDate=${after}`);
      const expected = diffSnapshots(series.timeSeries[before].data, series.timeSeries[after].data).moves.map(
        (m) => `${m.entity.id}|${m.item.id}|${m.what}|${show(m.from)}|${show(m.to)}`,
      );
      const shown = $(`tr[data-dataset="${dataset.slug}"][data-date="${after}"]`)
        .map(
          (_, tr) =>
            `${$(tr).attr('data-entity')}|${$(tr).attr('data-item')}|${$(tr).attr('data-what')}|${$(tr).find('td[data-from]').attr('data-from')}|${$(tr).find('td[data-from]').attr('data-to')}`,
        )
        .get();
      expect(expected.length, dataset.slug).toBeGreaterThan(0);
      expect(shown.sort(), dataset.slug).toEqual(expected.sort());
      checked += 1;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('every page', () => {
  /** Each dataset's overview, example institution, its second measure's page, and a comparison page with filters. */
  const pages = async () => [
    'rates',
    'rates/changes',
    ...(
      await Promise.all(
        DATASETS.map(async (d) => {
          const paths = pathsOf(d);
          const $ = await html(paths.entity);
          const second = $('nav.measure-switch a').not('[aria-current]').first().attr('href');
          const [compared] = paths.compared;
          return [
            paths.overview,
            paths.entity,
            ...(second ? [second.slice(1).replace('#over-time', '')] : []),
            ...(compared ? [compared.path, `${compared.path}/non-banks/with-restricted`] : []),
          ];
        }),
      )
    ).flat(),
  ];

  it('says when its data was collected, links to the API request for it, and carries the terms of use', async () => {
    for (const path of await pages()) {
      const $ = await html(path);
      expect($('.provenance time').attr('datetime'), path).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      const links = $('.provenance a.api-link')
        .map((_, a) => $(a).attr('href'))
        .get();
      expect(links.length, path).toBeGreaterThan(0);
      for (const link of links) expect((await fetch(`${site.url}${link}`)).status, link).toBe(200);
      expect($('.terms').text()).toContain(TERMS_OF_USE);
      for (const svg of $('svg.chart').toArray()) {
        const [title, desc] = $(svg).attr('aria-labelledby')!.split(' ');
        expect($(svg).attr('role')).toBe('img');
        expect($(`#${title}`).text().length, path).toBeGreaterThan(10);
        expect($(`#${desc}`).text().length, path).toBeGreaterThan(20);
      }
    }
  });

  it('stays light: no page over 24 KB gzipped, the comparison and institution pages far under', async () => {
    const gz = async (path: string) => gzipSync(await readFile(file(path))).length;
    expect(await gz('rates')).toBeLessThan(24_000);
    for (const d of DATASETS) {
      const paths = pathsOf(d);
      expect(await gz(paths.overview), paths.overview).toBeLessThan(24_000);
      expect(await gz(paths.entity), paths.entity).toBeLessThan(10_000);
      for (const { path } of paths.compared) {
        expect(await gz(path), path).toBeLessThan(6_000);
        expect(await gz(`${path}/with-restricted`), path).toBeLessThan(6_000);
      }
    }
  });
});

describe.each(EACH)('%s: comparing every lender on one measure', (_, dataset) => {
  const definition = definitionOf(dataset);
  const paths = pathsOf(dataset);
  /** The rows of a comparison page, as [institution, value, type]. */
  const rowsOf = ($: cheerio.CheerioAPI) =>
    $('table.compare-table tbody tr')
      .map((_, tr) => [[$(tr).attr('data-entity')!, $(tr).attr('data-value'), $(tr).attr('data-type')!]])
      .get() as unknown as [string, string | undefined, string][];
  const typesOf = ($: cheerio.CheerioAPI) =>
    $('table.compare-table tbody tr')
      .map((_, tr) => [[$(tr).attr('data-entity-id')!, $(tr).attr('data-type')!]])
      .get() as unknown as [string, string][];

  it('each compared measure has a page, linked from the overview, listing every lender by its best open offer, best first', async () => {
    const offers = offersOf(dataset, await api(endpointsOf(dataset).list.path));
    const $overview = await html(paths.overview);
    expect(
      $overview('nav.compare-links a')
        .map((_, a) => $overview(a).attr('href'))
        .get(),
    ).toEqual(paths.compared.map(({ path }) => `/${path}`));
    expect(paths.compared.length).toBeGreaterThan(0);
    for (const { measure, path } of paths.compared) {
      const $ = await html(path);
      const rows = rowsOf($);
      const expected = bestByEntity(dataset, offers, measure.key);
      expect(new Map(rows.map(([entity, value]) => [entity, Number(value)])), path).toEqual(expected);
      const values = rows.map(([, value]) => Number(value));
      expect(values, `${path} is sorted`).toEqual([...values].sort(bestFirst(dataset)));
      expect($('table.compare-table .restricted-list'), path).toHaveLength(0);
      expect($('h1').text(), path).toContain(`${definition.best} first`);
      // The first row: the best open value and the products that make it.
      const best = bestOpen(dataset, offers, measure.key);
      const first = $('table.compare-table tbody tr').first();
      expect(Number(first.attr('data-value'))).toBe(best);
      const makers = offers
        .filter(
          (o) => o.key === measure.key && !o.restricted && o.value === best && o.entity === first.attr('data-entity'),
        )
        .sort(tiedFirst);
      const named = first
        .find('.product')
        .map((_, e) => $(e).text().replace(/\s+/g, ' ').trim())
        .get();
      expect(named).toEqual([
        ...makers.slice(0, 2).map(offerLine),
        ...(makers.length > 2 ? [`and ${makers.length - 2} more at this rate`] : []),
      ]);
    }
  });

  it('its filter links exist and give the right subsets: banks, non-banks, restricted offers shown', async () => {
    const [{ measure, path }] = paths.compared as [{ measure: Measure; path: string }];
    const base = `/${path}`;
    const $ = await html(path);
    expect(
      $('nav.filters a[data-filter="type"]')
        .map((_, a) => $(a).attr('href'))
        .get(),
    ).toEqual([base, `${base}/banks`, `${base}/non-banks`]);
    expect(
      $('nav.filters a[data-filter="restricted"]')
        .map((_, a) => $(a).attr('href'))
        .get(),
    ).toEqual([base, `${base}/with-restricted`]);
    const all = rowsOf($);
    const banks = rowsOf(await html(`${path}/banks`));
    const others = rowsOf(await html(`${path}/non-banks`));
    expect(banks).toEqual(all.filter(([, , type]) => type === 'bank'));
    expect(others).toEqual(all.filter(([, , type]) => type === 'non-bank'));
    expect(banks.length + others.length).toBe(all.length);
    for (const [id, type] of typesOf($)) expect(type, id).toBe(lenderType(id));
    // Shown, the restricted offers are listed beside each lender, best first, and never change the order.
    const offers = offersOf(dataset, await api(endpointsOf(dataset).list.path));
    const $shown = await html(`${path}/with-restricted`);
    expect(rowsOf($shown).filter(([, value]) => value !== undefined)).toEqual(all);
    for (const tr of $shown('table.compare-table tbody tr').toArray()) {
      const entity = $shown(tr).attr('data-entity')!;
      const restricted = offers
        .filter((o) => o.key === measure.key && o.restricted && o.entity === entity)
        .sort((a, b) => bestFirst(dataset)(a.value, b.value) || tiedFirst(a, b));
      expect(
        $shown(tr)
          .find('.restricted-list li')
          .map((_, li) => `${$shown(li).attr('data-value')} ${$shown(li).attr('data-restricted')}`)
          .get(),
        entity,
      ).toEqual(restricted.map((o) => `${o.value} ${o.restricted}`));
    }
    // The filters keep each other: the restricted links of the banks page stay on banks.
    const $banks = await html(`${path}/banks/with-restricted`);
    expect(
      $banks('nav.filters a[data-filter="restricted"]')
        .map((_, a) => $banks(a).attr('href'))
        .get(),
    ).toEqual([`${base}/banks`, `${base}/banks/with-restricted`]);
    for (const { path: other } of paths.compared) expect(await exists(`${other}/non-banks/with-restricted`)).toBe(true);
  });

  it('the change column is each lender’s move since the previous snapshot, better or worse for its customer', async () => {
    const { timeSeries } = endpointsOf(dataset);
    const dates: string[] = (await api(timeSeries.path)).availableDates;
    const [before, after] = dates.slice(-2) as [string, string];
    const series = await api(`${timeSeries.path}?startDate=${before}&endDate=${after}`);
    for (const { measure, path } of paths.compared) {
      const was = bestByEntity(dataset, offersOf(dataset, series.timeSeries[before]), measure.key);
      const now = bestByEntity(dataset, offersOf(dataset, series.timeSeries[after]), measure.key);
      const $ = await html(path);
      for (const tr of $('table.compare-table tbody tr').toArray()) {
        const entity = $(tr).attr('data-entity')!;
        const change = $(tr).find('td.change');
        if (!was.has(entity)) {
          expect(change.text(), `${path} ${entity}`).toContain('new');
          continue;
        }
        const expected = Math.round((now.get(entity)! - was.get(entity)!) * 100) / 100;
        expect(Number(change.attr('data-delta')), `${path} ${entity}`).toBe(expected);
        if (expected === 0) continue;
        expect(change.text(), `${path} ${entity}`).toContain(
          `${expected < 0 ? '↓' : '↑'} ${Math.abs(expected).toFixed(2)}`,
        );
        expect(change.hasClass(better(dataset, expected, 0) ? 'better' : 'worse'), `${path} ${entity}`).toBe(true);
      }
    }
  });
});

describe('in headless Chromium', () => {
  const browser = chromiumForTests();
  const PHONE = { width: 390, height: 844 };
  const DESKTOP = { width: 1280, height: 900 };

  async function open(b: Browser, path: string, size: { width: number; height: number }) {
    const context = await b.newContext({ viewport: size });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${site.url}${path}`, { waitUntil: 'networkidle' });
    return { page, errors, close: () => context.close() };
  }

  it.each([
    '/rates',
    '/rates/changes',
    ...DATASETS.flatMap((d) => {
      const paths = pathsOf(d);
      const [compared] = paths.compared;
      return [
        `/${paths.overview}`,
        `/${paths.entity}`,
        ...(compared ? [`/${compared.path}`, `/${compared.path}/banks/with-restricted`] : []),
      ];
    }),
  ])(
    '%s renders at 1280×900 and 390×844 with no console errors, one chart layout per figure, no sideways scroll',
    async (path) => {
      for (const size of [DESKTOP, PHONE]) {
        const { page, errors, close } = await open(browser(), path, size);
        const figures = await page.locator('figure.chart-figure').count();
        const shown = await page.evaluate(() =>
          [...document.querySelectorAll('svg.chart')]
            .map((svg) => svg.getBoundingClientRect())
            .filter((box) => box.width > 0)
            .map((box) => [box.width, box.height]),
        );
        expect(shown.length, `${path} ${size.width}`).toBe(figures);
        for (const [width, height] of shown) {
          expect(width).toBeGreaterThan(Math.min(300, size.width - 60));
          expect(height).toBeGreaterThan(100);
        }
        if (path !== '/rates') expect(await page.locator('table').count()).toBeGreaterThan(0);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, 'the page itself does not scroll sideways').toBeLessThanOrEqual(0);
        await page.screenshot({
          path: join(SCREENSHOTS, `explorer-${path.slice(1).replace(/\//g, '-')}-${size.width}.png`),
        });
        expect(errors, `${path} ${size.width}`).toEqual([]);
        await close();
      }
    },
    60_000,
  );

  it.each(DATASETS.flatMap((d) => [`/${pathsOf(d).overview}`, `/${pathsOf(d).entity}`]))(
    '%s: at 390×844 every chart text is drawn 10 px or more, in the phone layout',
    async (path) => {
      for (const size of [PHONE, DESKTOP]) {
        const { page, close } = await open(browser(), path, size);
        const drawn = await page.evaluate(() =>
          [...document.querySelectorAll<SVGSVGElement>('svg.chart')]
            .filter((svg) => svg.getBoundingClientRect().width > 0)
            .flatMap((svg) =>
              [...svg.querySelectorAll('text')].map((t) => ({
                layout: svg.classList.contains('chart-narrow') ? 'narrow' : 'wide',
                text: t.textContent,
                px: Number.parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM()!.a,
                height: t.getBoundingClientRect().height,
              })),
            ),
        );
        expect(drawn.length, path).toBeGreaterThan(10);
        expect(new Set(drawn.map((d) => d.layout)), path).toEqual(new Set([size === PHONE ? 'narrow' : 'wide']));
        for (const d of drawn) {
          expect(d.px, `${path} ${size.width} “${d.text}”`).toBeGreaterThanOrEqual(10);
          expect(d.height, `${path} ${size.width} “${d.text}”`).toBeGreaterThanOrEqual(10);
        }
        await close();
      }
    },
    60_000,
  );
});
