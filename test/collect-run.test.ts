import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect, type CollectOptions } from '../src/collect/collect.ts';
import { MAX_PAGE_BYTES } from '../src/collect/fetch-page.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { headerRow, renderSourcePage, type RenderOptions } from './fixtures/source-page.ts';
import { NEWEST, ROOT } from './support/constants.ts';
import {
  historyDir,
  newestSnapshots,
  type SnapshotFile,
  tempDir,
  treeOfNewest,
  withAnzSpecial,
} from './support/history.ts';
import { serveSourcePages, startSourceServer, type SourceServer } from './support/source-server.ts';

const FAST = { timeoutMs: 400, retries: 2, retryDelayMs: 5 };
const PATHS = Object.fromEntries(DATASETS.map((d) => [d.slug, d.sourcePath])) as Record<DatasetSlug, string>;

let server: SourceServer;
let newest: Record<DatasetSlug, SnapshotFile>;
let snapshots: string;
let status: FileStatusStore;
let clock: Date;

const readText = (slug: string, date: string) => readFile(join(snapshots, slug, `${date}.json`), 'utf8');
const filesOf = async (slug: string) => (await readdir(join(snapshots, slug)).catch(() => [])).sort();

/** The source pages of the newest data, `data` replacing a dataset's. */
function servePages(options: RenderOptions = {}, data: Partial<Record<DatasetSlug, any[]>> = {}) {
  serveSourcePages(server, (slug) => data[slug] ?? newest[slug].data, options);
}

function run(extra: Partial<CollectOptions> = {}) {
  return collect({ baseUrl: server.url, snapshotsDir: snapshots, status, now: () => clock, fetch: FAST, ...extra });
}

/** The newest mortgage data with ANZ's Special 1-year rate set to `value`. */
const mortgageWithAnzSpecial = (value: number) => withAnzSpecial(newest['mortgage-rates'].data, value);

beforeAll(async () => {
  server = await startSourceServer();
  newest = await newestSnapshots();
});
afterAll(() => server.close());

beforeEach(async () => {
  snapshots = await treeOfNewest();
  status = new FileStatusStore(await tempDir('rates-status-'));
  clock = new Date('2026-11-21T03:00:00.000Z');
  server.requests.length = 0;
  servePages();
});

describe('a normal run', () => {
  it('collects all four datasets into an empty tree, one file each dated by the UTC collection date', async () => {
    snapshots = await tempDir('rates-empty-');
    const results = await run();
    expect(results.map((r) => [r.dataset.slug, r.outcome])).toEqual(DATASETS.map((d) => [d.slug, 'written']));
    for (const d of DATASETS) {
      expect(await filesOf(d.slug)).toEqual(['2026-11-21.json']);
      const written = JSON.parse(await readText(d.slug, '2026-11-21'));
      expect(written).toEqual({ type: d.type, data: newest[d.slug].data, lastUpdated: '2026-11-21T03:00:00.000Z' });
      expect(await status.read(d.slug)).toEqual({
        lastChecked: '2026-11-21T03:00:00.000Z',
        lastChanged: '2026-11-21T03:00:00.000Z',
        lastError: null,
        lastErrorAt: null,
      });
    }
    expect(server.requests.every((r) => r.userAgent?.startsWith('nz-rates-service/'))).toBe(true);
  });

  it('an unchanged run writes nothing, still moves lastChecked, and records when the newest snapshot was collected', async () => {
    const before = await Promise.all(DATASETS.map((d) => readText(d.slug, NEWEST[d.slug])));
    const results = await run();
    expect(results.map((r) => r.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    for (const [i, d] of DATASETS.entries()) {
      expect(await filesOf(d.slug)).toEqual([`${NEWEST[d.slug]}.json`]);
      expect(await readText(d.slug, NEWEST[d.slug])).toBe(before[i]);
      expect((await status.read(d.slug))?.lastChecked).toBe('2026-11-21T03:00:00.000Z');
      const newestSnapshot = JSON.parse(before[i]!);
      expect((await status.read(d.slug))?.lastChanged).toBe(newestSnapshot.lastUpdated);
    }
  });

  it('after a rolled-back snapshot, the next unchanged run moves lastChanged back to the restored snapshot', async () => {
    servePages({}, { 'mortgage-rates': mortgageWithAnzSpecial(4.69) });
    await run({ datasets: ['mortgage-rates'] });
    expect((await status.read('mortgage-rates'))?.lastChanged).toBe('2026-11-21T03:00:00.000Z');
    // The operator removes the bad file; the source shows the earlier rates again.
    await rm(join(snapshots, 'mortgage-rates', '2026-11-21.json'));
    servePages();
    clock = new Date('2026-11-21T04:00:00.000Z');
    const [again] = await run({ datasets: ['mortgage-rates'] });
    expect(again!.outcome).toBe('unchanged');
    const restored = JSON.parse(await readText('mortgage-rates', '2025-03-05'));
    expect(await status.read('mortgage-rates')).toMatchObject({
      lastChecked: '2026-11-21T04:00:00.000Z',
      lastChanged: restored.lastUpdated,
    });
  });

  it('a change makes a new file for the date; a second change that date replaces it; the next date gets its own', async () => {
    servePages({}, { 'mortgage-rates': mortgageWithAnzSpecial(4.69) });
    const [first] = await run({ datasets: ['mortgage-rates'] });
    expect(first!.outcome).toBe('written');
    expect(first!.changes!.lines).toContain('- ANZ · Special · 1 year: 5.29 → 4.69');
    expect(first!.changes!.moves).toBe(1);
    expect(await filesOf('mortgage-rates')).toEqual(['2025-03-05.json', '2026-11-21.json']);

    clock = new Date('2026-11-21T23:59:00.000Z');
    servePages({}, { 'mortgage-rates': mortgageWithAnzSpecial(4.59) });
    const [second] = await run({ datasets: ['mortgage-rates'] });
    expect(second!.outcome).toBe('replaced');
    expect(second!.changes!.lines).toContain('- ANZ · Special · 1 year: 4.69 → 4.59');
    expect(await filesOf('mortgage-rates')).toEqual(['2025-03-05.json', '2026-11-21.json']);
    const replaced = JSON.parse(await readText('mortgage-rates', '2026-11-21'));
    expect(replaced.lastUpdated).toBe('2026-11-21T23:59:00.000Z');
    expect(
      replaced.data[0].products.find((p: any) => p.name === 'Special').rates.find((r: any) => r.termInMonths === 12)
        .rate,
    ).toBe(4.59);

    clock = new Date('2026-11-22T00:00:01.000Z');
    const [same] = await run({ datasets: ['mortgage-rates'] });
    expect(same!.outcome).toBe('unchanged');
    servePages({}, { 'mortgage-rates': mortgageWithAnzSpecial(4.49) });
    const [third] = await run({ datasets: ['mortgage-rates'] });
    expect(third!.outcome).toBe('written');
    expect(await filesOf('mortgage-rates')).toEqual(['2025-03-05.json', '2026-11-21.json', '2026-11-22.json']);
    expect(await readText('mortgage-rates', '2025-03-05')).toBe(
      await readFile(join(historyDir(), 'mortgage-rates', '2025-03-05.json'), 'utf8'),
    );
  });
});

describe('faults over real sockets', () => {
  async function expectNothingWritten(slug: DatasetSlug) {
    expect(await filesOf(slug)).toEqual([`${NEWEST[slug]}.json`]);
    expect(await readText(slug, NEWEST[slug])).toBe(
      await readFile(join(historyDir(), slug, `${NEWEST[slug]}.json`), 'utf8'),
    );
    const recorded = await status.read(slug);
    expect(recorded?.lastChecked).toBeNull();
    expect(recorded?.lastErrorAt).toBe('2026-11-21T03:00:00.000Z');
    return recorded!.lastError!;
  }

  it('a 500 then the page: retried, and collected', async () => {
    server.serve(
      PATHS['car-loan-rates'],
      { status: 500 },
      { page: renderSourcePage('car-loan-rates', newest['car-loan-rates'].data) },
    );
    const [result] = await run({ datasets: ['car-loan-rates'] });
    expect(result!.outcome).toBe('unchanged');
    expect(server.requests.filter((r) => r.path === PATHS['car-loan-rates'])).toHaveLength(2);
    expect((await status.read('car-loan-rates'))?.lastChecked).toBe('2026-11-21T03:00:00.000Z');
  });

  it.each([
    ['a server that never answers', { hang: true } as const, /no answer within 400 ms/],
    ['a reset connection', { reset: true } as const, /ECONNRESET|socket|terminated|other side closed/i],
    ['a page cut short', { truncate: 'x'.repeat(4000) } as const, /cut short|terminated|closed/i],
    ['HTTP 503', { status: 503 } as const, /HTTP 503/],
  ])('%s: retried, then refused; the newest snapshot stays byte-identical', async (_, behaviour, reason) => {
    server.serve(PATHS['personal-loan-rates'], behaviour);
    const [result] = await run({ datasets: ['personal-loan-rates'] });
    expect(result!.outcome).toBe('failed');
    expect(result!.reason).toMatch(reason);
    expect(server.requests.filter((r) => r.path === PATHS['personal-loan-rates'])).toHaveLength(FAST.retries + 1);
    expect(await expectNothingWritten('personal-loan-rates')).toMatch(reason);
  });

  it('a reset then the page: collected', async () => {
    server.serve(
      PATHS['credit-card-rates'],
      { reset: true },
      { page: renderSourcePage('credit-card-rates', newest['credit-card-rates'].data) },
    );
    const [result] = await run({ datasets: ['credit-card-rates'] });
    expect(result!.outcome).toBe('unchanged');
  });

  it('a 404 is not retried', async () => {
    server.serve(PATHS['mortgage-rates'], { status: 404 });
    const [result] = await run({ datasets: ['mortgage-rates'] });
    expect(result!.outcome).toBe('failed');
    expect(server.requests).toHaveLength(1);
    await expectNothingWritten('mortgage-rates');
  });

  it('a page whose layout changed (no rate table) is refused', async () => {
    server.serve(PATHS['mortgage-rates'], {
      page: '<html><body><h1>Mortgage rates</h1><div class="new-grid">5.99</div></body></html>',
    });
    const [result] = await run({ datasets: ['mortgage-rates'] });
    expect(result!.reason).toMatch(/no rate table/);
    await expectNothingWritten('mortgage-rates');
  });

  it('a page with tables but no rates is refused', async () => {
    server.serve(PATHS['car-loan-rates'], {
      page: `<title>Car loans</title><table class="interest_financial_datatable">${headerRow('car-loan-rates')}<tbody><tr><td>ANZ</td><td>Loan</td><td></td><td></td><td>-</td></tr></tbody></table>`,
    });
    const [result] = await run({ datasets: ['car-loan-rates'] });
    expect(result!.reason).toMatch(/no rates/);
    await expectNothingWritten('car-loan-rates');
  });

  it('sections missing: refused below half of the newest snapshot; the threshold is configurable', async () => {
    servePages({ dropSections: [1, 2, 3] });
    const [shrunk] = await run({ datasets: ['mortgage-rates'] });
    expect(shrunk!.reason).toMatch(/only \d+ institutions where the newest snapshot has 34 \(below 50 %\)/);
    await expectNothingWritten('mortgage-rates');

    servePages({ dropSections: [3] });
    expect((await run({ datasets: ['mortgage-rates'] }))[0]!.outcome).not.toBe('failed');
    servePages({ dropSections: [3] });
    const [strict] = await run({ datasets: ['car-loan-rates'], minRatio: 0.9 });
    expect(strict!.reason).toMatch(/below 90 %/);
  });

  it('a rate outside 0–40 % is refused', async () => {
    servePages({}, { 'mortgage-rates': mortgageWithAnzSpecial(52.9) });
    const [result] = await run({ datasets: ['mortgage-rates'] });
    expect(result!.reason).toMatch(
      /^refused \(does not fit the schema\): data\[\d+\]\.products\[\d+\]\.rates\[\d+\]\.rate \(rate:anz:special:1-year rate = 52\.9\): Too big: expected number to be <=40/,
    );
    await expectNothingWritten('mortgage-rates');
  });

  it('a page larger than 4 MiB is refused unread, and not fetched again', async () => {
    server.serve(PATHS['mortgage-rates'], { page: `<title>Mortgage rates</title>${' '.repeat(MAX_PAGE_BYTES + 1)}` });
    const [result] = await run({ datasets: ['mortgage-rates'] });
    expect(result!.reason).toMatch(/larger than 4194304 bytes/);
    expect(server.requests).toHaveLength(1);
    await expectNothingWritten('mortgage-rates');
  });

  it('an unreadable newest snapshot is not overwritten', async () => {
    await writeFile(join(snapshots, 'car-loan-rates', '2025-02-24.json'), '{"type": "CarLoanRates", "da');
    const [result] = await run({ datasets: ['car-loan-rates'] });
    expect(result!.outcome).toBe('failed');
    expect(result!.reason).toMatch(/newest snapshot is unreadable/);
    expect(await readText('car-loan-rates', '2025-02-24')).toBe('{"type": "CarLoanRates", "da');
  });

  it('one dataset failing leaves the others to proceed', async () => {
    servePages({}, { 'mortgage-rates': mortgageWithAnzSpecial(4.69) });
    server.serve(PATHS['credit-card-rates'], { status: 500 });
    const results = await run();
    expect(results.map((r) => r.outcome)).toEqual(['written', 'unchanged', 'unchanged', 'failed']);
    await expectNothingWritten('credit-card-rates');
    expect((await status.read('mortgage-rates'))?.lastChecked).toBe('2026-11-21T03:00:00.000Z');
  });
});

describe('npm run collect', () => {
  const exec = promisify(execFile);
  const cli = (args: string[], env: Record<string, string> = {}) =>
    exec('npm', ['run', '--silent', 'collect', '--', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        INTEREST_BASE_URL: server.url,
        SNAPSHOTS_DIR: snapshots,
        STATUS_DIR: status.dir,
        COLLECT_TIMEOUT_MS: '400',
        COLLECT_RETRIES: '1',
        COLLECT_RETRY_DELAY_MS: '5',
        ...env,
      },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );

  it('exits 0, prints a line per dataset and writes the summary for the commit message', async () => {
    servePages({}, { 'mortgage-rates': mortgageWithAnzSpecial(4.69) });
    const summaryFile = join(await tempDir(), 'summary.md');
    const { code, stdout } = await cli(['--summary-file', summaryFile]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /mortgage-rates: changed, wrote mortgage-rates\/\d{4}-\d{2}-\d{2}\.json \(34 institutions, \d+ rates\), 1 value\(s\) moved in \d+ ms/,
    );
    expect(stdout).toMatch(/car-loan-rates: unchanged \(\d+ institutions, \d+ rates\) in \d+ ms/);
    expect(stdout).toContain('collect: 1 changed, 3 unchanged, 0 failed');
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary.split('\n')[0]).toMatch(/^Rates \d{4}-\d{2}-\d{2}: mortgage rates \(1 moved\)$/);
    expect(summary).toContain('- ANZ · Special · 1 year: 5.29 → 4.69');
  });

  it('an unreadable cell is a warning in the output and in the summary; the rest of the page is collected', async () => {
    const page = renderSourcePage('mortgage-rates', mortgageWithAnzSpecial(4.69), { quirks: false });
    // The first Special floating rate of the page (Bank of China's), as the page might misprint it.
    const misprinted = page.replace(/(<td>Special<\/td><td>)([\d.]+%)/, '$1see note 3');
    expect(misprinted).not.toBe(page);
    server.serve(PATHS['mortgage-rates'], { page: misprinted });
    const summaryFile = join(await tempDir(), 'summary.md');
    const { code, stdout } = await cli(['--dataset', 'mortgage-rates', '--summary-file', summaryFile]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'mortgage-rates: warning: unreadable cell Bank of China · Special · Variable floating: "see note 3"',
    );
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary).toContain('- ANZ · Special · 1 year: 5.29 → 4.69');
    expect(summary).toContain(
      'Unreadable cells (1, left out):\n\n- Bank of China · Special · Variable floating: "see note 3"',
    );
  });

  it('--dataset limits the run; a failed dataset makes the exit code 1', async () => {
    server.serve(PATHS['credit-card-rates'], { status: 500 });
    const { code, stdout } = await cli(['--dataset', 'credit-card-rates']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/credit-card-rates: FAILED: HTTP 500 .*; nothing written, the newest snapshot is kept/);
    expect(server.requests.every((r) => r.path === PATHS['credit-card-rates'])).toBe(true);
  });

  it('an unknown dataset is a usage error', async () => {
    const { code, stderr } = await cli(['--dataset', 'savings']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown dataset "savings"');
  });
});
