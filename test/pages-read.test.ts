/**
 * The explorer's pages read without doubt, in headless Chromium over the real build, on a phone
 * (390×844) and a desktop (1280×900): every figure of a comparison row says what it is when the
 * columns stack, and the repayment column says what it is and links its explanation; the hub
 * links each comparison page and its links are tap targets (44 px for its headings and comparison
 * links on a desktop, at least 24 px for every other); the lenders page lists one lender once under its newest
 * name with its earlier names, folds on a phone to a line per letter that opens its lenders, each
 * two or three short lines, and filters by any of a lender's names (and without JavaScript lists
 * them all, compact, with an index of first letters); a fixed-term comparison page says, in a
 * sentence, the break-even against the next longer term of whole years; and a lender's page keeps
 * the maintainers' open questions to the docs.
 */
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { RESTRICTIONS } from '../src/explorer/restrictions.ts';
import { MortgageInstitution } from '../src/schemas/rates.ts';
import { chromiumForTests, openInContext } from './support/chromium.ts';
import { datasetOfSchema } from './support/datasets.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const SIZES = [
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const;
const TERMED = datasetOfSchema(MortgageInstitution);
const oneYear = `/rates/${EXPLORER[TERMED.slug].path}/1-year`;

let site: ProductionSite;
const browser = chromiumForTests();

beforeAll(async () => {
  site = await buildAndServe({
    name: 'pages-read',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
}, 240_000);
afterAll(() => site?.stop());

describe('a comparison row', () => {
  it.each(SIZES)(
    'on a %s, every figure of a row says what it is, and the repayment column links its explanation',
    async (size, viewport) => {
      const { page, errors, close } = await openInContext(browser(), `${site.url}${oneYear}`, viewport);
      try {
        const cells = await page.evaluate(() =>
          [...document.querySelectorAll('.compare-table tbody tr:first-child td:not(.rank)')].map((td) => ({
            before: getComputedStyle(td, '::before').content,
            after: getComputedStyle(td, '::after').content,
            text: td.textContent!.trim(),
            header: (() => {
              const table = td.closest('table')!;
              const index = [...td.parentElement!.children].indexOf(td);
              const th = table.tHead!.rows[0]!.cells[index];
              return th ? th.getBoundingClientRect().height > 1 && getComputedStyle(th).visibility !== 'hidden' : false;
            })(),
          })),
        );
        // Rate, change and the repayment the script adds.
        expect(cells.length).toBe(3);
        if (size === 'phone')
          // Stacked without their headers: the rate by its unit after it ("4.99 %"), the others by their name before them.
          expect(cells.map((c) => [c.before, c.after])).toEqual([
            ['none', '" %"'],
            ['"Change "', 'none'],
            ['"Monthly "', 'none'],
          ]);
        else for (const cell of cells) expect(cell.header, cell.text).toBe(true);
        const caption = await page.locator('.compare-table caption').innerText();
        expect(caption).toMatch(/“Monthly”: repaying \$500,000 over 30 years/);
        expect(await page.locator('.compare-table caption a[href="#repayments-title"]').count()).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    },
  );
});

describe('a fixed-term comparison page, as built', () => {
  it('says the break-even against the next longer term of whole years, from the lowest open rates; floating and the longest term do not', async () => {
    const sentence = async (path: string) => {
      const $ = cheerio.load(await (await fetch(`${site.url}${path}`)).text());
      return $('p.break-even')
        .toArray()
        .map((p) => $(p).text().replace(/\s+/g, ' ').trim());
    };
    const [said] = await sentence(oneYear);
    expect(said).toMatch(
      /^Fixing 1 year at 5\.05 % beats 2 years at 4\.99 % if in a year you can refix for 1 year below 4\.93 %\. From the lowest rates open to anyone, of every institution: break-even rates says how/,
    );
    const { measures, path } = EXPLORER[TERMED.slug];
    for (const measure of [measures[0]!, measures.at(-1)!])
      expect(await sentence(`/rates/${path}/${measure.slug}`), measure.slug).toEqual([]);
  });
});

describe('the hub (/rates)', () => {
  it.each(SIZES)(
    'on a %s, links each compared measure’s page, and every link is a tap target',
    async (size, viewport) => {
      const { page, close } = await openInContext(browser(), `${site.url}/rates`, viewport);
      try {
        const hrefs = await page
          .locator('.hub-section a.compare')
          .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
        for (const d of DATASETS) {
          const definition = EXPLORER[d.slug];
          const first = definition.measures.find((m) => definition.compared.includes(m.key))!;
          expect(hrefs, d.slug).toContain(`/rates/${definition.path}/${first.slug}`);
        }
        const heights = await page.evaluate(() =>
          [...document.querySelectorAll('main a')]
            .filter((a) => a.getClientRects().length > 0)
            .map((a) => ({
              text: a.textContent!.trim().slice(0, 40),
              height: Math.max(...[...a.getClientRects()].map((r) => r.height)),
              main: a.matches('.hub-section h2 a'),
            })),
        );
        expect(heights.length).toBeGreaterThan(10);
        // 44 px where there is room; on a phone 24, so that the rates still fill the first screen.
        for (const link of heights)
          expect(link.height, link.text).toBeGreaterThanOrEqual(link.main && size === 'desktop' ? 44 : 24);
      } finally {
        await close();
      }
    },
  );
});

describe('the lenders page (/rates/lenders)', () => {
  it('lists each lender once under its newest name, its earlier names beside it', async () => {
    const html = await (await fetch(`${site.url}/rates/lenders`)).text();
    const { page, close } = await openInContext(browser(), `${site.url}/rates/lenders`, DESKTOP);
    try {
      const names = await page.locator('table.lenders tr[data-id] th[scope="row"]').allInnerTexts();
      // On a wide screen every letter stays open.
      expect(await page.locator('table.lenders tr[data-id]:visible').count()).toBe(names.length);
      const starting = (prefix: string) => names.filter((n) => n.startsWith(prefix));
      for (const [prefix, name] of [
        ['Nelson', 'Nelson Bldg Society'],
        ['Wairarapa', 'Wairarapa Bldg Society'],
        ['Heretaunga', 'Heretaunga Bldg Socy'],
        ['Unity', 'UnityMoney'],
      ]) {
        expect(starting(prefix!), prefix).toHaveLength(1);
        expect(starting(prefix!)[0]).toMatch(new RegExp(`^${name}\\b[\\s\\S]*Also listed as`));
      }
      expect(html).toContain('Also listed as “Nelson”, “Nelson Bldg Socy”');
      // A bank that also issues cards is one entry, its card page among its datasets.
      for (const bank of ['anz', 'asb', 'bnz', 'kiwibank', 'westpac']) {
        expect(await page.locator(`tr[data-id="issuer:${bank}"]`).count(), bank).toBe(0);
        const row = page.locator(`tr[data-id="institution:${bank}"]`);
        expect(await row.count(), bank).toBe(1);
        expect(await row.getAttribute('data-aliases'), bank).toContain(`issuer:${bank}`);
        // Its loans' dataset and its cards' in one row.
        for (const kind of ['institution', 'issuer']) {
          const { slug } = DATASETS.find((d) => d.entity.kind === kind)!;
          expect(await row.locator(`[data-dataset="${slug}"]`).count(), `${bank} ${slug}`).toBe(1);
        }
        expect(await row.locator('.aliases').count(), bank).toBe(0);
      }
    } finally {
      await close();
    }
  });

  it('on a phone, folds to its letters, a letter opening its lenders two or three short lines each, and the filter keeps a lender by any of its names', async () => {
    const { page, errors, close } = await openInContext(browser(), `${site.url}/rates/lenders`, PHONE);
    try {
      const rows = await page.locator('table.lenders tr[data-id]').count();
      const shownRows = () => page.locator('table.lenders tr[data-id]:visible');
      // Folded, the page is its text, its filter and a line per letter: some three screens, not 18,000 px.
      expect(await shownRows().count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(3_000);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      for (const h of await page
        .locator('details.letter-group > summary')
        .evaluateAll((ss) => ss.map((s) => s.getBoundingClientRect().height)))
        expect(h).toBeGreaterThanOrEqual(44);
      // A letter of the index opens its group, on screen.
      await page.locator('.letter-index a', { hasText: /^N$/ }).click();
      const opened = await shownRows().evaluateAll((trs) =>
        trs.map((tr) => ({ name: tr.querySelector('th')!.innerText.split('\n')[0]!, box: tr.getBoundingClientRect() })),
      );
      expect(opened.length).toBeGreaterThan(2);
      for (const { name } of opened) expect(name.startsWith('N'), name).toBe(true);
      expect(opened.map((o) => o.name)).toContain('Nelson Bldg Society');
      expect(opened[0]!.box.top).toBeGreaterThanOrEqual(0);
      expect(opened[0]!.box.bottom).toBeLessThanOrEqual(PHONE.height);
      await page.locator('#lenders-filter').fill('socy');
      const shown = await page.locator('table.lenders tr[data-id]:visible th[scope="row"]').allInnerTexts();
      expect(shown.some((t) => t.startsWith('Nelson Bldg Society'))).toBe(true);
      expect(shown.some((t) => t.startsWith('Heretaunga Bldg Socy'))).toBe(true);
      expect(shown.length).toBeLessThan(rows);
      expect(await page.locator('.lenders-filter-status').innerText()).toBe(`${shown.length} of ${rows} lenders.`);
      await page.locator('#lenders-filter').fill('no such lender');
      expect(await shownRows().count()).toBe(0);
      expect(await page.locator('.lenders-none').isVisible()).toBe(true);
      // Emptied, the groups are as they were: N open, the others folded.
      await page.locator('#lenders-filter').fill('');
      expect(await shownRows().count()).toBe(opened.length);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('without JavaScript, lists every lender in two or three short lines each on a phone, with an index of first letters, and no filter that cannot work', async () => {
    const { page, close } = await openInContext(browser(), `${site.url}/rates/lenders`, PHONE, {
      javaScriptEnabled: false,
    });
    try {
      expect(await page.locator('form.lenders-filter').isVisible()).toBe(false);
      const rows = await page.locator('table.lenders tr[data-id]').count();
      expect(await page.locator('table.lenders tr[data-id]:visible').count()).toBe(rows);
      // Each lender a compact block: 48 px for two lines, 65 for three; the six-value cards it replaced took some 190.
      const heights = await page
        .locator('table.lenders tr[data-id]')
        .evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
      expect(heights.reduce((a, b) => a + b, 0) / rows).toBeLessThan(66);
      expect(Math.max(...heights)).toBeLessThan(140);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      const letters = await page.locator('.letter-index a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
      expect(letters.length).toBeGreaterThan(10);
      for (const href of letters) expect(await page.locator(href).count(), href).toBe(1);
      const targets = await page
        .locator('.letter-index a')
        .evaluateAll((as) => as.map((a) => a.getBoundingClientRect().height));
      for (const h of targets) expect(h).toBeGreaterThanOrEqual(44);
    } finally {
      await close();
    }
  });
});

describe('dates', () => {
  /** The day in New Zealand a snapshot was collected on ("5 Mar 2025"), as the pages' headings date it. */
  const NZ_DAY = new Intl.DateTimeFormat('en-NZ', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'Pacific/Auckland',
  });
  const nzDay = (at: string) => NZ_DAY.format(new Date(at));

  it('the lenders page, a comparison caption and the changes page give each snapshot its New Zealand day, never its UTC date', async () => {
    /** Per snapshot date (the API's key, a UTC date), the New Zealand days of the datasets' snapshots of it. */
    const days = new Map<string, Set<string>>();
    const series: Record<string, [string, { lastUpdated: string }][]> = {};
    for (const d of DATASETS) {
      const path = `/api/v1/${d.slug}/time-series`;
      const dates: string[] = (await (await fetch(`${site.url}${path}`)).json()).availableDates;
      const body = await (await fetch(`${site.url}${path}?startDate=${dates[0]}&endDate=${dates.at(-1)}`)).json();
      series[d.slug] = Object.entries(body.timeSeries);
      for (const [date, s] of series[d.slug]!)
        days.set(date, new Set([...(days.get(date) ?? []), nzDay(s.lastUpdated)]));
    }
    const times = (html: string) =>
      [...html.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)].map((m) => [m[1]!, m[2]!]);
    let differ = 0;
    /** A time the page gives: a collection time (ISO) as its day, a snapshot date as the day of that snapshot. */
    const expectDay = ([at, text]: string[]) => {
      if (at!.includes('T')) expect(text, at).toBe(nzDay(at!));
      else expect([...(days.get(at!) ?? [])], `${at} ${text}`).toContain(text);
      if (Number(text!.split(' ')[0]) !== Number(at!.slice(8, 10))) differ++;
    };
    for (const path of ['/rates/lenders', '/rates/changes']) {
      const shown = times(await (await fetch(`${site.url}${path}`)).text());
      expect(shown.length, path).toBeGreaterThan(100);
      shown.forEach(expectDay);
    }
    // The test history has snapshots collected in the New Zealand morning, the day before in UTC.
    expect(differ).toBeGreaterThan(0);
    const previous = series[TERMED.slug]!.at(-2)![1];
    const { page, close } = await openInContext(browser(), `${site.url}${oneYear}`, DESKTOP);
    try {
      expect(await page.locator('.compare-table caption').innerText()).toContain(
        `Change since the previous snapshot, ${nzDay(previous.lastUpdated)}.`,
      );
    } finally {
      await close();
    }
  });
});

describe('a lender’s page', () => {
  it('says whom the lender lends to and why, and leaves what the maintainers find unclear to the docs', async () => {
    const unclear = RESTRICTIONS.filter((r) => r.field === 'entity' && 'unclear' in r && r.unclear);
    expect(unclear.length).toBeGreaterThan(0);
    let checked = 0;
    for (const d of DATASETS) {
      const definition = EXPLORER[d.slug];
      const listed = await (await fetch(`${site.url}/api/v1/${d.slug}`)).json();
      for (const entity of listed.data as { id: string; name: string }[]) {
        const rule = unclear.find(
          (r) => (definition.restrictions as readonly string[]).includes(r.key) && r.pattern.test(entity.name),
        );
        if (!rule) continue;
        const text = (
          await (
            await fetch(`${site.url}/rates/${definition.path}/${entity.id.slice(entity.id.indexOf(':') + 1)}`)
          ).text()
        ).replace(/\s+/g, ' ');
        expect(text, entity.name).toContain(`lends only to ${rule.label}`);
        expect(text, entity.name).not.toContain('What is unclear');
        expect(text, entity.name).not.toContain(rule.unclear!.slice(0, 40));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});
