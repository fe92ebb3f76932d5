/**
 * The history the tests read (the repository's snapshots up to a fixed date, copied once per run
 * by global-setup.ts), its newest snapshot of each dataset, and temporary folders to write in.
 */
import { copyFile, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { DatasetSlug } from '../../src/datasets.ts';
import { NEWEST } from './constants.ts';

/** The folder holding the test history (one folder per dataset, one file per day). */
export function historyDir(): string {
  return inject('historyDir');
}

export async function tempDir(prefix = 'rates-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export interface SnapshotFile {
  type: string;
  data: any[];
  lastUpdated: string;
}

/** The text of each dataset's newest snapshot file in the test history, as on disk. */
export async function newestTexts(): Promise<Record<DatasetSlug, string>> {
  const texts = {} as Record<DatasetSlug, string>;
  for (const [slug, date] of Object.entries(NEWEST) as [DatasetSlug, string][])
    texts[slug] = await readFile(join(historyDir(), slug, `${date}.json`), 'utf8');
  return texts;
}

/** Each dataset's newest snapshot in the test history, parsed. */
export async function newestSnapshots(): Promise<Record<DatasetSlug, SnapshotFile>> {
  const texts = await newestTexts();
  return Object.fromEntries(Object.entries(texts).map(([slug, text]) => [slug, JSON.parse(text)])) as Record<
    DatasetSlug,
    SnapshotFile
  >;
}

/** A new snapshot tree (a temporary folder) holding each dataset's newest snapshot, as the repository would. */
export async function treeOfNewest(prefix = 'rates-snapshots-'): Promise<string> {
  const dir = await tempDir(prefix);
  for (const [slug, date] of Object.entries(NEWEST)) {
    await mkdir(join(dir, slug), { recursive: true });
    await copyFile(join(historyDir(), slug, `${date}.json`), join(dir, slug, `${date}.json`));
  }
  return dir;
}

/** ANZ's Special 1-year rate in mortgage data (ANZ is the first institution). */
function anzSpecialRate(data: any[]): { rate: number } {
  return data[0].products.find((p: any) => p.name === 'Special').rates.find((r: any) => r.termInMonths === 12);
}

/** ANZ's Special 1-year rate of a mortgage snapshot. */
export const anzSpecial = (snapshot: { data: any[] }) => anzSpecialRate(snapshot.data).rate;

/** A copy of mortgage data with ANZ's Special 1-year rate set to `value`. */
export function withAnzSpecial(data: any[], value: number): any[] {
  const copy = structuredClone(data);
  anzSpecialRate(copy).rate = value;
  return copy;
}
