/**
 * "What would I pay" (issue 35, point 6) as people use it, in headless Chromium over the real
 * build: on a comparison page of each dataset, at a desktop's and a phone's width, the form shows
 * with the dataset's amount and term (its explorer facts), the table gains a "Monthly on …" column
 * whose figures are src/lib/repayments.ts's formula at each row's rate, and they follow the inputs.
 * Without JavaScript the page is as built: no form, no extra column.
 */
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { formatAmount, formatRepayment, monthlyRepayment, termWords } from '../src/lib/repayments.ts';
import { MORTGAGE_TERM_TABLE } from '../src/schemas/terms.ts';
import { chromiumForTests, openInContext } from './support/chromium.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const SIZES = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const;

/** A dataset's first compared measure and its comparison page. */
function comparedOf(d: Dataset) {
  const definition = EXPLORER[d.slug];
  const measure = definition.measures.find((m) => definition.compared.includes(m.key))!;
  return { definition, measure, path: `/rates/${definition.path}/${measure.slug}` };
}
/** Every dataset's first comparison page, with the size to open it at. */
const CASES = DATASETS.flatMap((d) => SIZES.map(([name, size]) => [comparedOf(d).path, name, size, d] as const));

let site: ProductionSite;
beforeAll(async () => {
  site = await buildAndServe({
    name: 'repayments-page',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
}, 300_000);
afterAll(async () => {
  await site?.stop();
});

/** `path` of the site in a fresh context of `size`, loaded, with its console errors. */
const open = (
  browser: Browser,
  path: string,
  size: { width: number; height: number },
  options: BrowserContextOptions = {},
) => openInContext(browser, `${site.url}${path}`, size, options);

/** Each row of the comparison table: its rate (`data-value`, absent without an open offer) and its cells' text. */
const rowsOf = (page: Page) =>
  page.locator('table.compare-table tbody tr').evaluateAll((rows) =>
    rows.map((row) => ({
      value: row.getAttribute('data-value'),
      cells: [...row.children].map((c) => c.textContent!.trim()),
      repayment: row.querySelector('td.repayment')?.textContent ?? null,
    })),
  );
const headersOf = (page: Page) => page.locator('table.compare-table thead th').allTextContents();
const scrollWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth);

/** The figure each row should show for `amount` over `years`: the formula at its rate, "—" without one. */
const expected = (value: string | null, amount: number, years: number) =>
  value === null ? '—' : formatRepayment(monthlyRepayment(amount, Number(value), years)!);

describe('the repayment figure on the comparison pages', () => {
  const browser = chromiumForTests();

  it.each(CASES)(
    '%s (%s): the form with the dataset’s amount and term, a column of the formula’s figures that follow the inputs',
    async (path, _, size, dataset) => {
      const { definition } = comparedOf(dataset);
      // Every dataset here is of rates paid, which a comparison page shows the repayment figure for.
      const { amount, years, noun } = definition.repayment!;
      const { page, errors, close } = await open(browser(), path, size);
      const form = page.locator('form.repayments');
      expect(await form.isVisible()).toBe(true);
      const amountInput = page.getByLabel(`Amount of the ${noun} (NZD)`);
      const yearsInput = page.getByLabel('Term (years)');
      expect(await amountInput.inputValue()).toBe(amount.toLocaleString('en-NZ'));
      expect(await yearsInput.inputValue()).toBe(String(years));
      for (const input of [amountInput, yearsInput])
        expect((await input.boundingBox())!.height).toBeGreaterThanOrEqual(24);
      expect(await form.textContent()).toMatch(/M = P·i \/ \(1 − \(1 \+ i\)−N\)/);
      expect(await form.textContent()).toMatch(/An estimate, not a quote: equal monthly payments, the rate fixed/);

      // The column: its header names the amount and the term; one cell per row.
      const headers = await headersOf(page);
      expect(headers.at(-1)).toBe(`Monthly on ${formatAmount(amount)} over ${termWords(years * 12)}`);
      expect(await page.locator('table.compare-table th.repayment').getAttribute('scope')).toBe('col');
      const rows = await rowsOf(page);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.cells).toHaveLength(headers.length);
        expect(row.repayment).toBe(expected(row.value, amount, years));
      }
      expect(rows[0]!.value).not.toBeNull();
      expect(rows[0]!.repayment).toMatch(/^\$\d{1,3}(,\d{3})*$/);
      await expect.poll(() => page.getByRole('status').textContent()).toContain(rows[0]!.repayment!);

      // Another amount and term: the header, every figure and the status line follow.
      await amountInput.fill('$250,000');
      await yearsInput.fill('2.5');
      expect((await headersOf(page)).at(-1)).toBe('Monthly on $250,000 over 30 months');
      for (const row of await rowsOf(page)) expect(row.repayment).toBe(expected(row.value, 250_000, 2.5));
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toMatch(new RegExp(`\\$250,000 ${noun} over 30 months: \\$[\\d,]+ at the first rate listed`));

      // Out of bounds: no figure (never NaN or Infinity), the input marked, the status says why.
      await amountInput.fill('1e9');
      expect(await amountInput.getAttribute('aria-invalid')).toBe('true');
      for (const row of await rowsOf(page)) expect(row.repayment).toBe('—');
      await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Enter an amount/);
      await amountInput.fill('1000');
      await yearsInput.fill('51');
      expect(await yearsInput.getAttribute('aria-invalid')).toBe('true');
      expect(await amountInput.getAttribute('aria-invalid')).toBe('false');
      await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Enter a term/);
      await yearsInput.fill('1');
      for (const row of await rowsOf(page)) expect(row.repayment).toBe(expected(row.value, 1_000, 1));
      expect(await page.locator('table.compare-table').textContent()).not.toMatch(/NaN|Infinity/);

      // Enter submits nothing: the page stays.
      await yearsInput.press('Enter');
      expect(new URL(page.url()).pathname).toBe(path);

      if (size === PHONE) {
        expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
        const box = (await form.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      }
      expect(errors).toEqual([]);
      await close();
    },
    60_000,
  );

  it.each(DATASETS.map((d) => [`${comparedOf(d).path}/with-restricted`, d] as const))(
    '%s: a row without an open offer shows "—", the others the formula’s figure',
    async (path, dataset) => {
      const { amount, years } = comparedOf(dataset).definition.repayment!;
      const { page, errors, close } = await open(browser(), path, DESKTOP);
      const rows = await rowsOf(page);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.repayment).toBe(expected(row.value, amount, years));
      expect(errors).toEqual([]);
      await close();
    },
    30_000,
  );

  it.each(CASES)(
    '%s (%s) with JavaScript off: no form and no extra column',
    async (path, _, size) => {
      const off = await open(browser(), path, size, { javaScriptEnabled: false });
      expect(await off.page.locator('form.repayments').count()).toBe(1);
      expect(await off.page.locator('form.repayments').isVisible()).toBe(false);
      expect(await off.page.locator('table.compare-table .repayment').count()).toBe(0);
      const headers = await headersOf(off.page);
      expect(headers.slice(0, 3)).toEqual(['#', expect.stringMatching(/ and product$/), 'Rate %']);
      expect(headers.length).toBeLessThanOrEqual(4);
      for (const row of await rowsOf(off.page)) expect(row.cells).toHaveLength(headers.length);
      await off.close();
      // With it, the same table and one column more.
      const on = await open(browser(), path, size);
      expect(await headersOf(on.page)).toEqual([...headers, expect.stringMatching(/^Monthly on /)]);
      await on.close();
    },
    30_000,
  );

  it('a mortgage term’s page says its rate usually lasts only that term; no other page does', async () => {
    for (const d of DATASETS) {
      const definition = EXPLORER[d.slug];
      for (const measure of definition.measures.filter((m) => definition.compared.includes(m.key))) {
        const path = `/rates/${definition.path}/${measure.slug}`;
        const html = await (await fetch(`${site.url}${path}`)).text();
        const term = MORTGAGE_TERM_TABLE.find((t) => t.key === measure.key && t.label === measure.label);
        const fixed = `A fixed rate usually applies only for its term (here ${term?.label}), after which the loan moves to another rate: the figure assumes this one for the whole loan.`;
        const floating = 'A floating rate can change at any time: the figure assumes this one for the whole loan.';
        expect(html.includes(fixed), path).toBe(term !== undefined && term.months !== null);
        expect(html.includes(floating), path).toBe(term !== undefined && term.months === null);
        if (term) expect(html, path).not.toMatch(/applies only for its term \(here undefined\)/);
      }
    }
  });
});
