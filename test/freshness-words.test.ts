/**
 * Issue 35, point 5 ("age in words, one date, honest state"), in headless Chromium on a phone
 * (390×844) and a desktop (1280×900) over the real build, served with no collector (a fresh clone)
 * and with status folders as the hourly run leaves them: every dataset fresh, every dataset stale,
 * and one stale among fresh ones. The rates pages say beside each date how old their rates are
 * (the test history ends in 2025, the clock is later); the home page says "every hour" only where
 * health says collection runs and is fresh; /status shows no state but `fresh` in the healthy
 * colours, its banner in the worst state's; and no page of these prints a second, UTC date.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { STALE_AFTER } from '../src/lib/stale-after.ts';
import { age, nzDate, nzTime, parseHealthTime } from '../src/lib/time-words.ts';
import { chromiumForTests, SCREENSHOTS } from './support/chromium.ts';
import { historyDir, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite, serveWithStatus } from './support/production.ts';
import type { ServerProcess } from './support/server-process.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const SIZES = [PHONE, DESKTOP];
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** The status page's healthy colours (src/pages/status.astro, `.state-fresh`): its green and its green tint. */
const HEALTHY = ['rgb(26, 127, 55)', 'rgb(218, 251, 225)'];
/** The dataset that is stale among fresh ones. */
const [STALE] = DATASETS as unknown as [Dataset, ...Dataset[]];
const ratesPage = (d: Dataset) => `/rates/${EXPLORER[d.slug].path}`;
const entityPage = (d: Dataset) => `${ratesPage(d)}/${d.exampleEntityId.slice(d.exampleEntityId.indexOf(':') + 1)}`;

/** The plain build: no collector reports here (health: `collection.status: "not_configured"`). */
let site: ProductionSite;
/** The same build with every dataset checked 12 minutes ago. */
let fresh: ServerProcess;
/** … with every dataset last checked two days ago. */
let stale: ServerProcess;
/** … with STALE last checked two days ago, the others 12 minutes ago. */
let mixed: ServerProcess;
let health: { datasets: Record<string, { lastUpdated: string }> };

beforeAll(async () => {
  site = await buildAndServe({
    name: 'freshness-words',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
  health = await (await fetch(`${site.url}/api/v1/health`)).json();
  const served = (slug: string) => `${health.datasets[slug]!.lastUpdated.replace(' ', 'T')}.000Z`;
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  /** A status folder whose datasets were last checked `checkedAgo(d)` ms ago, each serving its newest change. */
  const statusFolder = async (checkedAgo: (d: Dataset) => number) => {
    const dir = await tempDir('rates-status-');
    for (const d of DATASETS) {
      const record = {
        lastChecked: ago(checkedAgo(d)),
        lastChanged: served(d.slug),
        lastError: null,
        lastErrorAt: null,
      };
      await writeFile(join(dir, `${d.slug}.json`), JSON.stringify(record));
    }
    return serveWithStatus(site, dir);
  };
  [fresh, stale, mixed] = await Promise.all([
    statusFolder(() => 12 * MINUTE),
    statusFolder(() => 2 * DAY),
    statusFolder((d) => (d === STALE ? 2 * DAY : 12 * MINUTE)),
  ]);
}, 240_000);
afterAll(async () => {
  await Promise.all([fresh?.stop(), stale?.stop(), mixed?.stop()]);
  await site?.stop();
});

/** When a dataset's served rates last changed. */
const changedAt = (slug: string) => parseHealthTime(health.datasets[slug]!.lastUpdated);

/** `url` in a fresh context of `size`, loaded until the network is idle, with its console errors. */
async function open(browser: Browser, url: string, size: typeof PHONE, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ viewport: size, ...options });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    page,
    errors,
    context,
    close: () => context.close(),
    go: () => page.goto(url, { waitUntil: 'networkidle' }),
  };
}

/** Once the page's script has read health and said what it says. */
const filled = (page: Page) => page.locator('[data-health][data-filled]').waitFor({ state: 'attached' });

/** What a rates page says of its data's freshness (the sources and downloads beside it left out). */
const provenance = async (page: Page) =>
  (await page.locator('.provenance > :not(.data-links)').allTextContents()).join(' ').replace(/\s+/g, ' ');

/** Each dated dataset of a rates page: its slug, its words, and what stands right after its date's <time>. */
const datedItems = (page: Page) =>
  page.locator('.freshness [data-dataset]').evaluateAll((items) =>
    items.map((item) => {
      const changed = [...item.querySelectorAll('time')].at(-1)!;
      const next = changed.nextElementSibling;
      return {
        slug: (item as HTMLElement).dataset.dataset!,
        text: item.textContent!.replace(/\s+/g, ' '),
        datetime: changed.getAttribute('datetime'),
        beside: next?.classList.contains('age') && next.previousSibling === changed ? next.textContent : null,
      };
    }),
  );

/** Whole months between two times, by an average month: a check of the words' arithmetic that shares none of it. */
const roughMonths = (from: Date, to: Date) => (to.getTime() - from.getTime()) / ((365.25 / 12) * DAY);

describe('rates pages say how old their rates are, beside the date', () => {
  const browser = chromiumForTests();
  /** The hub (every dataset), each dataset's page, and an institution's. */
  const PAGES: [string, Dataset[]][] = [
    ['/rates', DATASETS as unknown as Dataset[]],
    ...DATASETS.map((d): [string, Dataset[]] => [ratesPage(d), [d]]),
    [entityPage(STALE), [STALE]],
  ];

  it.each([
    ['no collector here', () => site.url, /not being collected here/i],
    ['every dataset fresh', () => fresh.url, /up to date today/i],
    ['every dataset stale', () => stale.url, /stale since/i],
  ])(
    '%s: "N months old" after each date, right for the history’s dates, in New Zealand time',
    async (_, url, verdict) => {
      for (const size of SIZES) {
        for (const [path, shown] of PAGES) {
          const { page, errors, close, go } = await open(browser(), `${url()}${path}`, size);
          await go();
          await filled(page);
          const items = await datedItems(page);
          expect(items.map((i) => i.slug).sort(), path).toEqual(shown.map((d) => d.slug).sort());
          const now = new Date();
          for (const item of items) {
            const changed = changedAt(item.slug);
            // Health says times to the second.
            expect(item.datetime?.slice(0, 19), path).toBe(changed.toISOString().slice(0, 19));
            // The history ends in 2025 and the clock is at least a year on: months or years, never "today".
            const words = age(changed, now)!;
            expect(words, path).toMatch(/^\d+ (months|years) old$/);
            const [n, unit] = words.split(' ') as [string, string];
            const months = roughMonths(changed, now);
            if (unit === 'months') expect(Math.abs(Number(n) - months), words).toBeLessThan(1.05);
            else expect(Number(n), words).toBe(Math.floor(months / 12));
            expect(item.beside, `${path} ${item.slug}`).toBe(` (${words})`);
            // The date it is beside, in New Zealand time: with its time and zone where the page shows one dataset.
            const date = path === '/rates' ? nzDate(changed) : nzTime(changed);
            expect(item.text, path).toContain(`last changed ${date} (${words})`);
          }
          expect(await provenance(page), path).toMatch(verdict);
          if (path === ratesPage(STALE) && url() === site.url)
            await page.screenshot({ path: join(SCREENSHOTS, `age-${size.width}.png`) });
          expect(errors, path).toEqual([]);
          await close();
        }
      }
    },
    180_000,
  );

  it('without JavaScript no age is printed (rather than a wrong one); without health, the age still is, by the date', async () => {
    for (const size of SIZES) {
      for (const [path] of PAGES) {
        const off = await open(browser(), `${site.url}${path}`, size, { javaScriptEnabled: false });
        await off.go();
        const said = await provenance(off.page);
        expect(said, path).toMatch(/as of \d{1,2} \w{3} 20\d\d/i);
        expect(said, path).not.toMatch(/\bold\b/);
        await off.close();

        const offline = await open(browser(), `${site.url}${path}`, size);
        await offline.context.route('**/api/v1/health', (route) => route.abort());
        await offline.go();
        await offline.page.locator('.freshness .age').first().waitFor({ state: 'attached' });
        const items = await datedItems(offline.page);
        for (const item of items) expect(item.beside, path).toBe(` (${age(changedAt(item.slug), new Date())})`);
        const words = await provenance(offline.page);
        expect(words, path).toMatch(/as of \d{1,2} \w{3} 20\d\d.* \(\d+ (months|years) old\)/i);
        expect(words, path).not.toMatch(/not being collected|today|stale/i);
        await offline.close();
      }
    }
  }, 180_000);
});

describe('the home page says "every hour" only where health says collection runs', () => {
  const browser = chromiumForTests();
  /** The hero's sentence and the page's description, once its script has read health. */
  async function homeSays(url: string, size: typeof PHONE, options: BrowserContextOptions = {}) {
    const { page, errors, close, go } = await open(browser(), `${url}/`, size, options);
    await go();
    if (options.javaScriptEnabled !== false) await filled(page);
    const hero = (await page.locator('.hero p').first().textContent())!.replace(/\s+/g, ' ');
    const description = (await page.locator('meta[name="description"]').getAttribute('content'))!;
    const body = await page.locator('main').innerText();
    await close();
    return { hero, description, body, errors };
  }

  it.each([
    ['with no collector (a fresh clone)', () => site.url],
    ['with one dataset stale', () => mixed.url],
    ['with every dataset stale', () => stale.url],
  ])(
    '%s: collected, kept as daily snapshots, with no cadence claimed',
    async (_, url) => {
      for (const size of SIZES) {
        const { hero, description, body, errors } = await homeSays(url(), size);
        expect(hero).toContain('interest.co.nz — collected from its pages, kept as daily snapshots');
        // No UTC date either: the one month it names is New Zealand's.
        expect(body).not.toMatch(/\d{4}-\d{2}-\d{2}|\bUTC\b/);
        expect(body).toMatch(/the oldest from \w+ 20\d\d/);
        expect(hero).not.toMatch(/every hour|hourly/i);
        expect(description).not.toMatch(/every hour|hourly/i);
        expect(errors).toEqual([]);
      }
    },
    60_000,
  );

  it('with every dataset checked within the hour: "every hour" and when it was last checked', async () => {
    for (const size of SIZES) {
      const { hero, errors } = await homeSays(fresh.url, size);
      expect(hero).toMatch(
        /interest\.co\.nz — collected from its pages every hour \(last checked \d+ minutes ago\), kept as daily snapshots/,
      );
      expect(errors).toEqual([]);
      // The built page claims nothing: without its script, no cadence either.
      const off = await homeSays(fresh.url, size, { javaScriptEnabled: false });
      expect(off.hero).not.toMatch(/every hour|hourly/i);
    }
  }, 60_000);
});

describe('/status never shows a state but fresh in the healthy colours', () => {
  const browser = chromiumForTests();
  interface Shown {
    state: string;
    word: string;
    colours: string[];
  }
  /** The banner and each dataset's card: its state, the word it says it in, and its colours (border, tint, the word's background). */
  async function statusShows(url: string, size: typeof PHONE) {
    const { page, errors, close, go } = await open(browser(), `${url}/status`, size);
    await go();
    const shown = await page.evaluate(() => {
      const colour = (e: Element, p: string) => getComputedStyle(e).getPropertyValue(p);
      const read = (box: HTMLElement, edge: HTMLElement) => {
        const word = box.querySelector<HTMLElement>('.state-word')!;
        return {
          state: box.dataset.state!,
          word: word.textContent!.trim(),
          colours: [
            colour(edge, 'border-left-color'),
            colour(edge, 'border-left-width') === '0px' ? '' : 'bordered',
            colour(box, 'background-color'),
            colour(word, 'background-color'),
            colour(word, 'color'),
          ],
        };
      };
      const banner = document.querySelector<HTMLElement>('.status-headline')!;
      const rows = [...document.querySelectorAll<HTMLElement>('.status-table tbody tr')].map((tr) => {
        const th = tr.querySelector('th')!;
        // A card's coloured edge is the row's on a phone, its heading cell's in the desktop's table.
        const edge = getComputedStyle(tr).borderLeftWidth !== '0px' ? tr : th;
        return { name: th.querySelector('a')!.textContent!, ...read(tr, edge) };
      });
      return {
        banner: read(banner, banner),
        rows,
        text: document.querySelector<HTMLElement>('.status-page')!.innerText,
      };
    });
    await page.screenshot({ path: join(SCREENSHOTS, `status-state-${new URL(url).port}-${size.width}.png`) });
    await close();
    return { ...shown, errors };
  }
  const healthy = (shown: Shown) => shown.colours.filter((c) => HEALTHY.includes(c));
  const edge = (shown: Shown) => shown.colours[0];

  it('with no collector: "Not collected here" in grey, on the banner and every card, and the served data’s age', async () => {
    for (const size of SIZES) {
      const { banner, rows, text, errors } = await statusShows(site.url, size);
      expect(banner.state).toBe('uncollected');
      expect(banner.word).toBe('Not collected here');
      expect(banner.colours[1]).toBe('bordered');
      expect(healthy(banner)).toEqual([]);
      expect(rows).toHaveLength(DATASETS.length);
      for (const row of rows) {
        expect([row.state, row.word], row.name).toEqual(['uncollected', 'Not collected here']);
        expect(row.colours[1], row.name).toBe('bordered');
        expect(healthy(row), row.name).toEqual([]);
      }
      for (const d of DATASETS) {
        const served = changedAt(d.slug);
        expect(text).toContain(`data collected ${nzTime(served)} (${age(served, new Date())});`);
      }
      expect(errors).toEqual([]);
    }
  }, 60_000);

  it('with every dataset stale: "Stale" in amber, on the banner and every card, its own colour, not grey', async () => {
    const plain = await statusShows(site.url, DESKTOP);
    for (const size of SIZES) {
      const { banner, rows, errors } = await statusShows(stale.url, size);
      expect([banner.state, banner.word]).toEqual(['stale', 'Stale']);
      expect(healthy(banner)).toEqual([]);
      expect(edge(banner)).not.toBe(edge(plain.banner));
      for (const row of rows) {
        expect([row.state, row.word], row.name).toEqual(['stale', 'Stale']);
        expect(healthy(row), row.name).toEqual([]);
      }
      expect(errors).toEqual([]);
    }
  }, 60_000);

  it('with one dataset stale: the banner follows it, and only the fresh cards are green', async () => {
    for (const size of SIZES) {
      const { banner, rows, errors } = await statusShows(mixed.url, size);
      expect([banner.state, banner.word]).toEqual(['stale', 'Stale']);
      expect(healthy(banner)).toEqual([]);
      for (const row of rows) {
        if (row.name === STALE.title) {
          expect([row.state, row.word]).toEqual(['stale', 'Stale']);
          expect(healthy(row)).toEqual([]);
        } else {
          expect([row.state, row.word], row.name).toEqual(['fresh', 'Fresh']);
          expect(edge(row), row.name).toBe(HEALTHY[0]);
        }
      }
      expect(errors).toEqual([]);
    }
  }, 60_000);

  it('with every dataset fresh: the banner and the cards in the healthy colour, and saying so', async () => {
    for (const size of SIZES) {
      const { banner, rows } = await statusShows(fresh.url, size);
      expect([banner.state, banner.word]).toEqual(['fresh', 'Fresh']);
      expect(banner.colours.slice(0, 4)).toEqual([HEALTHY[0], 'bordered', HEALTHY[1], HEALTHY[0]]);
      for (const row of rows) expect([row.state, edge(row)]).toEqual(['fresh', HEALTHY[0]]);
    }
  }, 60_000);

  it('says every date in New Zealand time, health’s UTC times in its problems too', async () => {
    const { text } = await statusShows(stale.url, DESKTOP);
    expect(text).toContain(`${STALE.slug}: no successful collection since`);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}|\bUTC\b/);
    expect(text).toMatch(
      new RegExp(
        `no successful collection since \\d{1,2} \\w{3} 20\\d\\d, \\d{1,2}:\\d{2} [ap]m NZ[DS]T \\(more than ${STALE_AFTER.words}\\)`,
      ),
    );
  }, 30_000);
});
