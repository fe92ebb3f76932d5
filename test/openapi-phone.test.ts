/**
 * The API reference (/openapi) as people use it, and what every page owes them, in headless
 * Chromium over the real build: on a phone (390×844) /openapi opens on its heading with its
 * contents behind one control (open as a sidebar on a desktop) and no sideways scroll; each of its
 * code blocks has the site's Copy button (src/browser/copy-code.ts), which copies the whole block;
 * each page states the terms of use once (the site footer's); and tap targets are 24 px or spaced
 * as WCAG 2.2 asks (2.5.8, axe's target-size rule), disclosures open, on a phone.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { chromiumForTests, openInContext, SCREENSHOTS } from './support/chromium.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const [FIRST] = DATASETS;
const ratesPage = `/rates/${EXPLORER[FIRST.slug].path}`;
const entityPage = `${ratesPage}/${FIRST.exampleEntityId.slice(FIRST.exampleEntityId.indexOf(':') + 1)}`;
/** Pages of each kind: home, the rates hub, a dataset's and an institution's, the changes, docs, the references, status. */
const PAGES = [
  '/',
  '/rates',
  ratesPage,
  entityPage,
  '/rates/changes',
  '/docs',
  '/docs/quickstart',
  '/docs/terms',
  '/openapi',
  '/openapi/interactive',
  '/status',
];

let site: ProductionSite;
beforeAll(async () => {
  site = await buildAndServe({
    name: 'openapi-phone',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
}, 180_000);
afterAll(() => site?.stop());

/** `path` of the site in a fresh context of `size`, loaded, with its console errors. */
const open = (
  browser: Browser,
  path: string,
  size: { width: number; height: number },
  options: BrowserContextOptions = {},
) => openInContext(browser, `${site.url}${path}`, size, options);

const scrollWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth);
const top = (page: Page, selector: string) =>
  page.locator(selector).evaluate((e) => e.getBoundingClientRect().top + window.scrollY);

describe('/openapi', () => {
  const browser = chromiumForTests();

  it('on a phone opens on its heading, its contents behind one control a keyboard opens, with no sideways scroll', async () => {
    for (const javaScriptEnabled of [true, false]) {
      const { page, errors, close } = await open(browser(), '/openapi', PHONE, { javaScriptEnabled });
      const label = `JavaScript ${javaScriptEnabled ? 'on' : 'off'}`;
      expect(await top(page, 'h1'), label).toBeLessThan(PHONE.height / 3);
      expect(await page.locator('h1').textContent(), label).toBe('API reference');
      expect(await scrollWidth(page), label).toBeLessThanOrEqual(PHONE.width);
      const contents = page.locator('nav[aria-label="API reference"]');
      const link = contents.locator('a[href="#sendMcpMessage"]');
      expect(await link.isVisible(), label).toBe(false);
      // One control, reached with the keyboard alone: Tab to it, Enter opens the contents, and
      // Tab then Enter follow one of them.
      const control = page.locator('summary', { hasText: 'Contents' });
      expect(await control.count(), label).toBe(1);
      let tabs = 0;
      while (!(await control.evaluate((c) => c === document.activeElement)) && tabs++ < 20)
        await page.keyboard.press('Tab');
      expect(tabs, `${label}: tabs to the contents`).toBeLessThan(20);
      await page.keyboard.press('Enter');
      expect(await link.isVisible(), label).toBe(true);
      expect(await scrollWidth(page), label).toBeLessThanOrEqual(PHONE.width);
      if (javaScriptEnabled) await page.screenshot({ path: join(SCREENSHOTS, 'phone-openapi-contents.png') });
      await page.keyboard.press('Tab');
      expect(
        await contents
          .locator('a')
          .first()
          .evaluate((a) => a === document.activeElement),
        label,
      ).toBe(true);
      await link.focus();
      await page.keyboard.press('Enter');
      expect(new URL(page.url()).hash, label).toBe('#sendMcpMessage');
      const heading = await page.locator('#sendMcpMessage h3').evaluate((h) => h.getBoundingClientRect().top);
      expect(heading, label).toBeGreaterThanOrEqual(0);
      expect(heading, label).toBeLessThan(PHONE.height / 2);
      expect(errors, label).toEqual([]);
      await close();
    }
  }, 60_000);

  it('on a desktop shows its contents as the sidebar, open without a tap', async () => {
    const { page, errors, close } = await open(browser(), '/openapi', DESKTOP);
    const contents = page.locator('nav[aria-label="API reference"]');
    expect(await contents.locator('a[href="#sendMcpMessage"]').isVisible()).toBe(true);
    expect(await page.locator('summary', { hasText: 'Contents' }).isVisible()).toBe(false);
    const [nav, article] = await Promise.all([contents.boundingBox(), page.locator('article').boundingBox()]);
    expect(nav!.x + nav!.width).toBeLessThanOrEqual(article!.x);
    expect(await top(page, 'h1')).toBeLessThan(DESKTOP.height / 4);
    expect(errors).toEqual([]);
    await close();
  }, 30_000);

  it('gives every code block a Copy button that copies the whole block and says so, within a phone’s screen', async () => {
    const { page, errors, close } = await open(browser(), '/openapi', PHONE, {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    // The examples are collapsed: open them all, as a reader would one by one.
    await page.locator('details.example').evaluateAll((all) => {
      for (const d of all) (d as HTMLDetailsElement).open = true;
    });
    const blocks = page.locator('article pre');
    const count = await blocks.count();
    expect(count).toBeGreaterThan(50);
    const buttons = page.getByRole('button', { name: 'Copy code' });
    expect(await buttons.count()).toBe(count);
    // Each button sits on its own block, within the screen's width.
    const placed = await page.locator('.code-block').evaluateAll((wraps) =>
      wraps.map((w) => {
        const [pre, button] = [w.querySelector('pre')!, w.querySelector('button.copy')!];
        const [p, b] = [pre.getBoundingClientRect(), button.getBoundingClientRect()];
        return b.left >= p.left && b.right <= Math.min(p.right, window.innerWidth) && b.top >= p.top;
      }),
    );
    expect(placed).toEqual(Array(count).fill(true));
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    for (let i = 0; i < count; i++) {
      const text = (await blocks.nth(i).textContent())!;
      await buttons.nth(i).click();
      await expect.poll(() => buttons.nth(i).textContent(), { timeout: 5_000 }).toBe('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText()), `block ${i}`).toBe(text);
    }
    // The curl line and an example, as the reader reads them, and the live region saying so.
    const texts = await blocks.allTextContents();
    expect(texts.some((t) => t.startsWith(`curl '${site.url}/api/`))).toBe(true);
    expect(texts.some((t) => t.includes('"termsOfUse"'))).toBe(true);
    expect(await page.getByRole('status').filter({ hasText: 'Copied to the clipboard' }).count()).toBeGreaterThan(0);
    await blocks.nth(1).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-openapi-copy.png') });
    expect(errors).toEqual([]);
    await close();
  }, 120_000);
});

describe('every page', () => {
  const browser = chromiumForTests();

  it.each(PAGES)(
    '%s states the terms of use once, in the site footer',
    async (path) => {
      const { page, errors, close } = await open(browser(), path, PHONE);
      if (path === '/openapi/interactive') await page.locator('#api-reference h1').first().waitFor({ timeout: 20_000 });
      // The page's text as read, code and data (the examples' termsOfUse field) left out.
      const { stated, opening, inFooter } = await page.evaluate((terms) => {
        const body = document.body.cloneNode(true) as HTMLElement;
        for (const e of body.querySelectorAll('pre, code, script, style, template, noscript')) e.remove();
        const text = body.textContent!.replace(/\s+/g, ' ');
        const count = (needle: string) => text.split(needle).length - 1;
        const footer = document.querySelector('footer')?.textContent?.replace(/\s+/g, ' ') ?? '';
        return {
          stated: count(terms),
          opening: count(terms.slice(0, terms.indexOf('.') + 1)),
          inFooter: footer.includes(terms),
        };
      }, TERMS_OF_USE);
      expect(stated).toBe(1);
      expect(opening).toBe(1);
      expect(inFooter).toBe(true);
      expect(await page.locator('.terms').count()).toBe(1);
      expect(errors).toEqual([]);
      await close();
    },
    30_000,
  );

  it.each(PAGES.filter((p) => p !== '/openapi/interactive'))(
    '%s on a phone: every tap target 24 px or clear of its neighbours (axe target-size), its disclosures open',
    async (path) => {
      const { page, close } = await open(browser(), path, PHONE, { bypassCSP: true });
      // The docs menu, the reference's contents, sources and downloads, each chart's table: open.
      await page.locator('details').evaluateAll((all) => {
        for (const d of all) (d as HTMLDetailsElement).open = true;
      });
      await page.addScriptTag({ path: AXE });
      const violations = await page.evaluate(async () => {
        const { axe } = window as unknown as {
          axe: {
            run(options: object): Promise<{ violations: { nodes: { target: string[]; failureSummary?: string }[] }[] }>;
          };
        };
        const { violations } = await axe.run({ runOnly: ['target-size'], resultTypes: ['violations'] });
        return violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`));
      });
      expect(violations).toEqual([]);
      await close();
    },
    30_000,
  );
});
