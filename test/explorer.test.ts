/**
 * The rates explorer, built from the real history and served by the built server: the values
 * on each page (read from the built HTML) equal the API's for the same data, "lowest" counts only
 * offers open to anyone (restricted ones shown apart, labelled), the comparison pages are sorted
 * and filtered as their addresses say, and charts have text alternatives and render in headless
 * Chromium with text of 10 px or more on a phone.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as cheerio from 'cheerio';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetSlug } from '../src/datasets.ts';
import { lineChart, scatterChart } from '../src/explorer/chart.ts';
import { median } from '../src/explorer/history.ts';
import { lenderType } from '../src/explorer/lender-types.ts';
import { RESTRICTIONS, restrictionOf } from '../src/explorer/restrictions.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { chromiumForTests, SCREENSHOTS } from './support/chromium.ts';
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
const DOC = '/docs/concepts#lowest-rates-and-restricted-offers';
const TERMS = [
  ['floating', null, 'variable-floating'],
  ['6', 6, '6-months'],
  ['12', 12, '1-year'],
  ['18', 18, '18-months'],
  ['24', 24, '2-years'],
  ['36', 36, '3-years'],
  ['48', 48, '4-years'],
  ['60', 60, '5-years'],
] as const;

beforeAll(async () => {
  site = await buildAndServe({
    name: 'explorer',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
}, 180_000);
afterAll(() => site?.stop());

/** Every rate value the API lists, by the id the pages put on each cell. */
function valuesById(body: any): Map<string, number> {
  const values = new Map<string, number>();
  for (const entity of body.data) {
    for (const item of entity.products ?? []) for (const rate of item.rates) values.set(rate.id, rate.rate);
    for (const plan of entity.plans ?? []) {
      for (const field of ['purchaseRate', 'cashAdvanceRate', 'balanceTransferRate'])
        if (plan[field] !== null) values.set(`${plan.id}#${field}`, plan[field]);
    }
  }
  return values;
}

interface ApiOffer {
  id: string;
  value: number;
  key: string;
  entityId: string;
  entity: string;
  product: string;
  restricted?: string;
}

/** The API's offers with the measure they count for and whom they are for, worked out from the API's own names. */
function offersOf(slug: DatasetSlug, body: any): ApiOffer[] {
  return body.data.flatMap((e: any) => {
    const base = { entityId: e.id, entity: e.name };
    if (slug === 'credit-card-rates')
      return e.plans.flatMap((p: any) =>
        (
          [
            ['purchaseRate', 'purchase'],
            ['cashAdvanceRate', 'cash'],
            ['balanceTransferRate', 'transfer'],
          ] as const
        )
          .filter(([field]) => p[field] !== null)
          .map(([field, key]) => ({
            ...base,
            id: `${p.id}#${field}`,
            value: p[field],
            key,
            product: p.name,
            restricted: restrictionOf(slug, { entity: e.name, product: p.name }),
          })),
      );
    return e.products.flatMap((p: any) =>
      p.rates.map((r: any) => ({
        ...base,
        id: r.id,
        value: r.rate,
        key:
          slug === 'mortgage-rates'
            ? String(r.termInMonths ?? 'floating')
            : /unsecured/i.test(r.plan ?? '')
              ? 'unsecured'
              : /secured/i.test(r.plan ?? '')
                ? 'secured'
                : 'other',
        product: p.name,
        restricted: restrictionOf(slug, { entity: e.name, product: p.name, condition: r.condition }),
      })),
    );
  });
}

const lowestOpen = (offers: ApiOffer[], key: string) =>
  Math.min(...offers.filter((o) => o.key === key && !o.restricted).map((o) => o.value));

const texts = ($: cheerio.CheerioAPI, selector: string) =>
  $(selector)
    .map((_, e) => $(e).text().replace(/\s+/g, ' ').trim())
    .get();

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

describe('lowest means open to anyone', () => {
  it('mortgages: each term’s lowest card is the lowest open offer, named by lender and product', async () => {
    const body = await api('/api/v1/mortgage-rates');
    const offers = offersOf('mortgage-rates', body);
    const $ = await html('rates/mortgages');
    for (const [key] of TERMS)
      expect(Number($(`.lowest-card .value[data-measure="${key}"]`).attr('data-value')), key).toBe(
        lowestOpen(offers, key),
      );
    const card = (key: string) => $(`.lowest-card:has(.value[data-measure="${key}"])`);
    expect(card('12').find('.value').text()).toBe('5.05 %');
    expect(texts($, '.lowest-card:has(.value[data-measure="12"]) .who li')).toEqual(['ICBC · Special']);
    expect(card('36').find('.value').text()).toBe('5.15 %');
    expect(texts($, '.lowest-card:has(.value[data-measure="36"]) .who li')).toEqual(['Bank of China · Special']);
    // The restricted offers under it are listed apart, each with whom it is for.
    expect(texts($, '.lowest-card:has(.value[data-measure="12"]) .restricted-offers li')).toEqual([
      '4.39 % SBS Bank First Home Combo — first-home buyers',
      '4.69 % UnityMoney First Home Buyer Special — first-home buyers',
    ]);
    expect(texts($, '.lowest-card:has(.value[data-measure="36"]) .restricted-offers li')).toEqual([
      '1.00 % ANZ Good Energy - Up to $80K — green or energy-saving home upgrades',
      '1.00 % ASB Better Homes Top Up — green or energy-saving home upgrades',
      'and 2 more',
    ]);
    expect($(`.restriction-note a[href="${DOC}"]`)).toHaveLength(1);
  });

  it('the hub: the same open lowest with lender and product, the restricted offer apart with its label', async () => {
    const $ = await html('rates');
    const mortgages = $('.hub-section').first();
    const card = (key: string) => mortgages.find(`.lowest-card:has(.value[data-measure="${key}"])`);
    expect(card('12').find('.value').attr('data-value')).toBe('5.05');
    expect(card('12').find('.who').text().replace(/\s+/g, ' ').trim()).toBe('ICBC · Special');
    expect(card('12').find('.restricted-offers li').first().text().replace(/\s+/g, ' ').trim()).toBe(
      '4.39 % SBS Bank First Home Combo — first-home buyers',
    );
    expect(card('12').find('.restricted-offers li[data-restricted="first-home buyers"]').attr('data-value')).toBe(
      '4.39',
    );
    expect(card('36').find('.value').attr('data-value')).toBe('5.15');
    expect(card('36').find('.who').text().replace(/\s+/g, ' ').trim()).toBe('Bank of China · Special');
    expect(card('floating').find('.restricted-offers li').first().attr('data-restricted')).toBe(
      'first-home buyers; people building a home',
    );
    expect($(`.restriction-note a[href="${DOC}"]`)).toHaveLength(1);
  });

  it.each([
    ['personal-loans', 'personal-loan-rates'],
    ['car-loans', 'car-loan-rates'],
    ['credit-cards', 'credit-card-rates'],
  ] as const)('%s: every value in the table, and each lowest card the lowest open offer', async (path, slug) => {
    const body = await api(`/api/v1/${slug}`);
    const values = valuesById(body);
    const $ = await html(`rates/${path}`);
    const cells = $('td[data-id]')
      .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
      .get() as unknown as [string, number][];
    expect(cells.length).toBe(values.size);
    for (const [id, value] of cells) expect(value, id).toBe(values.get(id));
    const offers = offersOf(slug, body);
    const cards = $('.lowest-card .value');
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards.toArray()) {
      const key = $(card).attr('data-measure')!;
      expect(Number($(card).attr('data-value')), key).toBe(lowestOpen(offers, key));
    }
    // No "from" rate is ever the lowest of a loan.
    for (const id of $('.lowest-card .who li[data-id]')
      .map((_, li) => $(li).attr('data-id'))
      .get())
      expect(offers.find((o) => o.id === id)!.restricted, id).toBeUndefined();
  });

  it('the docs state the rule and list every rule with what it caught', async () => {
    const $ = await html('docs/concepts');
    const section = $('#lowest-rates-and-restricted-offers');
    expect(section).toHaveLength(1);
    const table = $('table').filter((_, t) => $(t).text().includes('restricted to'));
    for (const rule of RESTRICTIONS) expect(table.text(), rule.key).toContain(rule.label);
    expect(table.text()).toContain('“First Home Combo”');
    expect($.text().replace(/\s+/g, ' ')).toContain('no restriction field');
  });
});

describe('the built pages show what the API returns', () => {
  it('mortgages: every rate in the table, the lowest open ones marked', async () => {
    const body = await api('/api/v1/mortgage-rates');
    const $ = await html('rates/mortgages');
    const values = valuesById(body);
    const cells = $('td[data-id]')
      .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
      .get() as unknown as [string, number][];
    expect(cells.length).toBe(values.size);
    for (const [id, value] of cells) expect(value, id).toBe(values.get(id));
    expect($('td.lowest').length).toBeGreaterThanOrEqual(8);
    expect($('td.lowest[data-id="rate:icbc:special:1-year"]')).toHaveLength(1);
    expect($('td.lowest[data-id="rate:sbs-bank:first-home-combo:1-year"]')).toHaveLength(0);
  });

  it('an institution page: its rates as the API gives them, and a chart of one term against the market', async () => {
    const anz = await api('/api/v1/mortgage-rates/institution:anz');
    const $ = await html('rates/mortgages/anz');
    const cells = $('td[data-id]')
      .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
      .get() as unknown as [string, number][];
    expect(new Map(cells)).toEqual(valuesById(anz));
    const offers = offersOf('mortgage-rates', anz);
    const all = offersOf('mortgage-rates', await api('/api/v1/mortgage-rates'));
    const lastRow = ($$: cheerio.CheerioAPI) => {
      const table = $$('.chart-figure details table');
      const header = texts($$, '.chart-figure details thead th');
      const last = table
        .find('tbody tr')
        .last()
        .children()
        .map((_, c) => $$(c).text())
        .get();
      return Object.fromEntries(header.map((h, i) => [h, last[i]]));
    };
    // One term at a time: 1 year first, its newest values ANZ's and the market's lowest open ones.
    expect($('svg.chart-wide')).toHaveLength(1);
    expect(lastRow($)).toEqual({
      Date: '2025-03-05',
      'ANZ %': lowestOpen(offers, '12').toFixed(2),
      'Market lowest %': lowestOpen(all, '12').toFixed(2),
      'Market median %': expect.any(String),
    });
    expect(texts($, 'svg.chart-wide text.chart-end').sort()).toEqual(
      [lowestOpen(offers, '12').toFixed(2), '5.05', lastRow($)['Market median %']].sort(),
    );
    // Links to every term ANZ offers, each its own page charting that term.
    const links = $('nav.measure-switch a');
    expect(links.map((_, a) => $(a).text()).get()).toEqual(TERMS.map(([key]) => key).map((k) => label(k)));
    expect($('nav.measure-switch a[aria-current="page"]').text()).toBe('1 year');
    for (const [key, , slug] of TERMS) {
      const href = $(`nav.measure-switch a:contains("${label(key)}")`).attr('href')!;
      expect(href).toBe(key === '12' ? '/rates/mortgages/anz#over-time' : `/rates/mortgages/anz/${slug}#over-time`);
      if (key === '12') continue;
      const $$ = await html(href.slice(1).replace('#over-time', ''));
      expect($$('nav.measure-switch a[aria-current="page"]').text(), slug).toBe(label(key));
      expect(lastRow($$)['ANZ %'], slug).toBe(lowestOpen(offers, key).toFixed(2));
      expect(lastRow($$)['Market lowest %'], slug).toBe(lowestOpen(all, key).toFixed(2));
    }
  });

  it('the trend charts end on the lowest open rate of the newest snapshot, and start on the oldest', async () => {
    const $ = await html('rates/mortgages');
    const figure = $('#trend-mortgage-rates-12');
    const rows = figure.find('details tbody tr');
    expect(rows).toHaveLength(178);
    expect(Number(rows.last().children().eq(1).text())).toBe(
      Number($('.lowest-card .value[data-measure="12"]').attr('data-value')),
    );
    const first = await api('/api/v1/mortgage-rates/time-series?date=2024-02-22');
    const oldest = lowestOpen(offersOf('mortgage-rates', first.timeSeries['2024-02-22']), '12');
    expect(rows.first().children().first().text()).toBe('2024-02-22');
    expect(Number(rows.first().children().eq(1).text())).toBe(oldest);
  });

  it('what changed: the newest moves are the difference between the two newest snapshots', async () => {
    const dates: string[] = (await api('/api/v1/mortgage-rates/time-series')).availableDates;
    const [before, after] = dates.slice(-2) as [string, string];
    const series = await api(`/api/v1/mortgage-rates/time-series?startDate=${before}&endDate=${after}`);
    const old = new Map<string, number>();
    for (const i of series.timeSeries[before].data)
      for (const p of i.products) for (const r of p.rates) old.set(r.id, r.rate);
    const expected: string[] = [];
    for (const i of series.timeSeries[after].data)
      for (const p of i.products)
        for (const r of p.rates)
          if (old.has(r.id) && old.get(r.id) !== r.rate)
            expected.push(`${i.id}|${p.id}|${r.term}|${old.get(r.id)!.toFixed(2)}|${r.rate.toFixed(2)}`);
    const $ = await html('rates/changes');
    const shown = $(`tr[data-dataset="mortgage-rates"][data-date="${after}"]`)
      .map(
        (_, tr) =>
          `${$(tr).attr('data-entity')}|${$(tr).attr('data-item')}|${$(tr).attr('data-what')}|${$(tr).find('td[data-from]').attr('data-from')}|${$(tr).find('td[data-from]').attr('data-to')}`,
      )
      .get();
    expect(expected.length).toBeGreaterThan(0);
    expect(shown.sort()).toEqual(expected.sort());
  });

  it('every page says when its data was collected, links to the API request for it, and carries the terms of use', async () => {
    for (const path of [
      'rates',
      'rates/mortgages',
      'rates/mortgages/anz',
      'rates/mortgages/anz/2-years',
      'rates/mortgages/1-year',
      'rates/mortgages/1-year/non-banks/with-restricted',
      'rates/personal-loans',
      'rates/car-loans/secured',
      'rates/credit-cards',
      'rates/credit-cards/amex',
      'rates/credit-cards/purchase',
      'rates/changes',
    ]) {
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

  it('pages stay light: no page over 24 KB gzipped, the comparison and institution pages far under', async () => {
    const gz = async (path: string) => gzipSync(await readFile(file(path))).length;
    for (const path of ['rates', 'rates/mortgages', 'rates/personal-loans', 'rates/car-loans', 'rates/credit-cards'])
      expect(await gz(path), path).toBeLessThan(24_000);
    for (const path of [
      'rates/mortgages/1-year',
      'rates/mortgages/1-year/with-restricted',
      'rates/credit-cards/purchase',
    ])
      expect(await gz(path), path).toBeLessThan(6_000);
    for (const path of ['rates/mortgages/anz', 'rates/mortgages/anz/5-years'])
      expect(await gz(path), path).toBeLessThan(10_000);
  });
});

function label(key: string): string {
  return (
    { floating: 'Variable floating', '6': '6 months', '12': '1 year', '18': '18 months' }[key] ??
    `${Number(key) / 12} years`
  );
}

describe('comparing every lender on one term', () => {
  /** The rows of a comparison page, as [institution, rate, type]. */
  const rowsOf = ($: cheerio.CheerioAPI) =>
    $('table.compare-table tbody tr')
      .map((_, tr) => [[$(tr).attr('data-entity')!, $(tr).attr('data-value'), $(tr).attr('data-type')!]])
      .get() as unknown as [string, string | undefined, string][];
  const typesOf = ($: cheerio.CheerioAPI) =>
    $('table.compare-table tbody tr')
      .map((_, tr) => [[$(tr).attr('data-entity-id')!, $(tr).attr('data-type')!]])
      .get() as unknown as [string, string][];

  it('every mortgage term has a page, linked from /rates/mortgages, listing every lender by its lowest open rate', async () => {
    const body = await api('/api/v1/mortgage-rates');
    const offers = offersOf('mortgage-rates', body);
    const $mortgages = await html('rates/mortgages');
    expect(
      $mortgages('nav.compare-links a')
        .map((_, a) => $mortgages(a).attr('href'))
        .get(),
    ).toEqual(TERMS.map(([, , slug]) => `/rates/mortgages/${slug}`));
    for (const [key, , slug] of TERMS) {
      const $ = await html(`rates/mortgages/${slug}`);
      const rows = rowsOf($);
      const expected = new Map<string, number>();
      for (const o of offers)
        if (o.key === key && !o.restricted)
          expected.set(o.entity, Math.min(expected.get(o.entity) ?? Infinity, o.value));
      expect(new Map(rows.map(([entity, value]) => [entity, Number(value)])), slug).toEqual(expected);
      const values = rows.map(([, value]) => Number(value));
      expect(values, `${slug} is sorted`).toEqual([...values].sort((a, b) => a - b));
      expect($('table.compare-table .restricted-list'), slug).toHaveLength(0);
    }
    const $ = await html('rates/mortgages/1-year');
    const first = $('table.compare-table tbody tr').first();
    expect([first.attr('data-entity'), first.attr('data-value'), first.find('.product').text()]).toEqual([
      'ICBC',
      '5.05',
      'Special',
    ]);
  });

  it('its filter links exist and give the right subsets: banks, non-banks, restricted offers shown', async () => {
    const base = '/rates/mortgages/1-year';
    const $ = await html(base.slice(1));
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
    const banks = rowsOf(await html(`${base.slice(1)}/banks`));
    const others = rowsOf(await html(`${base.slice(1)}/non-banks`));
    expect(banks.length).toBeGreaterThan(5);
    expect(others.length).toBeGreaterThan(5);
    expect(banks).toEqual(all.filter(([, , type]) => type === 'bank'));
    expect(others).toEqual(all.filter(([, , type]) => type === 'non-bank'));
    for (const [id, type] of typesOf($)) expect(type, id).toBe(lenderType(id));
    expect(banks.map(([e]) => e)).toContain('ICBC');
    expect(others.map(([e]) => e)).toContain('UnityMoney');
    // Shown, the restricted offers are listed beside each lender, and never change the order.
    const $shown = await html(`${base.slice(1)}/banks/with-restricted`);
    const shown = rowsOf($shown);
    expect(shown.filter(([, value]) => value !== undefined)).toEqual(banks);
    const sbs = $shown('table.compare-table tr[data-entity="SBS Bank"] .restricted-list li');
    expect(sbs.first().attr('data-restricted')).toBe('first-home buyers');
    expect(sbs.first().attr('data-value')).toBe('4.39');
    expect(sbs.first().text().replace(/\s+/g, ' ').trim()).toBe(
      'Restricted: 4.39 First Home Combo — first-home buyers',
    );
    // The filters keep each other: the restricted links of the banks page stay on banks.
    expect(
      $shown('nav.filters a[data-filter="restricted"]')
        .map((_, a) => $shown(a).attr('href'))
        .get(),
    ).toEqual([`${base}/banks`, `${base}/banks/with-restricted`]);
    expect(await exists('rates/mortgages/5-years/non-banks/with-restricted')).toBe(true);
  });

  it('the change column is each lender’s move since the previous snapshot', async () => {
    const dates: string[] = (await api('/api/v1/mortgage-rates/time-series')).availableDates;
    const [before, after] = dates.slice(-2) as [string, string];
    const series = await api(`/api/v1/mortgage-rates/time-series?startDate=${before}&endDate=${after}`);
    const best = (date: string, key: string) => {
      const map = new Map<string, number>();
      for (const o of offersOf('mortgage-rates', series.timeSeries[date]))
        if (o.key === key && !o.restricted) map.set(o.entity, Math.min(map.get(o.entity) ?? Infinity, o.value));
      return map;
    };
    let moved = 0;
    for (const [key, , slug] of TERMS) {
      const [was, now] = [best(before, key), best(after, key)];
      const $ = await html(`rates/mortgages/${slug}`);
      for (const tr of $('table.compare-table tbody tr').toArray()) {
        const entity = $(tr).attr('data-entity')!;
        const change = $(tr).find('td.change');
        if (!was.has(entity)) {
          expect(change.text(), `${slug} ${entity}`).toContain('new');
          continue;
        }
        const expected = Math.round((now.get(entity)! - was.get(entity)!) * 100) / 100;
        expect(Number(change.attr('data-delta')), `${slug} ${entity}`).toBe(expected);
        if (expected === 0) continue;
        moved += 1;
        expect(change.text(), `${slug} ${entity}`).toContain(
          `${expected < 0 ? '↓' : '↑'} ${Math.abs(expected).toFixed(2)}`,
        );
      }
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('loans and cards: a sorted page of their main measures', async () => {
    for (const [path, slug, key] of [
      ['personal-loans/unsecured', 'personal-loan-rates', 'unsecured'],
      ['car-loans/secured', 'car-loan-rates', 'secured'],
      ['credit-cards/purchase', 'credit-card-rates', 'purchase'],
    ] as const) {
      const offers = offersOf(slug, await api(`/api/v1/${slug}`));
      const rows = rowsOf(await html(`rates/${path}`));
      const values = rows.map(([, v]) => Number(v));
      expect(values, path).toEqual([...values].sort((a, b) => a - b));
      expect(values[0], path).toBe(lowestOpen(offers, key));
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
    '/rates/mortgages',
    '/rates/mortgages/anz',
    '/rates/mortgages/anz/variable-floating',
    '/rates/mortgages/1-year',
    '/rates/mortgages/1-year/banks/with-restricted',
    '/rates/credit-cards',
    '/rates/credit-cards/purchase',
    '/rates/personal-loans',
    '/rates/changes',
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

  it.each(['/rates/mortgages', '/rates/mortgages/anz', '/rates/credit-cards'])(
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
