/**
 * The quote check on the comparison pages, in headless Chromium over the real build served as
 * `npm start` serves it: each page's HTML holds a plain GET form to its dataset's quote check, its
 * field named `rate` and its measure in a hidden field; with JavaScript a rate typed and checked
 * is answered in words under the form — the words src/lib/quote-words.ts makes of the API's own
 * answer — and a refused rate with the API's hint; without JavaScript the form opens the API's JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { changeKeys } from '../src/changes/schema.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { bestRateOf } from '../src/explorer/best.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { quoteInWords } from '../src/lib/quote-words.ts';
import { join } from 'node:path';
import { chromiumForTests, openInContext, SCREENSHOTS } from './support/chromium.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

const DESKTOP = { width: 1280, height: 900 };

/** A dataset's first compared measure and its comparison page. */
function comparedOf(d: Dataset) {
  const definition = EXPLORER[d.slug];
  const measure = definition.measures.find((m) => definition.compared.includes(m.key))!;
  return { definition, measure, path: `/rates/${definition.path}/${measure.slug}` };
}
const CASES = DATASETS.map((d) => [comparedOf(d).path, d] as const);

let site: ProductionSite;
beforeAll(async () => {
  site = await buildAndServe({
    name: 'quote-page',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
}, 300_000);
afterAll(async () => {
  await site?.stop();
});

/** The API's answer to a quote of the page's measure. */
async function apiQuote(dataset: Dataset, rate: string) {
  const { measure } = comparedOf(dataset);
  const response = await fetch(`${site.url}${endpointsOf(dataset).quote.path}?measure=${measure.key}&rate=${rate}`);
  return (await response.json()) as any;
}

describe('the quote check on the comparison pages', () => {
  const browser = chromiumForTests();

  it.each(CASES)(
    '%s: its HTML holds a plain GET form to the quote check, the rate its field',
    async (path, dataset) => {
      const html = await (await fetch(`${site.url}${path}`)).text();
      const form = /<form[^>]*class="quote-check"[^>]*>[\s\S]*?<\/form>/.exec(html)?.[0];
      expect(form, path).toBeDefined();
      expect(form).toMatch(/method="get"/);
      expect(form).toContain(`action="${endpointsOf(dataset).quote.path}"`);
      expect(form).toMatch(/<input[^>]*name="rate"/);
      expect(form).toMatch(
        new RegExp(`<input type="hidden" name="measure" value="${comparedOf(dataset).measure.key}"`),
      );
    },
  );

  it.each(CASES)(
    '%s: a rate checked is answered in words under the form, from the API’s answer',
    async (path, dataset) => {
      const { page, errors, close } = await openInContext(browser(), `${site.url}${path}`, DESKTOP);
      try {
        const lowest = (await apiQuote(dataset, '0')).data.lowest as number;
        // Half a point past the best open rate, so that open offers stand on both sides of it.
        const rate = String(Math.round(lowest * 100 + 50) / 100);
        await page.fill('form.quote-check input[name="rate"]', `${rate} %`);
        await page.click('form.quote-check button[type="submit"]');
        const status = page.locator('form.quote-check .quote-answer');
        await status.filter({ hasText: 'percentile' }).waitFor();
        const { measure, definition } = comparedOf(dataset);
        const keys = changeKeys(dataset);
        const wording = {
          best: bestRateOf(definition, measure.key).word,
          entityName: keys.entityName,
          itemName: keys.itemName,
        };
        const words = quoteInWords((await apiQuote(dataset, rate)).data, wording);
        expect(await status.textContent()).toBe(words);
        expect(words).toMatch(
          /^\d+ of \d+ open offers? (is|are) (lower|higher)(, \d+ equal to it)?; your rate is at the \d+(st|nd|rd|th) percentile; the (lowest|highest) is \d+\.\d\d %, from .+\.$/,
        );
        expect(page.url()).toBe(`${site.url}${path}`);
        await page
          .locator('form.quote-check')
          .screenshot({ path: join(SCREENSHOTS, `quote-check-${dataset.slug}.png`) });
        // A rate the API refuses is answered with its hint.
        await page.fill('form.quote-check input[name="rate"]', '101');
        await page.click('form.quote-check button[type="submit"]');
        await status.filter({ hasText: 'at most 100' }).waitFor();
        expect(await page.getAttribute('form.quote-check input[name="rate"]', 'aria-invalid')).toBe('true');
        expect(errors.filter((e) => !e.includes('400'))).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it.each(CASES)('%s: without JavaScript the form opens the API’s JSON answer', async (path, dataset) => {
    const { page, close } = await openInContext(browser(), `${site.url}${path}`, DESKTOP, { javaScriptEnabled: false });
    try {
      await page.fill('form.quote-check input[name="rate"]', '6.5');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().includes('/quote?')),
        page.click('form.quote-check button[type="submit"]'),
      ]);
      await page.waitForURL(/\/quote\?/);
      const { measure } = comparedOf(dataset);
      const url = new URL(page.url());
      expect(url.pathname).toBe(endpointsOf(dataset).quote.path);
      expect(Object.fromEntries(url.searchParams)).toEqual({ measure: measure.key, rate: '6.5' });
      expect(answer.status()).toBe(200);
      expect(answer.headers()['content-type']).toMatch(/^application\/json/);
      const shown = (await answer.json()) as any;
      const api = await apiQuote(dataset, '6.5');
      expect({ ...shown, timestamp: undefined }).toEqual({ ...api, timestamp: undefined });
      expect(shown.data.measure).toBe(measure.key);
    } finally {
      await close();
    }
  });
});
