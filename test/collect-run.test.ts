import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect, type CollectOptions } from '../src/collect/collect.ts';
import { MAX_PAGE_BYTES } from '../src/collect/fetch-page.ts';
import { rateValues } from '../src/collect/guards.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { headerRow, renderSourcePage, type RenderOptions } from './fixtures/source-page.ts';
import { ROOT } from './support/constants.ts';
import { EACH } from './support/datasets.ts';
import {
  allRates,
  firstRate,
  historyDir,
  moveLine,
  type RateAt,
  newestDates,
  newestSnapshots,
  type SnapshotFile,
  tempDir,
  treeOfNewest,
  withFirstRate,
  withFirstRateMoved,
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

/** Nothing was written for the dataset and its newest snapshot is the same bytes; the error it recorded. */
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

function run(extra: Partial<CollectOptions> = {}) {
  return collect({ baseUrl: server.url, snapshotsDir: snapshots, status, now: () => clock, fetch: FAST, ...extra });
}

/** The first dataset and the last: a run's tests need one dataset, or two that fare differently. */
const A = DATASETS[0];
const B = DATASETS.at(-1)!;
const NEWEST = newestDates();
/** A dataset's newest data with its first rate moved by `delta` points. */
const moved = (slug: DatasetSlug, delta: number) => withFirstRateMoved(newest[slug].data, delta);
/** The summary line of a rate's move, to find among the lines. */
const moveLineOf = (rate: RateAt, from: number, to: number) => expect.stringMatching(moveLine(rate, from, to));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
  it('collects every dataset into an empty tree, one file each dated by the UTC collection date', async () => {
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
    expect(results.map((r) => r.outcome)).toEqual(DATASETS.map(() => 'unchanged'));
    for (const [i, d] of DATASETS.entries()) {
      expect(await filesOf(d.slug)).toEqual([`${NEWEST[d.slug]}.json`]);
      expect(await readText(d.slug, NEWEST[d.slug])).toBe(before[i]);
      expect((await status.read(d.slug))?.lastChecked).toBe('2026-11-21T03:00:00.000Z');
      const newestSnapshot = JSON.parse(before[i]!);
      expect((await status.read(d.slug))?.lastChanged).toBe(newestSnapshot.lastUpdated);
    }
  });
});

describe.each(EACH)('%s: a change', (slug) => {
  it('after a rolled-back snapshot, the next unchanged run moves lastChanged back to the restored snapshot', async () => {
    servePages({}, { [slug]: moved(slug, 0.6).data });
    await run({ datasets: [slug] });
    expect((await status.read(slug))?.lastChanged).toBe('2026-11-21T03:00:00.000Z');
    // The operator removes the bad file; the source shows the earlier rates again.
    await rm(join(snapshots, slug, '2026-11-21.json'));
    servePages();
    clock = new Date('2026-11-21T04:00:00.000Z');
    const [again] = await run({ datasets: [slug] });
    expect(again!.outcome).toBe('unchanged');
    const restored = JSON.parse(await readText(slug, NEWEST[slug]));
    expect(await status.read(slug)).toMatchObject({
      lastChecked: '2026-11-21T04:00:00.000Z',
      lastChanged: restored.lastUpdated,
    });
  });

  it('a change makes a new file for the date; a second change that date replaces it; the next date gets its own', async () => {
    const once = moved(slug, 0.6);
    servePages({}, { [slug]: once.data });
    const [first] = await run({ datasets: [slug] });
    expect(first!.outcome).toBe('written');
    expect(first!.changes!.lines).toContainEqual(moveLineOf(once.first, once.first.value, once.value));
    expect(first!.changes!.moves).toBe(1);
    expect(await filesOf(slug)).toEqual([`${NEWEST[slug]}.json`, '2026-11-21.json']);

    clock = new Date('2026-11-21T23:59:00.000Z');
    const twice = moved(slug, 0.7);
    servePages({}, { [slug]: twice.data });
    const [second] = await run({ datasets: [slug] });
    expect(second!.outcome).toBe('replaced');
    expect(second!.changes!.lines).toContainEqual(moveLineOf(once.first, once.value, twice.value));
    expect(await filesOf(slug)).toEqual([`${NEWEST[slug]}.json`, '2026-11-21.json']);
    const replaced = JSON.parse(await readText(slug, '2026-11-21'));
    expect(replaced.lastUpdated).toBe('2026-11-21T23:59:00.000Z');
    expect(firstRate(replaced.data).value).toBe(twice.value);

    clock = new Date('2026-11-22T00:00:01.000Z');
    const [same] = await run({ datasets: [slug] });
    expect(same!.outcome).toBe('unchanged');
    servePages({}, { [slug]: moved(slug, 0.8).data });
    const [third] = await run({ datasets: [slug] });
    expect(third!.outcome).toBe('written');
    expect(await filesOf(slug)).toEqual([`${NEWEST[slug]}.json`, '2026-11-21.json', '2026-11-22.json']);
    expect(await readText(slug, NEWEST[slug])).toBe(
      await readFile(join(historyDir(), slug, `${NEWEST[slug]}.json`), 'utf8'),
    );
  });

  it('a rate outside 0–40 % is refused', async () => {
    const { first } = moved(slug, 0);
    servePages({}, { [slug]: withFirstRate(newest[slug].data, 52.9) });
    const [result] = await run({ datasets: [slug] });
    expect(result!.reason).toMatch(
      new RegExp(
        `^refused \\(does not fit the schema\\): data\\[\\d+\\]\\.\\S+ \\(${escapeRegExp(first.id)} ${first.key} = 52\\.9\\): Too big: expected number to be <=40`,
      ),
    );
    await expectNothingWritten(slug);
  });
});

describe('faults over real sockets', () => {
  it('a 500 then the page: retried, and collected', async () => {
    server.serve(PATHS[B.slug], { status: 500 }, { page: renderSourcePage(B.slug, newest[B.slug].data) });
    const [result] = await run({ datasets: [B.slug] });
    expect(result!.outcome).toBe('unchanged');
    expect(server.requests.filter((r) => r.path === PATHS[B.slug])).toHaveLength(2);
    expect((await status.read(B.slug))?.lastChecked).toBe('2026-11-21T03:00:00.000Z');
  });

  it.each([
    ['a server that never answers', { hang: true } as const, /no answer within 400 ms/],
    ['a reset connection', { reset: true } as const, /ECONNRESET|socket|terminated|other side closed/i],
    ['a page cut short', { truncate: 'x'.repeat(4000) } as const, /cut short|terminated|closed/i],
    ['HTTP 503', { status: 503 } as const, /HTTP 503/],
  ])('%s: retried, then refused; the newest snapshot stays byte-identical', async (_, behaviour, reason) => {
    server.serve(PATHS[A.slug], behaviour);
    const [result] = await run({ datasets: [A.slug] });
    expect(result!.outcome).toBe('failed');
    expect(result!.reason).toMatch(reason);
    expect(server.requests.filter((r) => r.path === PATHS[A.slug])).toHaveLength(FAST.retries + 1);
    expect(await expectNothingWritten(A.slug)).toMatch(reason);
  });

  it('a reset then the page: collected', async () => {
    server.serve(PATHS[B.slug], { reset: true }, { page: renderSourcePage(B.slug, newest[B.slug].data) });
    const [result] = await run({ datasets: [B.slug] });
    expect(result!.outcome).toBe('unchanged');
  });

  it('a 404 is not retried', async () => {
    server.serve(PATHS[A.slug], { status: 404 });
    const [result] = await run({ datasets: [A.slug] });
    expect(result!.outcome).toBe('failed');
    expect(server.requests).toHaveLength(1);
    await expectNothingWritten(A.slug);
  });

  it('a page whose layout changed (no rate table) is refused', async () => {
    server.serve(PATHS[A.slug], {
      page: `<html><body><h1>${A.slug} | interest.co.nz</h1><div class="new-grid">5.99</div></body></html>`,
    });
    const [result] = await run({ datasets: [A.slug] });
    expect(result!.reason).toMatch(/no rate table/);
    await expectNothingWritten(A.slug);
  });

  it('a page with tables but no rates is refused', async () => {
    const columns = headerRow(B.slug).split('<th>').length - 1;
    server.serve(PATHS[B.slug], {
      page: `<title>${B.slug} | interest.co.nz</title><table class="interest_financial_datatable">${headerRow(B.slug)}<tbody><tr><td>ANZ</td><td>Loan</td>${'<td>-</td>'.repeat(columns - 2)}</tr></tbody></table>`,
    });
    const [result] = await run({ datasets: [B.slug] });
    expect(result!.reason).toMatch(/no rates/);
    await expectNothingWritten(B.slug);
  });

  it('sections missing: refused below half of the newest snapshot; the threshold is configurable', async () => {
    servePages({ dropSections: [1, 2, 3] });
    const [shrunk] = await run({ datasets: [A.slug] });
    expect(shrunk!.reason).toMatch(
      new RegExp(`only \\d+ institutions where the newest snapshot has ${newest[A.slug].data.length} \\(below 50 %\\)`),
    );
    await expectNothingWritten(A.slug);

    servePages({ dropSections: [3] });
    expect((await run({ datasets: [A.slug] }))[0]!.outcome).not.toBe('failed');
    servePages({ dropSections: [3] });
    const [strict] = await run({ datasets: [B.slug], minRatio: 0.9 });
    expect(strict!.reason).toMatch(/below 90 %/);
  });

  it('a page larger than 4 MiB is refused unread, and not fetched again', async () => {
    server.serve(PATHS[A.slug], { page: `<title>${A.slug} | interest.co.nz</title>${' '.repeat(MAX_PAGE_BYTES + 1)}` });
    const [result] = await run({ datasets: [A.slug] });
    expect(result!.reason).toMatch(new RegExp(`larger than ${MAX_PAGE_BYTES} bytes`));
    expect(server.requests).toHaveLength(1);
    await expectNothingWritten(A.slug);
  });

  it('an unreadable newest snapshot is not overwritten', async () => {
    const broken = `{"type": "${B.type}", "da`;
    await writeFile(join(snapshots, B.slug, `${NEWEST[B.slug]}.json`), broken);
    const [result] = await run({ datasets: [B.slug] });
    expect(result!.outcome).toBe('failed');
    expect(result!.reason).toMatch(/newest snapshot is unreadable/);
    expect(await readText(B.slug, NEWEST[B.slug])).toBe(broken);
  });

  it('one dataset failing leaves the others to proceed', async () => {
    servePages({}, { [A.slug]: moved(A.slug, 0.6).data });
    server.serve(PATHS[B.slug], { status: 500 });
    const results = await run();
    expect(results.map((r) => r.outcome)).toEqual(
      DATASETS.map((d) => (d === A ? 'written' : d === B ? 'failed' : 'unchanged')),
    );
    await expectNothingWritten(B.slug);
    expect((await status.read(A.slug))?.lastChecked).toBe('2026-11-21T03:00:00.000Z');
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
    const change = moved(A.slug, 0.6);
    servePages({}, { [A.slug]: change.data });
    const summaryFile = join(await tempDir(), 'summary.md');
    const { code, stdout } = await cli(['--summary-file', summaryFile]);
    expect(code).toBe(0);
    const { kind } = A.entity;
    expect(stdout).toMatch(
      new RegExp(
        `${A.slug}: changed, wrote ${A.slug}/\\d{4}-\\d{2}-\\d{2}\\.json \\(${newest[A.slug].data.length} ${kind}s, \\d+ rates\\), 1 value\\(s\\) moved in \\d+ ms`,
      ),
    );
    for (const d of DATASETS.filter((d) => d !== A))
      expect(stdout).toMatch(new RegExp(`${d.slug}: unchanged \\(\\d+ ${d.entity.kind}s, \\d+ rates\\) in \\d+ ms`));
    expect(stdout).toContain(`collect: 1 changed, ${DATASETS.length - 1} unchanged, 0 failed`);
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary.split('\n')[0]).toMatch(new RegExp(`^Rates \\d{4}-\\d{2}-\\d{2}: ${A.label} \\(1 moved\\)$`));
    expect(summary.split('\n')).toContainEqual(moveLineOf(change.first, change.first.value, change.value));
  });

  it('an unreadable cell is a warning in the output and in the summary; the rest of the page is collected', async () => {
    const change = moved(A.slug, 0.6);
    // The last rate of the page, as the page might misprint it: a value no other cell shows, then words.
    const last = allRates(change.data).at(-1)!;
    last.holder[last.key] = 7.77;
    const page = renderSourcePage(A.slug, change.data, { quirks: false });
    expect(page.split('7.77%')).toHaveLength(2);
    server.serve(PATHS[A.slug], { page: page.replace('7.77%', 'see note 3') });
    const summaryFile = join(await tempDir(), 'summary.md');
    const { code, stdout } = await cli(['--dataset', A.slug, '--summary-file', summaryFile]);
    expect(code).toBe(0);
    const where = `${escapeRegExp(last.entity.name)} · ${escapeRegExp(last.item.name)}\\b.*: "see note 3"`;
    expect(stdout).toMatch(new RegExp(`${A.slug}: warning: unreadable cell ${where}`));
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary.split('\n')).toContainEqual(moveLineOf(change.first, change.first.value, change.value));
    expect(summary).toMatch(new RegExp(`Unreadable cells \\(1, left out\\):\\n\\n- ${where}`));
  });

  it('--dataset limits the run; a failed dataset makes the exit code 1', async () => {
    server.serve(PATHS[B.slug], { status: 500 });
    const { code, stdout } = await cli(['--dataset', B.slug]);
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`${B.slug}: FAILED: HTTP 500 .*; nothing written, the newest snapshot is kept`));
    expect(server.requests.every((r) => r.path === PATHS[B.slug])).toBe(true);
  });

  it("adds each run to the status store's run log: every dataset's outcome, why one was refused or failed, the worst as the run's", async () => {
    const change = moved(A.slug, 0.6);
    servePages({}, { [A.slug]: change.data });
    server.serve(PATHS[B.slug], { status: 500 });
    // With three datasets or more, one between A and B gets a page it must refuse.
    const refused = DATASETS.length > 2 ? DATASETS[1]! : undefined;
    if (refused)
      server.serve(PATHS[refused.slug], { page: `<html><body><h1>${refused.slug}</h1><p>5.99</p></body></html>` });
    const before = Date.now();
    expect((await cli([])).code).toBe(1);
    const [first, ...rest] = await status.readRuns();
    expect(rest).toEqual([]);
    expect(Date.parse(first!.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(first!.outcome).toBe('failed');
    expect(Object.keys(first!.datasets)).toEqual(DATASETS.map((d) => d.slug));
    // A page read that far records the institutions and rates it listed; a refusal, the rule it broke.
    expect(first!.datasets[A.slug]).toEqual({
      outcome: 'ok',
      institutions: change.data.length,
      rates: rateValues(change.data).length,
    });
    expect(first!.datasets[B.slug]).toEqual({ outcome: 'failed', reason: expect.stringMatching(/^HTTP 500 /) });
    if (refused)
      expect(first!.datasets[refused.slug]).toEqual({
        outcome: 'refused',
        reason: expect.stringMatching(/no rate table/),
        rule: 'no rate table',
        institutions: 0,
        rates: 0,
      });
    for (const d of DATASETS.filter((d) => d !== A && d !== B && d !== refused))
      expect(first!.datasets[d.slug]).toEqual({
        outcome: 'unchanged',
        institutions: expect.any(Number),
        rates: expect.any(Number),
      });

    // The next hour: every page as now collected, so nothing moves.
    servePages({}, { [A.slug]: change.data });
    expect((await cli([])).code).toBe(0);
    const runs = await status.readRuns();
    expect(runs.map((r) => r.outcome)).toEqual(['failed', 'unchanged']);
    expect(Object.values(runs[1]!.datasets).map((d) => d.outcome)).toEqual(DATASETS.map(() => 'unchanged'));
  });

  it('a move past the limit, confirmed on the page, is collected in a run with COLLECT_MAX_RATE_MOVE lifted, and only then', async () => {
    const change = moved(A.slug, 7);
    servePages({}, { [A.slug]: change.data });
    const refused = await cli(['--dataset', A.slug]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `${A.slug}: FAILED: refused (a rate moved more than 5 percentage points in one run)`,
    );
    const lifted = await cli(['--dataset', A.slug], { COLLECT_MAX_RATE_MOVE: '8' });
    expect(lifted.code).toBe(0);
    expect(lifted.stdout).toMatch(new RegExp(`${A.slug}: changed, wrote `));
  });

  it('an unknown dataset is a usage error', async () => {
    const { code, stderr } = await cli(['--dataset', 'no-such-rates']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown dataset "no-such-rates"');
  });
});
