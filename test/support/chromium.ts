/** Headless Chromium (the system's /usr/bin/chromium, driven by playwright-core) for the page tests. */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ROOT } from './constants.ts';

/** Where the page tests leave their screenshots. */
export const SCREENSHOTS = resolve(ROOT, '.builds', 'screenshots');

export async function launchChromium(): Promise<Browser> {
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Chromium for the tests of the calling describe block: launched before them, closed after; the getter gives it. */
export function chromiumForTests(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());
  return () => browser!;
}

export interface Visit {
  page: Page;
  /** Console errors and uncaught page errors, as they happen. */
  errors: string[];
  /** Screenshot of the viewport into SCREENSHOTS/`file`. */
  shot(file: string): Promise<Buffer>;
}

/** Open `url` in a new page `width` pixels wide (900 high) and wait until the network is idle. */
export async function visit(browser: Browser, url: string, width = 1280): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'networkidle' });
  return { page, errors, shot: (file) => page.screenshot({ path: join(SCREENSHOTS, file), fullPage: false }) };
}

export interface Opened {
  page: Page;
  /** Console errors and uncaught page errors, as they happen. */
  errors: string[];
  /** Closes the page's context. */
  close(): Promise<void>;
}

/** `url` in a fresh context of `size` (and `options`, e.g. JavaScript off), loaded until the network is idle. */
export async function openInContext(
  browser: Browser,
  url: string,
  size: { width: number; height: number },
  options: BrowserContextOptions = {},
): Promise<Opened> {
  const context = await browser.newContext({ viewport: size, ...options });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'networkidle' });
  return { page, errors, close: () => context.close() };
}
