/**
 * The history the tests read (each dataset's snapshots up to HISTORY_UNTIL, copied once per run by
 * global-setup.ts), the least of it every per-dataset test needs, each dataset's newest snapshot,
 * and temporary folders to write in.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import type { DatasetSlug, Entity } from '../../src/datasets.ts';

/**
 * The least history of each dataset the per-dataset tests need, the one such requirement: this
 * many snapshots on different dates up to HISTORY_UNTIL, each moving some rate from the one before
 * (two change days in a row for the change log and its feeds, the explorer's "change since the
 * previous snapshot"), a first and a last around one between (time-series ranges), and the
 * dataset's example entity in each. A dataset whose collected history starts later takes them from
 * test/fixtures/history/<slug>/ (or the one file test/fixtures/history/<slug>.json listing them).
 */
export const LEAST_HISTORY = 3;

/** The folder holding the test history (one folder per dataset, one file per day). */
export function historyDir(): string {
  return inject('historyDir');
}

/** The date of each dataset's newest snapshot in the test history. */
export function newestDates(): Record<DatasetSlug, string> {
  return inject('newestDates');
}

/** What a refusal leaves in the tree `snapshots` (one made by treeOfNewest): the dataset's newest snapshot alone, byte for byte the history's. */
export async function expectNewestUntouched(snapshots: string, slug: DatasetSlug): Promise<void> {
  const date = newestDates()[slug];
  expect(await readdir(join(snapshots, slug))).toEqual([`${date}.json`]);
  expect(await readFile(join(snapshots, slug, `${date}.json`), 'utf8')).toBe(
    await readFile(join(historyDir(), slug, `${date}.json`), 'utf8'),
  );
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
  for (const [slug, date] of Object.entries(newestDates()) as [DatasetSlug, string][])
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
  for (const [slug, date] of Object.entries(newestDates())) {
    await mkdir(join(dir, slug), { recursive: true });
    await copyFile(join(historyDir(), slug, `${date}.json`), join(dir, slug, `${date}.json`));
  }
  return dir;
}

/** One rate value of a snapshot's data: where it is (its entity, item and the object holding it) and a way to set it. */
export interface RateAt {
  entity: any;
  item: any;
  holder: Record<string, number>;
  key: string;
  id: string;
  value: number;
}

/**
 * Every rate value of a snapshot's data, whatever the dataset, in order: each `rate` (or `…Rate`)
 * number of each item or of its rates. The tests move one to make a collection that changes a rate.
 */
export function allRates(data: readonly Entity[] | any[]): RateAt[] {
  const found: RateAt[] = [];
  for (const entity of data as any[])
    for (const item of entity.products ?? entity.plans ?? [])
      for (const holder of [...(item.rates ?? []), item])
        for (const key of Object.keys(holder))
          if ((key === 'rate' || key.endsWith('Rate')) && typeof holder[key] === 'number')
            found.push({ entity, item, holder, key, id: holder.id, value: holder[key] });
  return found;
}

/** The first rate value of a snapshot's data (allRates). */
export function firstRate(data: readonly Entity[] | any[]): RateAt {
  const [first] = allRates(data);
  if (!first) throw new Error('no rate in the data');
  return first;
}

/** A copy of `data` with its first rate (firstRate) set to `value`. */
export function withFirstRate(data: readonly Entity[] | any[], value: number): any[] {
  const copy = structuredClone(data) as any[];
  const rate = firstRate(copy);
  rate.holder[rate.key] = value;
  return copy;
}

/** A copy of `data` with every rate value (each `rate` or `…Rate` number) of the entities `which` picks set by `move`. */
export function withRates(
  data: readonly Entity[] | any[],
  move: (value: number) => number,
  which: (entity: any, index: number) => boolean = () => true,
  /** Which rate fields move (by name): all, unless told (`balanceTransferRate` is a promotion the guards exempt). */
  field: (key: string) => boolean = () => true,
): any[] {
  const copy = structuredClone(data) as any[];
  copy.forEach((entity, index) => {
    if (!which(entity, index)) return;
    for (const item of entity.products ?? entity.plans ?? [])
      for (const holder of [...(item.rates ?? []), item])
        for (const key of Object.keys(holder))
          if ((key === 'rate' || key.endsWith('Rate')) && field(key) && typeof holder[key] === 'number')
            holder[key] = move(holder[key]);
  });
  return copy;
}

/**
 * `value` moved `delta` points, or the other way where that would leave the rates' bounds: down
 * from above `high` (30 % unless told), up where down would pass 0 (a rate earned may be 0.05 %).
 */
export const movedWithinBounds = (value: number, delta: number, high = 30) =>
  Math.round((value + (value > high || value + delta < 0 ? -delta : delta)) * 100) / 100;

/**
 * A copy of `data` with its first rate (firstRate) moved by `delta` points, the other way where
 * that would leave the rates' bounds (movedWithinBounds): the copy, the rate's new value, and the rate as it was.
 */
export function withFirstRateMoved(data: readonly Entity[] | any[], delta: number) {
  const first = firstRate(data);
  const value = movedWithinBounds(first.value, delta);
  return { data: withFirstRate(data, value), value, first };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The words of a rate's move: `down 60 bps` (whole basis points), `up 1 bp`. */
const rateMoveWords = (from: number, to: number) => {
  const bps = Math.abs(Math.round((to - from) * 100));
  return `${to > from ? 'up' : 'down'} ${bps} ${bps === 1 ? 'bp' : 'bps'}`;
};

/** The collector's summary line of a rate's move (`- ANZ · Special · 1 year: down 60 bps, 5.29 → 4.69`), as a pattern's source. */
export const moveLineSource = (rate: Pick<RateAt, 'entity' | 'item'>, from: number, to: number) =>
  `- ${escapeRegExp(rate.entity.name)} · ${escapeRegExp(rate.item.name)} · [^\\n]+: ${rateMoveWords(from, to)}, ${from} → ${to}`;

/** That line alone, as a pattern. */
export const moveLine = (rate: Pick<RateAt, 'entity' | 'item'>, from: number, to: number) =>
  new RegExp(`^${moveLineSource(rate, from, to)}$`);
