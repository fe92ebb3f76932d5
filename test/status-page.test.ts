/**
 * /status as people and caches see it, on the production build (`npm start`): rendered for each
 * request from the status store the hourly run writes, without JavaScript; what a server with no
 * collector says; and behind a shared cache keyed like a CDN (nginx, honouring Cache-Control).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { STATUS_PAGE_CACHE_CONTROL } from '../src/http/caching.ts';
import { parseHealthTime } from '../src/lib/time-words.ts';
import { nzTime } from '../src/status/report.ts';
import { type CollectionRun, RUN_LOG_LENGTH, RUN_LOG_MAX_BYTES } from '../src/status/run-log.ts';
import { chromiumForTests, visit } from './support/chromium.ts';
import { historyDir, tempDir } from './support/history.ts';
import { startNginx, type Running } from './support/nginx.ts';
import { buildAndServe, type ProductionSite, serveWithStatus } from './support/production.ts';
import type { ServerProcess } from './support/server-process.ts';

/** FRESH checked minutes ago and served; STALE not checked for two days, its last error kept; BEHIND collected a change this build does not serve. */
const [FRESH, STALE, ...REST] = DATASETS as unknown as [Dataset, Dataset, ...Dataset[]];
const BEHIND = REST.at(-1);
const MINUTE = 60_000;

let site: ProductionSite;
let collected: ServerProcess;
let health: { datasets: Record<string, { lastUpdated: string }> };
let runs: CollectionRun[];
let cache: Running;

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
/** The page's text: inline tags dropped, block tags a space, spaces collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<\/?(a|code|span|strong|time)\b[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
/** The HTML without Astro's scoping attributes. */
const plain = (html: string) => html.replace(/ data-astro-cid-\w+/g, '');

beforeAll(async () => {
  site = await buildAndServe({
    name: 'status-page',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
  health = await (await fetch(`${site.url}/api/v1/health`)).json();
  const served = (slug: string) => `${health.datasets[slug]!.lastUpdated.replace(' ', 'T')}.000Z`;

  // A second server on the same build, reading a status folder as the hourly run leaves it.
  const statusDir = await tempDir('rates-status-');
  const record = (checked: string, lastChanged: string, lastError: string | null = null) => ({
    lastChecked: checked,
    lastChanged,
    lastError,
    lastErrorAt: lastError ? ago(5 * MINUTE) : null,
  });
  for (const d of DATASETS) {
    const status =
      d === STALE
        ? record(ago(2 * 24 * 60 * MINUTE), served(d.slug), 'HTTP 503 from https://www.interest.co.nz')
        : d === BEHIND
          ? record(ago(12 * MINUTE), ago(2 * 60 * MINUTE))
          : record(ago(12 * MINUTE), served(d.slug));
    await writeFile(join(statusDir, `${d.slug}.json`), JSON.stringify(status));
  }
  const all = (outcome: 'ok' | 'unchanged') => Object.fromEntries(DATASETS.map((d) => [d.slug, { outcome }]));
  runs = [
    { at: ago(3 * 60 * MINUTE), outcome: 'unchanged', datasets: all('unchanged') },
    { at: ago(2 * 60 * MINUTE), outcome: 'ok', datasets: all('ok') },
    {
      at: ago(72 * MINUTE),
      outcome: 'refused',
      datasets: {
        ...all('unchanged'),
        [FRESH.slug]: { outcome: 'refused', reason: 'refused (no rate table): 0 tables' },
      },
    },
    {
      at: ago(12 * MINUTE),
      outcome: 'failed',
      datasets: {
        ...all('unchanged'),
        [STALE.slug]: { outcome: 'failed', reason: 'HTTP 503 from https://www.interest.co.nz' },
      },
    },
  ];
  await writeFile(join(statusDir, 'run-log.json'), JSON.stringify(runs));
  collected = await serveWithStatus(site, statusDir);
  // A shared cache in front of it, keyed on method and URL like Vercel's CDN.
  const origin = new URL(collected.url).host;
  cache = await startNginx(
    (port, dir) => `
  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=cdn:10m inactive=1d use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    location / {
      add_header X-Cache-Status $upstream_cache_status always;
      proxy_pass http://${origin};
      proxy_cache cdn;
      proxy_cache_key $request_method$request_uri;
    }
  }`,
  );
}, 240_000);

afterAll(async () => {
  await cache?.stop();
  await collected?.stop();
  await site?.stop();
});

describe('the status page of a deployment the hourly run reports to', () => {
  let response: Response;
  let html: string;
  let text: string;
  beforeAll(async () => {
    response = await fetch(`${collected.url}/status`);
    html = plain(await response.text());
    text = textOf(html);
  });

  it('is HTML rendered by the server, with no script needed to read it', () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    // Its words are in the HTML itself; no script of the page fetches health.
    expect(text).toContain(FRESH.title);
    expect(html).not.toMatch(/<script[^>]*src="[^"]*status/);
  });

  it('names each dataset, links its rates, and says when it was last checked and last changed, absolutely and "n minutes ago"', () => {
    for (const d of DATASETS) {
      expect(html).toContain(`<a href="/rates/${EXPLORER[d.slug].path}">${d.title}</a>`);
    }
    const row = (d: Dataset) => textOf(html.split(`>${d.title}</a>`)[1]!.split('</tr>')[0]!);
    const checked = nzTime(parseHealthTime(ago(12 * MINUTE)));
    expect(row(FRESH)).toMatch(/1[23] minutes ago/);
    expect(row(FRESH)).toContain(checked.slice(0, checked.indexOf(',')));
    expect(row(FRESH)).toContain('serves the newest collected data');
    expect(row(STALE)).toMatch(/2 days ago stale/);
    if (BEHIND) {
      expect(row(BEHIND)).toContain('2 hours ago');
      expect(row(BEHIND)).toContain('behind: a newer collection is not deployed');
    }
  });

  it('says what needs attention, in the sentences health gives machines', () => {
    expect(text).toContain('Something needs attention');
    expect(text).toContain(`${STALE.slug}: no successful collection since`);
    expect(text).toContain('HTTP 503 from https://www.interest.co.nz');
  });

  it('shows the recent runs as a strip, oldest first, and why a run refused or failed a dataset', () => {
    const strip = html.split('class="run-strip"')[1]!.split('</ol>')[0]!;
    expect([...strip.matchAll(/class="run run-(\w+)"/g)].map((m) => m[1])).toEqual(runs.map((r) => r.outcome));
    // Each cell says its time and outcome in words too, not by colour alone.
    for (const run of runs) expect(textOf(strip)).toContain(`${nzTime(new Date(run.at))}: ${run.outcome}`);
    expect(text).toContain(`The newest ${runs.length} of the ${runs.length} runs kept (at most ${RUN_LOG_LENGTH})`);
    expect(text).toContain(`${STALE.title}: failed: HTTP 503 from https://www.interest.co.nz`);
    expect(text).toContain(`${FRESH.title}: refused: refused (no rate table): 0 tables`);
    // Newest first in the list of problems.
    expect(text.indexOf(`${STALE.title}: failed`)).toBeLessThan(text.indexOf(`${FRESH.title}: refused`));
  });

  it("shows thirty days' reliability: a server-drawn chart with its text alternative, and each dataset's figures in a table", () => {
    const section = html.split('id="reliability"')[1]!.split('<h2')[0]!;
    const svg = section.split('<svg')[1]!.split('</svg>')[0]!;
    expect(svg).toContain('role="img"');
    expect(svg).toMatch(
      /<title id="reliability-chart-title">Each dataset's hourly runs over the last 30 days<\/title>/,
    );
    // One mark per run of each dataset, in the outcome's colour.
    expect([...svg.matchAll(/<rect /g)].length).toBe(runs.length * DATASETS.length);
    expect(svg).toContain(`${FRESH.title}: 3 of 4 runs succeeded, 1 refused, 0 failed.`);
    const row = (d: Dataset) => textOf(section.split(`data-reliability="${d.slug}"`)[1]!.split('</tr>')[0]!);
    // Runs 3 h, 2 h, 72 and 12 minutes ago: FRESH refused in the third (its rule read from the reason), STALE failed in the fourth.
    expect(row(FRESH)).toContain(
      `${FRESH.title} 75 % (3 of 4) 12 minutes 1.8 hours no rate table: 1 not recorded not recorded`,
    );
    expect(row(STALE)).toContain(`${STALE.title} 75 % (3 of 4) 1.2 hours 1 hour none not recorded not recorded`);
  });

  it('marks its link in the header as the current page', () => {
    expect(html).toMatch(/<a href="\/status" aria-current="page"[^>]*>Status<\/a>/);
  });
});

describe('the status page over what an older build stored (issue 34: bounded, clean reasons)', () => {
  /** A page title no page should have: an ANSI colour, a workflow command on its own line, a bidi override, a zero-width space. */
  const dirty = 'Rates\u001b[31m\n::error::spoofed\u202eevil\u200b ';
  const title = (chars: number) => dirty.repeat(Math.ceil(chars / dirty.length));
  const reason = (chars: number) => `refused (the page title is ${title(chars)})`;
  let dir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    dir = await tempDir('rates-status-');
    for (const d of DATASETS) {
      const lastError = d === STALE ? reason(1_000_000) : null;
      const checked = ago((d === STALE ? 48 * 60 : 12) * MINUTE);
      const status = {
        lastChecked: checked,
        lastChanged: null,
        lastError,
        lastErrorAt: lastError ? ago(MINUTE) : null,
      };
      await writeFile(join(dir, `${d.slug}.json`), JSON.stringify(status));
    }
    server = await serveWithStatus(site, dir);
  }, 60_000);
  afterAll(() => server?.stop());

  const page = async () => {
    const html = await (await fetch(`${server.url}/status`)).text();
    return { html, text: textOf(html) };
  };

  it('quotes each stored reason clean and cut to 2,000 characters: a 1 MB title makes no 1 MB page', async () => {
    const failed = { outcome: 'failed', reason: reason(100_000) };
    const log = [{ at: ago(30 * MINUTE), outcome: 'failed', datasets: { [STALE.slug]: failed, [FRESH.slug]: failed } }];
    await writeFile(join(dir, 'run-log.json'), JSON.stringify(log));
    const { html, text } = await page();
    expect(html.length).toBeLessThan(60_000);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that there are none.
    expect(html).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u202e]/);
    // Health's sentence, then the reason it quotes, cut (the ellipsis ends it).
    const problem = text.split(`${STALE.slug}: no successful collection since`)[1]!.split('…')[0]!;
    expect(problem).toContain('The last error');
    expect(problem.length).toBeLessThan(2_100);
    for (const d of [STALE, FRESH]) {
      const line = text.split(`${d.title}: failed: `)[1]!.split('…')[0]!;
      expect(line.startsWith('refused (the page title is Rates [31m ::error::spoofed evil')).toBe(true);
      expect(line.length).toBeLessThan(2_000);
    }
  });

  it('says in one short, clean sentence that a run log past its byte bound could not be read', async () => {
    const failed = { outcome: 'failed', reason: reason(RUN_LOG_MAX_BYTES + 1_000_000) };
    await writeFile(
      join(dir, 'run-log.json'),
      JSON.stringify([{ at: ago(MINUTE), outcome: 'failed', datasets: { [STALE.slug]: failed } }]),
    );
    const { html, text } = await page();
    expect(text).toContain(
      `The run log could not be read (run-log.json is larger than ${RUN_LOG_MAX_BYTES.toLocaleString('en')} bytes).`,
    );
    expect(html.length).toBeLessThan(60_000);
  });
});

describe('the status page in headless Chromium', () => {
  const browser = chromiumForTests();
  it.each([
    [390, 844],
    [1280, 900],
  ])('reads at %i px wide with no sideways scrolling and no console errors', async (width) => {
    const { page, errors, shot } = await visit(browser(), `${collected.url}/status`, width);
    try {
      await shot(`status-${width}.png`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('the status page of a server with no collector', () => {
  it('says so plainly in words for the public (no command to run), and when each dataset last changed, as its rates pages do', async () => {
    const response = await fetch(`${site.url}/status`);
    const html = await response.text();
    const text = textOf(html);
    expect(response.status).toBe(200);
    expect(text).toContain('Serving the committed snapshots: no collector reports here');
    expect(text).toContain('No collection run has been recorded here');
    // The public is told what it means, not what an operator would run.
    expect(text).not.toContain('npm run collect');
    expect(text).not.toContain('STATUS_DIR');
    expect(text).toContain('No collection is recorded on this site, so it cannot say when the rates were last checked');
    // No figures shown as success: the reliability section says there are none.
    const reliability = textOf(html.split('id="reliability"')[1]!.split('<h2')[0]!);
    expect(reliability).toContain('Without recorded runs there are no reliability figures.');
    expect(reliability).not.toMatch(/%/);
    expect(reliability).not.toContain('npm run collect');
    for (const d of DATASETS) {
      const served = nzTime(parseHealthTime(health.datasets[d.slug]!.lastUpdated));
      // "Last changed" is the served data's collection, the "when these rates last changed" of the rates pages.
      expect(text).toContain(`${d.title} never recorded here ${served}`);
      expect(text).toContain(`data collected ${served}`);
    }
  });
});

describe('the status page behind a shared cache', () => {
  it('is kept by shared caches for at most a minute and by browsers not at all, with nothing that splits or poisons the cache', async () => {
    const first = await fetch(`${cache.url}/status`);
    const firstBody = await first.text();
    const second = await fetch(`${cache.url}/status`);
    const secondBody = await second.text();
    expect(first.headers.get('x-cache-status')).toBe('MISS');
    expect(second.headers.get('x-cache-status')).toBe('HIT');
    expect(secondBody).toBe(firstBody);
    expect(second.headers.get('cache-control')).toBe(STATUS_PAGE_CACHE_CONTROL);
    expect(STATUS_PAGE_CACHE_CONTROL).toMatch(/(^|, )max-age=0(,|$)/);
    expect(Number(/s-maxage=(\d+)/.exec(STATUS_PAGE_CACHE_CONTROL)?.[1])).toBeLessThanOrEqual(60);
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(first.headers.get('vary') ?? '').not.toMatch(/cookie|x-request-id|\*/i);
    // A cached copy says when it was true.
    expect(firstBody).toMatch(/as of <time datetime="\d{4}-\d{2}-\d{2}T/);
  });

  it('health and the status figures, the machine views, are never kept: a cache asks the server each time', async () => {
    for (const path of ['/api/v1/health', '/api/v1/status']) {
      await fetch(`${cache.url}${path}`);
      const again = await fetch(`${cache.url}${path}`);
      expect(again.headers.get('x-cache-status'), path).not.toBe('HIT');
      expect(again.status, path).toBe(200);
    }
  });
});
