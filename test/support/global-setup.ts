/**
 * The history the tests run on, copied once per run into a temporary folder (tests may write
 * there): each dataset's snapshots in the repository's `snapshots/` tree up to a fixed last date,
 * and its dated snapshots under test/fixtures/history/<slug>/ (for a dataset collected only after
 * that date). Collected snapshots keep arriving after it; the cut keeps every figure the tests
 * assert independent of them. Every dataset must have the least history the tests need
 * (LEAST_HISTORY in history.ts), or the run stops here saying what to add.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { DATASETS, type DatasetSlug } from '../../src/datasets.ts';
import { HISTORY_UNTIL } from './constants.ts';
import { LEAST_HISTORY } from './history.ts';

export const REPO_SNAPSHOTS = resolve(import.meta.dirname, '../../snapshots');
/** Test snapshots of datasets whose collected history does not reach back to HISTORY_UNTIL. */
export const FIXTURE_HISTORY = resolve(import.meta.dirname, '../fixtures/history');

declare module 'vitest' {
  export interface ProvidedContext {
    historyDir: string;
    /** The date of each dataset's newest snapshot in the test history. */
    newestDates: Record<DatasetSlug, string>;
  }
}

const SNAPSHOT_FILE = /^\d{4}-\d{2}-\d{2}\.json$/;
const datedFiles = async (dir: string) =>
  (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => SNAPSHOT_FILE.test(n) && n.slice(0, 10) <= HISTORY_UNTIL,
  );

/**
 * Copy each dataset's test history from `sources` (the repository's snapshot tree and the fixture
 * tree, each one folder per dataset) into `dir`, and return each dataset's newest date. Throws,
 * naming every dataset short of LEAST_HISTORY snapshots and any date two sources both hold.
 */
export async function copyTestHistory(sources: readonly string[], dir: string): Promise<Record<DatasetSlug, string>> {
  const newest = {} as Record<DatasetSlug, string>;
  const problems: string[] = [];
  for (const { slug } of DATASETS) {
    const dates = new Map<string, string>();
    for (const source of sources) {
      for (const name of await datedFiles(join(source, slug))) {
        if (dates.has(name)) problems.push(`${slug}/${name} is in both ${dates.get(name)} and ${source}`);
        dates.set(name, source);
        await cp(join(source, slug, name), join(dir, slug, name));
      }
    }
    const names = [...dates.keys()].sort();
    if (names.length < LEAST_HISTORY)
      problems.push(
        `${slug} has ${names.length} snapshot(s) dated up to ${HISTORY_UNTIL}, the tests need ${LEAST_HISTORY}: add them as test/fixtures/history/${slug}/<date>.json`,
      );
    else newest[slug] = names.at(-1)!.slice(0, 10);
  }
  if (problems.length) throw new Error(`The test history is not usable:\n${problems.join('\n')}`);
  return newest;
}

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'rates-history-'));
  project.provide('newestDates', await copyTestHistory([REPO_SNAPSHOTS, FIXTURE_HISTORY], dir));
  project.provide('historyDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
