/**
 * The bench the collector's page tests share: a stand-in for interest.co.nz over a real socket,
 * each test on a fresh copy of the newest snapshots with a status store of its own, the live
 * page's markup of the newest snapshot to bend, and the collector run against it at a fixed time.
 * `collectBench()` registers its hooks in the calling test file.
 */
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type CollectOptions, collect, type DatasetResult } from '../../src/collect/collect.ts';
import { DATASETS, type DatasetSlug } from '../../src/datasets.ts';
import { FileStatusStore } from '../../src/status/status-store.ts';
import { renderRealStylePage } from '../fixtures/real-style-page.ts';
import { expectNewestUntouched, newestSnapshots, type SnapshotFile, tempDir, treeOfNewest } from './history.ts';
import { startSourceServer, type SourceServer } from './source-server.ts';

/** When the bench's runs happen unless a test says otherwise. */
export const BENCH_TIME = new Date('2026-11-21T03:00:00.000Z');

export interface CollectBench {
  readonly server: SourceServer;
  /** Each dataset's newest snapshot in the test history. */
  readonly newest: Record<DatasetSlug, SnapshotFile>;
  /** This test's snapshot tree (a fresh copy of the newest snapshots; a test may replace it). */
  snapshots: string;
  readonly status: FileStatusStore;
  /** Collect `page` as the dataset's page at `at` (with `extra` options): the run's result for that dataset. */
  collectPage(slug: DatasetSlug, page: string, at?: Date, extra?: Partial<CollectOptions>): Promise<DatasetResult>;
  /** The newest snapshot (or `data`) in the live page's markup, bent by `edit` (a cheerio document of it). */
  livePage(slug: DatasetSlug, edit?: ($: cheerio.CheerioAPI) => void, data?: readonly unknown[]): string;
  /** A refusal: the dataset failed with the rule, nothing was written, the newest snapshot is the same bytes. Its reason. */
  expectRefused(slug: DatasetSlug, result: DatasetResult, rule: string): Promise<string>;
}

export function collectBench(): CollectBench {
  let server: SourceServer;
  let newest: Record<DatasetSlug, SnapshotFile>;
  let status: FileStatusStore;
  beforeAll(async () => {
    server = await startSourceServer();
    newest = await newestSnapshots();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    bench.snapshots = await treeOfNewest();
    status = new FileStatusStore(await tempDir('rates-status-'));
  });
  const bench: CollectBench = {
    get server() {
      return server;
    },
    get newest() {
      return newest;
    },
    get status() {
      return status;
    },
    snapshots: '',
    async collectPage(slug, page, at = BENCH_TIME, extra = {}) {
      server.serve(DATASETS.find((d) => d.slug === slug)!.sourcePath, { page });
      const [result] = await collect({
        baseUrl: server.url,
        snapshotsDir: bench.snapshots,
        status,
        datasets: [slug],
        now: () => at,
        fetch: { timeoutMs: 20_000, retries: 0, retryDelayMs: 1 },
        ...extra,
      });
      return result!;
    },
    livePage(slug, edit = () => {}, data = newest[slug].data) {
      const $ = cheerio.load(renderRealStylePage(slug, data as SnapshotFile['data']));
      edit($);
      return $.html();
    },
    async expectRefused(slug, result, rule) {
      expect(result.outcome).toBe('failed');
      expect(result.reason).toContain(`refused (${rule})`);
      await expectNewestUntouched(bench.snapshots, slug);
      return result.reason!;
    },
  };
  return bench;
}
