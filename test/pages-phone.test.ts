/**
 * The rates and docs pages as people use them, in headless Chromium on a phone (390×844) and a
 * desktop (1280×900), over the real build: rates on a phone's screen without sideways scrolling,
 * the docs opening on their content with the menu a tap away, code blocks that show and copy the
 * whole command, anchors below the sticky header, and pages that say how fresh their data is
 * (from health, after the page's script ran) instead of calling 2025 data "today".
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { MortgageInstitution } from '../src/schemas/rates.ts';
import { chromiumForTests, openInContext, SCREENSHOTS } from './support/chromium.ts';
import { datasetOfSchema } from './support/datasets.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite, serveWithStatus } from './support/production.ts';
import type { ServerProcess } from './support/server-process.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
/** A dataset's explorer page, and its example institution's. */
const ratesPage = (d: Dataset) => `/rates/${EXPLORER[d.slug].path}`;
const entityPage = (d: Dataset) => `${ratesPage(d)}/${d.exampleEntityId.slice(d.exampleEntityId.indexOf(':') + 1)}`;
/** The widest table: a column per term. */
const TERMED = datasetOfSchema(MortgageInstitution);
/** The collection status the second server shows: FRESH checked minutes ago, STALE days ago, UNCOLLECTED never. */
const [FRESH, STALE, ...REST] = DATASETS as unknown as [Dataset, Dataset, ...Dataset[]];
const UNCOLLECTED = REST.at(-1);
/** A listing's rate as the pages print it: "4.39" in a table, "4.39 %" on a card. */
const RATE = /^\d{1,2}\.\d{2}( %)?$/;

let site: ProductionSite;
/** The same build served with a collection status: every dataset but STALE and UNCOLLECTED checked minutes ago, STALE days ago. */
let collected: ServerProcess;
let health: { datasets: Record<string, { lastUpdated: string }> };

beforeAll(async () => {
  site = await buildAndServe({
    name: 'pages-phone',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
  health = await (await fetch(`${site.url}/api/v1/health`)).json();
  const statusDir = await tempDir('rates-status-');
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  const record = (checked: string, slug: string) => ({
    lastChecked: checked,
    lastChanged: `${health.datasets[slug]!.lastUpdated.replace(' ', 'T')}.000Z`,
    lastError: null,
    lastErrorAt: null,
  });
  for (const { slug } of DATASETS.filter((d) => d !== STALE && d !== UNCOLLECTED))
    await writeFile(join(statusDir, `${slug}.json`), JSON.stringify(record(ago(12 * 60_000), slug)));
  await writeFile(join(statusDir, `${STALE.slug}.json`), JSON.stringify(record(ago(2 * 24 * 3_600_000), STALE.slug)));
  collected = await serveWithStatus(site, statusDir);
}, 180_000);
afterAll(async () => {
  await collected?.stop();
  await site?.stop();
});

/** When a dataset last changed, as the pages write the date (New Zealand time). */
function lastChanged(slug: string): string {
  const at = new Date(`${health.datasets[slug]!.lastUpdated.replace(' ', 'T')}Z`);
  return at.toLocaleDateString('en-NZ', { dateStyle: 'medium', timeZone: 'Pacific/Auckland' });
}

const open = openInContext;

/** What a rates page says of its data's freshness (the sources and downloads beside it left out). */
const freshness = async (page: Page) =>
  (await page.locator('.provenance > :not(.data-links)').allTextContents()).join(' ').replace(/\s+/g, ' ');

/** Once the freshness script has filled in what health says. */
const filled = (page: Page) => page.locator('[data-health][data-filled]').waitFor({ state: 'attached' });

/** Every heading's text, captions and table legends included. */
const headings = (page: Page) =>
  page
    .locator('h1, h2, h3, h4, h5, h6, caption, [role="heading"]')
    .evaluateAll((nodes) => nodes.map((n) => n.textContent!.trim()));

/** The elements printing a rate, inside the viewport's width (and, with `onScreen`, on screen and not covered). */
function visibleRates(page: Page, onScreen: boolean): Promise<{ inWidth: number; shown: number }> {
  return page.evaluate(
    ({ pattern, onScreen }) => {
      const rate = new RegExp(pattern);
      const [width, height] = [window.innerWidth, window.innerHeight];
      const printed = [...document.querySelectorAll<HTMLElement>('body *')].filter((e) => {
        const first = e.firstChild;
        return first?.nodeType === Node.TEXT_NODE && rate.test(first.textContent!.trim()) && e.checkVisibility();
      });
      const inWidth = printed.filter((e) => {
        const box = e.getBoundingClientRect();
        return box.width > 0 && box.left >= 0 && box.right <= width;
      });
      const shown = inWidth.filter((e) => {
        const box = e.getBoundingClientRect();
        if (box.top < 0 || box.bottom > height) return false;
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return hit !== null && (hit === e || e.contains(hit));
      });
      return { inWidth: inWidth.length, shown: onScreen ? shown.length : 0 };
    },
    { pattern: RATE.source, onScreen },
  );
}

const scrollWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth);

describe('a phone (390×844)', () => {
  const browser = chromiumForTests();

  it('the termed-rate listing (the widest table) shows its rates without sideways scrolling, the table’s first screen full of them', async () => {
    const { page, errors, close } = await open(browser(), `${site.url}${ratesPage(TERMED)}`, PHONE);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    const rates = await visibleRates(page, false);
    expect(rates.inWidth).toBeGreaterThanOrEqual(30);
    // Every rate of the table is within the screen's width, not only the first column's.
    const cells = await page.locator('table.rate-table td[data-id]').count();
    expect(cells).toBeGreaterThan(200);
    expect(rates.inWidth).toBeGreaterThanOrEqual(cells);
    // Scrolled to the table: its first screen shows rates (nothing covers them), each with its term.
    await page.locator('table.rate-table').evaluate((t) => t.scrollIntoView());
    expect((await visibleRates(page, true)).shown).toBeGreaterThanOrEqual(16);
    const first = page.locator('table.rate-table td[data-id]').first();
    const label = await first.evaluate((td) => getComputedStyle(td, '::before').content);
    expect(label).toBe(`"${EXPLORER[TERMED.slug].headers[1]}"`);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-mortgages-table.png') });
    expect(errors).toEqual([]);
    await close();
  }, 60_000);

  it.each([...DATASETS.filter((d) => d !== TERMED).map(ratesPage), ...DATASETS.map(entityPage)])(
    '%s shows every value of its table within the screen’s width',
    async (path) => {
      const { page, errors, close } = await open(browser(), `${site.url}${path}`, PHONE);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      const outside = await page
        .locator('table.rate-table td[data-id]')
        .evaluateAll((cells) =>
          cells.filter((c) => c.getBoundingClientRect().right > window.innerWidth).map((c) => c.textContent),
        );
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    },
    30_000,
  );

  it('/rates/changes shows the move itself (from → to) of its first rows within the screen', async () => {
    const { page, errors, close } = await open(browser(), `${site.url}/rates/changes`, PHONE);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.locator('table.changes').evaluate((t) => t.scrollIntoView());
    const moves = await page.locator('table.changes td[data-from]').evaluateAll((cells) =>
      cells.slice(0, 5).map((c) => {
        const box = c.getBoundingClientRect();
        return { text: c.textContent!.trim(), left: box.left, right: box.right, top: box.top, bottom: box.bottom };
      }),
    );
    expect(moves).toHaveLength(5);
    for (const move of moves) {
      expect(move.text).toMatch(/\d\.\d{2} → \d/);
      expect(move.left, move.text).toBeGreaterThanOrEqual(0);
      expect(move.right, move.text).toBeLessThanOrEqual(PHONE.width);
      expect(move.bottom, move.text).toBeLessThanOrEqual(PHONE.height);
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-changes.png') });
    expect(errors).toEqual([]);
    await close();
  }, 30_000);

  it('a docs page opens on its heading, with the menu one tap away', async () => {
    for (const path of ['/docs/quickstart', ...DATASETS.map((d) => `/docs/reference/${d.slug}`), '/docs']) {
      const { page, errors, close } = await open(browser(), `${site.url}${path}`, PHONE);
      const top = await page.locator('article h1').evaluate((h) => h.getBoundingClientRect().top);
      expect(top, path).toBeLessThan(PHONE.height / 2);
      const menu = page.locator('nav[aria-label="Documentation"]');
      const errorsLink = menu.locator('a[href="/docs/errors"]');
      expect(await errorsLink.isVisible(), path).toBe(false);
      await page.locator('.docs-menu summary').click();
      expect(await errorsLink.isVisible(), path).toBe(true);
      expect(await menu.locator('a[aria-current="page"]').isVisible(), path).toBe(true);
      await page.locator('#search').fill('stale');
      await menu.locator('#search-results li a').first().waitFor({ timeout: 10_000 });
      expect(await scrollWidth(page), path).toBeLessThanOrEqual(PHONE.width);
      if (path === '/docs/quickstart') await page.screenshot({ path: join(SCREENSHOTS, 'phone-docs-menu.png') });
      expect(errors, path).toEqual([]);
      await close();
    }
  }, 60_000);

  it('code blocks show the whole command (wrapped, nothing cut off) and copy it with a named button', async () => {
    const { page, errors, close } = await open(browser(), `${site.url}/docs/quickstart`, PHONE, {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const blocks = page.locator('pre');
    const count = await blocks.count();
    expect(count).toBeGreaterThan(5);
    const buttons = page.getByRole('button', { name: 'Copy code' });
    expect(await buttons.count()).toBe(count);
    const cut = await page
      .locator('pre:has(code.language-sh)')
      .evaluateAll((pres) => pres.filter((p) => p.scrollWidth > p.clientWidth).map((p) => p.textContent));
    expect(cut).toEqual([]);
    const command = (await blocks.nth(1).textContent())!;
    expect(command).toContain('termInMonths=12');
    await buttons.nth(1).click();
    await expect.poll(() => buttons.nth(1).textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
    expect(await page.getByRole('status').filter({ hasText: 'Copied' }).count()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-docs-code.png') });
    expect(errors).toEqual([]);
    await close();
  }, 30_000);

  it('the site header does not stay over the page, so a table’s header or an anchor is never under it', async () => {
    // A heading of the quickstart far enough down for the jump to bring it to the top.
    const first = await open(browser(), `${site.url}/docs/quickstart`, PHONE);
    const id = await first.page.evaluate(() => {
      const room = document.scrollingElement!.scrollHeight - window.innerHeight;
      return [...document.querySelectorAll('article h2[id], article h3[id]')].find((h) => {
        const y = h.getBoundingClientRect().top + window.scrollY;
        return y > window.innerHeight && y < room;
      })?.id;
    });
    await first.close();
    expect(id).toBeTruthy();
    const { page, errors, close } = await open(browser(), `${site.url}/docs/quickstart#${id}`, PHONE);
    const [target, header] = await Promise.all([
      page.locator(`[id="${id}"]`).evaluate((h) => h.getBoundingClientRect().top),
      page.locator('.site-header').evaluate((h) => h.getBoundingClientRect().bottom),
    ]);
    expect(target).toBeGreaterThanOrEqual(Math.max(0, header));
    expect(target).toBeLessThan(PHONE.height / 2);
    expect(errors).toEqual([]);
    await close();
  }, 30_000);
});

describe('a desktop (1280×900)', () => {
  const browser = chromiumForTests();

  it('the docs menu is the sidebar, open without a tap, and the code blocks have their copy button', async () => {
    const { page, errors, close } = await open(browser(), `${site.url}/docs/quickstart`, DESKTOP);
    const menu = page.locator('nav[aria-label="Documentation"]');
    expect(await menu.locator('a[href="/docs/errors"]').isVisible()).toBe(true);
    expect(await page.locator('.docs-menu summary').isVisible()).toBe(false);
    const [nav, article] = await Promise.all([menu.boundingBox(), page.locator('article').boundingBox()]);
    expect(nav!.x + nav!.width).toBeLessThanOrEqual(article!.x);
    expect(await page.getByRole('button', { name: 'Copy code' }).count()).toBe(await page.locator('pre').count());
    expect(errors).toEqual([]);
    await close();
  }, 30_000);

  it('anchors land below the sticky site header', async () => {
    for (const path of [...DATASETS.map((d) => `/docs/reference/${d.slug}`), '/docs/concepts']) {
      const { page, errors, close } = await open(browser(), `${site.url}${path}`, DESKTOP);
      // A heading far enough down the page for the jump to bring it to the top.
      const id = await page.evaluate(() => {
        const room = document.scrollingElement!.scrollHeight - window.innerHeight;
        return [...document.querySelectorAll('article h2[id], article h3[id]')].find((h) => {
          const y = h.getBoundingClientRect().top + window.scrollY;
          return y > window.innerHeight && y < room;
        })?.id;
      });
      expect(id, path).toBeTruthy();
      await page.goto(`${site.url}${path}#${id}`);
      const [target, header, sticky] = await Promise.all([
        page.locator(`[id="${id}"]`).evaluate((h) => h.getBoundingClientRect().top),
        page.locator('.site-header').evaluate((h) => h.getBoundingClientRect().bottom),
        page.locator('.site-header').evaluate((h) => getComputedStyle(h).position),
      ]);
      expect(sticky).toBe('sticky');
      expect(target, `${path}#${id}`).toBeGreaterThanOrEqual(header);
      expect(target, `${path}#${id}`).toBeLessThan(DESKTOP.height / 2);
      expect(errors).toEqual([]);
      await close();
    }
  }, 30_000);

  it('the termed-rate table keeps its columns with their headers and the institution column beside them', async () => {
    const { page, errors, close } = await open(browser(), `${site.url}${ratesPage(TERMED)}`, DESKTOP);
    const headers = await page.locator('table.rate-table thead th').allTextContents();
    expect(headers.slice(0, 3)).toEqual(['Institution', ...EXPLORER[TERMED.slug].headers.slice(0, 2)]);
    expect(await page.locator('table.rate-table thead').isVisible()).toBe(true);
    const [header, cell] = await Promise.all([
      page.locator('table.rate-table thead th').nth(4).boundingBox(),
      page.locator('table.rate-table tbody tr').first().locator('td').nth(3).boundingBox(),
    ]);
    expect(Math.abs(header!.x - cell!.x)).toBeLessThan(1);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(DESKTOP.width);
    expect(errors).toEqual([]);
    await close();
  }, 30_000);
});

describe('how fresh the rates are', () => {
  const browser = chromiumForTests();
  /** The hub, the changes, and each dataset's page and its example institution's, with the dataset each shows. */
  const PAGES: [string, Dataset | undefined][] = [
    ['/rates', undefined],
    ['/rates/changes', undefined],
    ...DATASETS.flatMap((d): [string, Dataset][] => [
      [ratesPage(d), d],
      [entityPage(d), d],
    ]),
  ];

  it('with no collector here, every rates page says its data is not being collected and when it last changed, and no heading says "today"', async () => {
    for (const size of [PHONE, DESKTOP]) {
      for (const [path, shown] of PAGES) {
        const { page, errors, close } = await open(browser(), `${site.url}${path}`, size);
        await filled(page);
        const said = await freshness(page);
        expect(said, path).toMatch(/not being collected here/i);
        expect(said, path).not.toMatch(/today/i);
        // A dataset's pages say when it last changed; the hub and the changes, each dataset's.
        for (const d of shown ? [shown] : DATASETS)
          expect(said, `${path} ${d.slug}`).toContain(`last changed ${lastChanged(d.slug)}`);
        for (const heading of await headings(page)) expect(heading, path).not.toMatch(/\btoday\b/i);
        if (size === PHONE && (path === '/rates' || path === ratesPage(FRESH)))
          await page.screenshot({ path: join(SCREENSHOTS, `phone-${path.slice(1).replace(/\//g, '-')}.png`) });
        expect(errors, path).toEqual([]);
        await close();
      }
    }
  }, 120_000);

  it('with JavaScript off, no heading says "today" and each page says as of when its data last changed', async () => {
    for (const [path] of PAGES) {
      const { page, close } = await open(browser(), `${site.url}${path}`, PHONE, { javaScriptEnabled: false });
      for (const heading of await headings(page)) expect(heading, path).not.toMatch(/\btoday\b/i);
      const said = await freshness(page);
      expect(said, path).toMatch(/as of \d{1,2} \w{3} 20\d\d/i);
      expect(said, path).not.toMatch(/today/i);
      // The rates are there to read without any script.
      if (path !== '/rates/changes') expect((await visibleRates(page, false)).inWidth, path).toBeGreaterThan(0);
      await close();
    }
  }, 60_000);

  it('"today" only where health says the data was checked within the freshness window; stale data says since when', async () => {
    const hub = await open(browser(), `${collected.url}/rates`, DESKTOP);
    await filled(hub.page);
    const item = (slug: string) =>
      hub.page
        .locator(`.freshness [data-dataset="${slug}"]`)
        .evaluate((li) => [li.getAttribute('data-state'), li.textContent]);
    const fresh = await item(FRESH.slug);
    expect(fresh[0]).toBe('fresh');
    expect(fresh[1]).toMatch(/up to date today: checked 1\d minutes ago · last changed/);
    const stale = await item(STALE.slug);
    expect(stale[0]).toBe('stale');
    expect(stale[1]).toMatch(/stale since \d{1,2} \w{3} 20\d\d, .* \(not checked for 2 days\) · last changed/);
    expect(stale[1]).not.toMatch(/today/);
    if (UNCOLLECTED) {
      const never = await item(UNCOLLECTED.slug);
      expect(never[0]).toBe('uncollected');
      expect(never[1]).toContain(`not being collected here · last changed ${lastChanged(UNCOLLECTED.slug)}`);
    }
    expect(hub.errors).toEqual([]);
    await hub.close();

    const freshPage = await open(browser(), `${collected.url}${ratesPage(FRESH)}`, PHONE);
    await filled(freshPage.page);
    expect(await freshPage.page.locator('.freshness').textContent()).toMatch(/^\s*Up to date today: checked/);
    await freshPage.page.screenshot({ path: join(SCREENSHOTS, 'phone-rates-fresh.png') });
    await freshPage.close();
    const stalePage = await open(browser(), `${collected.url}${ratesPage(STALE)}`, PHONE);
    await filled(stalePage.page);
    const said = await freshness(stalePage.page);
    expect(said).toMatch(/Stale since/);
    expect(said).not.toMatch(/today/i);
    expect(stalePage.errors).toEqual([]);
    await stalePage.close();
  }, 60_000);
});
