/**
 * The history the tests run on, copied once per run into a temporary folder (tests may write
 * there): each dataset's snapshots in the repository's `snapshots/` tree up to a fixed last date,
 * and its dated snapshots under test/fixtures/history/<slug>/, or listed in one file
 * test/fixtures/history/<slug>.json (for a dataset collected only after that date). Collected
 * snapshots keep arriving after it; the cut keeps every figure the tests assert independent of
 * them. Every dataset must have the least history the tests need (LEAST_HISTORY in history.ts),
 * or the run stops here saying what to add.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

/** The snapshots of one file `<slug>.json` listing them (a fixture's whole history), by their dated file names. */
async function listedSnapshots(file: string): Promise<(readonly [name: string, snapshot: unknown])[]> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const snapshots = JSON.parse(text) as { lastUpdated: string }[];
  return snapshots
    .map((snapshot) => [`${new Date(snapshot.lastUpdated).toISOString().slice(0, 10)}.json`, snapshot] as const)
    .filter(([name]) => name.slice(0, 10) <= HISTORY_UNTIL);
}

/**
 * Copy each dataset's test history from `sources` (the repository's snapshot tree and the fixture
 * tree, each one folder per dataset, a dated file per snapshot; or, in the fixtures, one file
 * `<slug>.json` listing a dataset's snapshots) into `dir`, and return each dataset's newest date.
 * Throws, naming every dataset short of LEAST_HISTORY snapshots and any date two sources, or two
 * snapshots, both hold.
 */
export async function copyTestHistory(sources: readonly string[], dir: string): Promise<Record<DatasetSlug, string>> {
  const newest = {} as Record<DatasetSlug, string>;
  const problems: string[] = [];
  for (const { slug } of DATASETS) {
    const dates = new Map<string, string>();
    const take = (name: string, where: string) => {
      if (dates.has(name)) problems.push(`${slug}/${name} is in both ${dates.get(name)} and ${where}`);
      dates.set(name, where);
    };
    for (const source of sources) {
      for (const name of await datedFiles(join(source, slug))) {
        take(name, source);
        await cp(join(source, slug, name), join(dir, slug, name));
      }
      const listed = join(source, `${slug}.json`);
      for (const [name, snapshot] of await listedSnapshots(listed)) {
        take(name, listed);
        await mkdir(join(dir, slug), { recursive: true });
        await writeFile(join(dir, slug, name), `${JSON.stringify(snapshot, null, 2)}\n`);
      }
    }
    const names = [...dates.keys()].sort();
    if (names.length < LEAST_HISTORY)
      problems.push(
        `${slug} has ${names.length} snapshot(s) dated up to ${HISTORY_UNTIL}, the tests need ${LEAST_HISTORY}: add them as test/fixtures/history/${slug}/<date>.json (or list them in test/fixtures/history/${slug}.json)`,
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
