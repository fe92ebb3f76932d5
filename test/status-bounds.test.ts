/**
 * Issue 34, "bounded, clean reasons", in the status layer: whatever a page says, and whatever an
 * older build stored, the status store and the run log keep and give back reasons of at most
 * REASON_MAX_CHARS with no control characters, read their objects only up to a stated number of
 * bytes, and a run log that cannot be read is started anew instead of failing every later run.
 */
import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { datasetFailures } from '../scripts/hourly/collector.ts';
import { DATASETS } from '../src/datasets.ts';
import { REASON_MAX_CHARS } from '../src/lib/clean-text.ts';
import { BlobStatusStore, type BlobClient } from '../src/status/blob-status-store.ts';
import { statusReport } from '../src/status/report.ts';
import { appendRun, type CollectionRun, RUN_LOG_LENGTH, RUN_LOG_MAX_BYTES, runLogText } from '../src/status/run-log.ts';
import { FileStatusStore, STATUS_RECORD_MAX_BYTES, type StatusStore } from '../src/status/status-store.ts';
import { memoryBlob } from './support/blob.ts';
import { NOW, ROOT } from './support/constants.ts';
import { apiOver, getJson } from './support/core.ts';
import { historyDir, newestSnapshots, tempDir, treeOfNewest } from './support/history.ts';
import { serveSourcePages, startSourceServer, type SourceServer } from './support/source-server.ts';

/** What a hostile page title holds: an ANSI colour, a workflow command on its own line, a bidi override, a zero-width space, a NUL. */
const DIRTY = 'Rates\u001b[31m\n::error::spoofed\u202eevil\u200b\u0000 ';
/** A reason quoting such a title, `chars` characters long. */
const reasonOf = (chars: number) => `refused (the page's title is "${DIRTY.repeat(Math.ceil(chars / DIRTY.length))}")`;
const MB = 1024 * 1024;
/** Everything cleanText replaces: C0 and C1 controls, bidi marks, overrides and isolates, zero-width characters, the BOM. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that there are none.
const UNCLEAN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

/** A reason as every reader must see it: present, at most REASON_MAX_CHARS, clean, cut with an ellipsis. */
function expectCleanCut(text: string | null | undefined) {
  expect(text).toBeTypeOf('string');
  expect(text!.length).toBeLessThanOrEqual(REASON_MAX_CHARS);
  expect(text).not.toMatch(UNCLEAN);
  expect(text!.startsWith('refused (the page')).toBe(true);
  expect(text!.endsWith('…')).toBe(true);
}

const A = DATASETS[0];

/** The nth hourly run after 2026-11-01 00:00 UTC, every dataset failing with `reason`. */
const failingRun = (n: number, reason: string): CollectionRun => ({
  at: new Date(Date.UTC(2026, 10, 1, n)).toISOString(),
  outcome: 'failed',
  datasets: Object.fromEntries(DATASETS.map((d) => [d.slug, { outcome: 'failed', reason: `${reason} (run ${n})` }])),
});
const okRun = (n: number): CollectionRun => ({
  at: new Date(Date.UTC(2026, 10, 1, n)).toISOString(),
  outcome: 'unchanged',
  datasets: Object.fromEntries(DATASETS.map((d) => [d.slug, { outcome: 'unchanged' }])),
});

const record = (lastError: string, lastChecked = '2025-03-05T08:00:00.000Z') => ({
  lastChecked,
  lastChanged: null,
  lastError,
  lastErrorAt: '2025-03-05T11:00:00.000Z',
});

/** The two stores, each with a way to put an older build's text where it keeps a dataset's record or the log. */
async function fileStore() {
  const dir = await tempDir('rates-bounds-');
  return {
    store: new FileStatusStore(dir),
    put: (name: string, text: string) => writeFile(join(dir, `${name}.json`), text),
    stored: (name: string) => readFile(join(dir, `${name}.json`), 'utf8'),
    size: async (name: string) => (await stat(join(dir, `${name}.json`))).size,
  };
}
function blobStore() {
  const blob = memoryBlob();
  return {
    blob,
    store: new BlobStatusStore(blob),
    put: async (name: string, text: string) => void blob.objects.set(`status/${name}.json`, text),
    stored: async (name: string) => blob.objects.get(`status/${name}.json`)!,
    size: async (name: string) => Buffer.byteLength(blob.objects.get(`status/${name}.json`)!),
  };
}
const STORES = [
  ['the file store', fileStore],
  ['the Blob store', blobStore],
] as const;

describe.each(STORES)('%s', (_, open) => {
  it('keeps a 2 MB reason with control characters as at most REASON_MAX_CHARS clean characters, in the record and the run log; both stay small', async () => {
    const { store, stored, size } = await open();
    const reason = reasonOf(2 * MB);
    await store.write(A.slug, record(reason));
    expectCleanCut((await store.read(A.slug))?.lastError);
    expect(JSON.parse(await stored(A.slug)).lastError).toBe((await store.read(A.slug))?.lastError);
    expect(await size(A.slug)).toBeLessThan(3 * 1024);

    expect(await appendRun(store, failingRun(0, reason))).toEqual({ rewritten: undefined });
    const [run] = await store.readRuns();
    for (const d of DATASETS) expectCleanCut(run!.datasets[d.slug]!.reason);
    expect(await stored('run-log')).not.toMatch(/\\u00|\\n::error/); // no escaped control character either
    expect(await size('run-log')).toBeLessThan(DATASETS.length * 3 * 1024);
  });

  it("reads an older build's record with a 1 MB reason back clean and cut, and health quotes it so", async () => {
    const { store, put } = await open();
    await put(A.slug, JSON.stringify(record(reasonOf(MB))));
    expectCleanCut((await store.read(A.slug))?.lastError);

    const { body } = await getJson(await apiOver(historyDir(), { status: store, now: () => NOW }), '/api/v1/health');
    const [problem, ...others] = body.problems.filter((p: string) =>
      p.startsWith(`${A.slug}: no successful collection`),
    );
    expect(others).toEqual([]);
    expect(problem).toContain('The last error (2025-03-05 11:00:00): refused (the page');
    expect(problem.length).toBeLessThan(REASON_MAX_CHARS + 200);
    expect(JSON.stringify(body).length).toBeLessThan(REASON_MAX_CHARS + 5_000);
    expect(problem).not.toMatch(UNCLEAN);
  });

  it("reads an older build's run log with long dirty reasons (within the byte bound) back clean and cut", async () => {
    const { store, put } = await open();
    const runs = [failingRun(0, reasonOf(15_000)), okRun(1), failingRun(2, reasonOf(15_000))];
    const text = JSON.stringify(runs);
    expect(Buffer.byteLength(text)).toBeGreaterThan(100_000);
    expect(Buffer.byteLength(text)).toBeLessThan(RUN_LOG_MAX_BYTES);
    await put('run-log', text);
    const read = await store.readRuns();
    expect(read.map((r) => r.at)).toEqual(runs.map((r) => r.at));
    for (const run of [read[0]!, read[2]!]) for (const d of DATASETS) expectCleanCut(run.datasets[d.slug]!.reason);
  });

  it.each([
    ['not JSON', `[{"at": "2026-11-01T00:00:00.000Z", "outcome": "fail\u001b[31m\n::error::`],
    ['JSON of another shape', JSON.stringify({ runs: [okRun(0)] })],
    ['a log holding a run of another shape', JSON.stringify([okRun(0), { at: 'yesterday', [DIRTY.repeat(500)]: 1 }])],
    [
      "larger than RUN_LOG_MAX_BYTES (20 MB, an older build's reasons)",
      JSON.stringify([failingRun(0, reasonOf(5 * MB))]),
    ],
  ])(
    'a run log that is %s: /status says so in a short clean sentence; appendRun starts it anew with the run and says why',
    async (_, text) => {
      const { store, put, stored } = await open();
      await put('run-log', text);

      const logged = vi.fn();
      const report = await statusReport(() => Promise.reject(new Error('no snapshots here')), store, NOW, logged);
      expect(report.runs).toEqual([]);
      expect(report.runsError).toMatch(
        new RegExp(
          `^(status/)?run-log\\.json is (not JSON|not as expected|larger than ${RUN_LOG_MAX_BYTES.toLocaleString('en')} bytes)`,
        ),
      );
      expect(report.runsError!.length).toBeLessThan(300);
      expect(report.runsError).not.toMatch(UNCLEAN);
      expect(logged).toHaveBeenCalledWith('status: run log unreadable:', expect.any(Error));

      const run = failingRun(5, 'HTTP 503');
      const { rewritten } = await appendRun(store, run);
      expect(rewritten).toBe(report.runsError);
      expect(await store.readRuns()).toEqual([run]);
      expect(await stored('run-log')).toBe(runLogText([run]));
      // The next run appends as usual.
      expect(await appendRun(store, okRun(6))).toEqual({ rewritten: undefined });
      expect(await store.readRuns()).toEqual([run, okRun(6)]);
    },
  );

  it('keeps the run log within RUN_LOG_MAX_BYTES as well as RUN_LOG_LENGTH runs, dropping the oldest, however long the reasons', async () => {
    // 2,000 ASCII characters per reason (≈ 2 KB), then 2,000 euro signs (3 bytes each in UTF-8).
    for (const [long, bytes] of [
      ['x'.repeat(5_000), 1],
      ['€'.repeat(5_000), 3],
    ] as const) {
      const { store, size } = await open();
      // Enough runs to pass the byte bound, fewer than RUN_LOG_LENGTH.
      const count = Math.ceil(RUN_LOG_MAX_BYTES / (DATASETS.length * REASON_MAX_CHARS * bytes)) + 3;
      expect(count).toBeLessThan(RUN_LOG_LENGTH);
      const runs = Array.from({ length: count }, (_, n) => failingRun(n, long));
      // Most of them written at once (within the bound), the rest appended run by run past it.
      const seeded = Math.floor(count * 0.9);
      await store.writeRuns(runs.slice(0, seeded));
      for (const run of runs.slice(seeded)) await appendRun(store, run);
      const kept = await store.readRuns();
      expect(await size('run-log')).toBeLessThanOrEqual(RUN_LOG_MAX_BYTES);
      expect(kept.length).toBeLessThan(RUN_LOG_LENGTH);
      expect(kept.length).toBeGreaterThan(1);
      // The newest runs, in order, as many as fit: one more would not.
      expect(kept.map((r) => r.at)).toEqual(runs.slice(-kept.length).map((r) => r.at));
      const oneMore = [runs.at(-kept.length - 1)!, ...kept];
      expect(Buffer.byteLength(JSON.stringify(oneMore, null, 2)) + 1).toBeGreaterThan(RUN_LOG_MAX_BYTES);
      for (const run of kept)
        for (const d of DATASETS) expect(run.datasets[d.slug]!.reason!.length).toBe(REASON_MAX_CHARS);
    }
  });

  it('a record larger than STATUS_RECORD_MAX_BYTES is unreadable, said in a short clean sentence: health reports the store unreadable', async () => {
    const { store, put } = await open();
    await put(A.slug, JSON.stringify(record(reasonOf(STATUS_RECORD_MAX_BYTES + MB))));
    const error = await store.read(A.slug).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/^(status\/)?[a-z-]+\.json is larger than 8,388,608 bytes$/);

    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { body } = await getJson(await apiOver(historyDir(), { status: store, now: () => NOW }), '/api/v1/health');
    expect(body.collection).toMatchObject({ status: 'unavailable' });
    expect(JSON.stringify(body).length).toBeLessThan(10_000);
    logged.mockRestore();
  });
});

describe('thirty days of hourly runs', () => {
  /** The nth hourly run after 2026-11-01 00:00 UTC as the collector records it: every dataset with its counts, `refused(n, i)` of them refused with a 300-character reason. */
  const realRun = (n: number, refused: (i: number) => boolean): CollectionRun => ({
    at: new Date(Date.UTC(2026, 10, 1, n)).toISOString(),
    outcome: 'unchanged',
    datasets: Object.fromEntries(
      DATASETS.map((d, i) => [
        d.slug,
        refused(i)
          ? {
              outcome: 'refused',
              reason: `refused (shrink): ${'x'.repeat(282)}`,
              rule: 'shrink',
              institutions: 38,
              rates: 1199,
            }
          : { outcome: 'unchanged', institutions: 38, rates: 1199 },
      ]),
    ),
  });
  const logOf = (refused: (n: number, i: number) => boolean) =>
    Array.from({ length: RUN_LOG_LENGTH }, (_, n) => realRun(n, (i) => refused(n, i)));

  it('RUN_LOG_LENGTH is thirty days of hourly runs, and RUN_LOG_MAX_BYTES holds them quiet, one dataset in ten refused, or every one refused', () => {
    expect(RUN_LOG_LENGTH).toBe(30 * 24);
    const quiet = Buffer.byteLength(runLogText(logOf(() => false)));
    const some = Buffer.byteLength(runLogText(logOf((n, i) => (n * DATASETS.length + i) % 10 === 0)));
    const all = Buffer.byteLength(runLogText(logOf(() => true)));
    // runLogText refuses a log past either bound, so each of these fits; the quiet month with room for three more.
    expect(quiet * 4).toBeLessThan(RUN_LOG_MAX_BYTES);
    expect(some).toBeGreaterThan(quiet);
    expect(all).toBeLessThan(RUN_LOG_MAX_BYTES);
  });

  it('the store keeps the newest RUN_LOG_LENGTH runs: a 721st drops the oldest, and GET /api/v1/status counts thirty days', async () => {
    const { store } = await fileStore();
    const runs = logOf((n, i) => n % 100 === 0 && i === 0);
    await store.writeRuns(runs);
    const next = realRun(RUN_LOG_LENGTH, () => false);
    await appendRun(store, next);
    const kept = await store.readRuns();
    expect(kept.length).toBe(RUN_LOG_LENGTH);
    expect(kept[0]!.at).toBe(runs[1]!.at);
    expect(kept.at(-1)).toEqual(next);

    const now = new Date(Date.parse(next.at) + 30 * 60_000);
    const { body } = await getJson(await apiOver(historyDir(), { status: store, now: () => now }), '/api/v1/status');
    expect(body.window.runs).toBe(RUN_LOG_LENGTH);
    expect(body.datasets[A.slug]).toMatchObject({
      runs: RUN_LOG_LENGTH,
      succeeded: RUN_LOG_LENGTH - 7,
      refusals: { shrink: 7 },
      hoursSinceLastGood: 0.5,
      longestGapHours: 2,
      rates: { latest: 1199, min: 1199, max: 1199 },
    });
  });
});

describe('the Blob store reads no more of an object than its bound', () => {
  it('a 20 MB run log or a record past its bound: the download is left after the bound, never read whole', async () => {
    const { blob, store, put } = blobStore();
    await put('run-log', JSON.stringify([failingRun(0, reasonOf(20 * MB))]));
    await expect(store.readRuns()).rejects.toThrow(
      `status/run-log.json is larger than ${RUN_LOG_MAX_BYTES.toLocaleString('en')} bytes`,
    );
    expect(blob.pulled).toBeLessThanOrEqual(RUN_LOG_MAX_BYTES + 64 * 1024);
    // appendRun reads it the same way, then replaces it.
    blob.pulled = 0;
    expect((await appendRun(store, okRun(1))).rewritten).toMatch(/larger than/);
    expect(blob.pulled).toBeLessThanOrEqual(RUN_LOG_MAX_BYTES + 64 * 1024);

    blob.pulled = 0;
    await put(A.slug, JSON.stringify(record(reasonOf(20 * MB))));
    await expect(store.read(A.slug)).rejects.toThrow(`status/${A.slug}.json is larger than 8,388,608 bytes`);
    expect(blob.pulled).toBeLessThanOrEqual(STATUS_RECORD_MAX_BYTES + 64 * 1024);
  });

  it('a store that cannot be reached is not taken for an unreadable log: appendRun throws and overwrites nothing', async () => {
    const writes: string[] = [];
    const flaky: BlobClient = {
      read: () => Promise.reject(Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNRESET' } })),
      write: async (pathname) => void writes.push(pathname),
    };
    const store: StatusStore = new BlobStatusStore(flaky);
    await expect(appendRun(store, okRun(0))).rejects.toThrow('fetch failed');
    expect(writes).toEqual([]);
  });
});

describe('npm run collect', () => {
  let server: SourceServer;
  beforeAll(async () => {
    server = await startSourceServer();
    const newest = await newestSnapshots();
    serveSourcePages(server, (slug) => newest[slug].data);
  });
  afterAll(() => server.close());

  it("over a corrupt run log and an older build's 2 MB record: warns that the log was started anew, exits 0, and leaves both small and clean", async () => {
    const { store, put, size } = await fileStore();
    await put('run-log', '[{"at": ');
    await put(A.slug, JSON.stringify(record(reasonOf(2 * MB))));
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'collect', '--', '--dataset', A.slug],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          INTEREST_BASE_URL: server.url,
          SNAPSHOTS_DIR: await treeOfNewest(),
          STATUS_DIR: store.dir,
        },
      },
    );
    expect(stdout).toContain(`${A.slug}: unchanged`);
    expect(stderr.split('\n')).toContain(
      'collect: the run log was unreadable (run-log.json is not JSON (Unexpected end of JSON input)) and was started anew',
    );
    // A warning, not a failure: the hourly chain names nothing in its failure issue.
    expect(datasetFailures(`${stdout}\n${stderr}`)).toEqual([]);
    const runs = await store.readRuns();
    // With the institutions and rates the page listed, which GET /api/v1/status ranges over.
    expect(runs.map((r) => r.datasets)).toEqual([
      { [A.slug]: { outcome: 'unchanged', institutions: expect.any(Number), rates: expect.any(Number) } },
    ]);
    expect(runs[0]!.datasets[A.slug]!.rates).toBeGreaterThan(0);
    // The record was read clean, so the run wrote it back small: the older build's 2 MB are gone.
    expect(await size(A.slug)).toBeLessThan(3 * 1024);
    expectCleanCut((await store.read(A.slug))?.lastError);
  });
});
