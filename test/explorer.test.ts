/**
 * The rates explorer, built from the real history and served by the built server: the values
 * on each page (read from the built HTML) equal the API's for the same data; charts have text
 * alternatives and render in headless Chromium.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineChart, scatterChart } from '../src/explorer/chart.ts';
import { median } from '../src/explorer/history.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { chromiumForTests, visit } from './support/chromium.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

let site: ProductionSite;
const api = async (path: string) => (await fetch(`${site.url}${path}`)).json() as Promise<any>;
const html = async (path: string) =>
  cheerio.load(await readFile(join(site.buildDir, 'client', path, 'index.html'), 'utf8'));

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

describe('chart drawing', () => {
  it('draws a line chart with axes, dates, a legend, and a title and description for screen readers', () => {
    const svg = lineChart({
      id: 'c',
      title: 'Lowest 1-year rate',
      description: 'Fell from 6.99 % to 4.89 %.',
      yLabel: '% a year',
      series: [
        {
          label: 'Lowest',
          color: '#000',
          points: [
            { date: '2024-02-22', value: 6.99 },
            { date: '2024-08-01', value: 5.5 },
            { date: '2025-03-05', value: 4.89 },
          ],
        },
        {
          label: 'Median',
          color: '#888',
          dashed: true,
          points: [
            { date: '2024-02-22', value: 7.5 },
            { date: '2024-08-01', value: null },
            { date: '2025-03-05', value: 6 },
          ],
        },
      ],
    });
    const $ = cheerio.load(svg, { xml: true });
    expect($('svg').attr('role')).toBe('img');
    expect($('svg').attr('aria-labelledby')).toBe('c-title c-desc');
    expect($('title#c-title').text()).toBe('Lowest 1-year rate');
    expect($('desc#c-desc').text()).toBe('Fell from 6.99 % to 4.89 %.');
    expect($('path')).toHaveLength(2);
    expect($('path').last().attr('d')!.match(/M/g)).toHaveLength(2); // a gap where the median is unknown
    expect(
      $('text.legend')
        .map((_, e) => $(e).text())
        .get(),
    ).toEqual(['Lowest', 'Median']);
    expect(
      $('text.tick')
        .map((_, e) => $(e).text())
        .get(),
    ).toContain('Jan 2025');
    expect(
      $('text.tick')
        .map((_, e) => $(e).text())
        .get(),
    ).toContain('7');
  });

  it('draws a scatter chart with a labelled point per card', () => {
    const $ = cheerio.load(
      scatterChart({
        id: 's',
        title: 'Rate against fee',
        description: 'Two cards.',
        points: [
          { x: 0, y: 20.95, label: 'A' },
          { x: 149, y: 12.69, label: 'B' },
        ],
        xLabel: 'Fee',
        yLabel: '%',
      }),
      { xml: true },
    );
    expect($('circle')).toHaveLength(2);
    expect(
      $('circle title')
        .map((_, e) => $(e).text())
        .get(),
    ).toEqual(['A', 'B']);
  });

  it('takes the median of an odd and an even count', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe('the built pages show what the API returns', () => {
  it('mortgages: the lowest rate of each term (2 % and over) and every rate in the table', async () => {
    const body = await api('/api/v1/mortgage-rates');
    const $ = await html('rates/mortgages');
    const rates = body.data.flatMap((i: any) => i.products.flatMap((p: any) => p.rates));
    for (const [key, months] of [
      ['floating', null],
      ['6', 6],
      ['12', 12],
      ['18', 18],
      ['24', 24],
      ['36', 36],
      ['48', 48],
      ['60', 60],
    ] as const) {
      const lowest = Math.min(
        ...rates.filter((r: any) => r.termInMonths === months && r.rate >= 2).map((r: any) => r.rate),
      );
      expect(Number($(`.lowest-card .value[data-measure="${key}"]`).attr('data-value')), key).toBe(lowest);
    }
    const values = valuesById(body);
    const cells = $('td[data-id]')
      .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
      .get() as unknown as [string, number][];
    expect(cells.length).toBe(values.size);
    for (const [id, value] of cells) expect(value, id).toBe(values.get(id));
    expect($('td.lowest').length).toBeGreaterThanOrEqual(8);
  });

  it.each(['personal-loans:personal-loan-rates', 'car-loans:car-loan-rates', 'credit-cards:credit-card-rates'])(
    '%s: every value in the table',
    async (pair) => {
      const [path, slug] = pair.split(':') as [string, string];
      const values = valuesById(await api(`/api/v1/${slug}`));
      const $ = await html(`rates/${path}`);
      const cells = $('td[data-id]')
        .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
        .get() as unknown as [string, number][];
      expect(cells.length).toBe(values.size);
      for (const [id, value] of cells) expect(value, id).toBe(values.get(id));
      const lowest = Math.min(...values.values());
      expect(
        Math.min(
          ...$('.lowest-card .value')
            .map((_, e) => Number($(e).attr('data-value')))
            .get(),
        ),
      ).toBe(lowest);
    },
  );

  it('an institution page: its rates as the API gives them, and a chart whose newest values are today’s', async () => {
    const anz = await api('/api/v1/mortgage-rates/institution:anz');
    const $ = await html('rates/mortgages/anz');
    const values = valuesById(anz);
    const cells = $('td[data-id]')
      .map((_, td) => [[$(td).attr('data-id')!, Number($(td).attr('data-value'))]])
      .get() as unknown as [string, number][];
    expect(new Map(cells)).toEqual(values);
    const table = $('.chart-figure details table');
    const header = table
      .find('thead th')
      .map((_, th) => $(th).text())
      .get();
    const last = table
      .find('tbody tr')
      .last()
      .children()
      .map((_, c) => $(c).text())
      .get();
    expect(last[0]).toBe('2025-03-05');
    const oneYear = Math.min(
      ...anz.data[0].products
        .flatMap((p: any) => p.rates)
        .filter((r: any) => r.termInMonths === 12)
        .map((r: any) => r.rate),
    );
    expect(Number(last[header.indexOf('1 year %')])).toBe(oneYear);
  });

  it('the trend charts end on the lowest rate of the newest snapshot, and start on the oldest', async () => {
    const $ = await html('rates/mortgages');
    const figure = $('#trend-mortgage-rates-12');
    const rows = figure.find('details tbody tr');
    expect(rows).toHaveLength(178);
    expect(Number(rows.last().children().eq(1).text())).toBe(
      Number($('.lowest-card .value[data-measure="12"]').attr('data-value')),
    );
    const first = await api('/api/v1/mortgage-rates/time-series?date=2024-02-22&termInMonths=12');
    const oldest = Math.min(
      ...first.timeSeries['2024-02-22'].data
        .flatMap((i: any) => i.products.flatMap((p: any) => p.rates))
        .map((r: any) => r.rate)
        .filter((r: number) => r >= 2),
    );
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
      'rates/personal-loans',
      'rates/car-loans',
      'rates/credit-cards',
      'rates/credit-cards/amex',
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
});

describe('in headless Chromium', () => {
  const browser = chromiumForTests();

  it.each([
    ['/rates/mortgages', 'rates-mortgages.png', 1280],
    ['/rates/mortgages/anz', 'rates-anz.png', 1280],
    ['/rates/credit-cards', 'rates-cards.png', 1280],
    ['/rates/personal-loans', 'rates-personal-loans.png', 390],
    ['/rates/changes', 'rates-changes.png', 1280],
  ])(
    '%s renders its charts and tables with no console errors',
    async (path, file, width) => {
      const { page, errors, shot } = await visit(browser(), `${site.url}${path}`, width);
      const charts = page.locator('svg.chart');
      for (let i = 0; i < (await charts.count()); i++) {
        const box = await charts.nth(i).boundingBox();
        expect(box!.width, `chart ${i}`).toBeGreaterThan(Math.min(300, width - 60));
        expect(box!.height).toBeGreaterThan(100);
      }
      expect(await page.locator('table').count()).toBeGreaterThan(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, 'the page itself does not scroll sideways').toBeLessThanOrEqual(0);
      await shot(file);
      expect(errors).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
