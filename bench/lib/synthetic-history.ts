/**
 * A synthetic history of any length for benchmarks: the real history's newest snapshot of each
 * dataset, walked forward day by day. A dataset gets a snapshot on a day with the probability
 * the real history shows (snapshots per day), and each snapshot moves as many rates as real
 * consecutive snapshots do on average, each by a small random step. Deterministic (seeded).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rateValues } from '../../src/collect/guards.ts';
import { DATASETS, type Entity, itemsOf, type Snapshot } from '../../src/datasets.ts';
import { writeSnapshot } from '../../src/snapshots/tree.ts';

/** Small, fast, seeded PRNG (mulberry32), so two runs generate the same history. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ChangeFrequency {
  snapshotsPerDay: number;
  movesPerSnapshot: number;
}

/** How often the real history of a dataset changed, and by how many rate values each time. */
export function measureFrequency(snapshots: Snapshot[]): ChangeFrequency {
  // By calendar date (UTC), as snapshots are filed: one per date, whatever time of day each was taken.
  const dateOf = (s: Snapshot) => Date.parse(s.lastUpdated.slice(0, 10));
  const days = (dateOf(snapshots.at(-1)!) - dateOf(snapshots[0]!)) / 86_400_000;
  let moves = 0;
  for (let i = 1; i < snapshots.length; i++) {
    const before = new Map(rateValues(snapshots[i - 1]!.data).map((r) => [r.path, r.value]));
    moves += rateValues(snapshots[i]!.data).filter((r) => before.get(r.path) !== r.value).length;
  }
  return {
    snapshotsPerDay: (snapshots.length - 1) / Math.max(days, 1),
    movesPerSnapshot: Math.max(1, moves / Math.max(snapshots.length - 1, 1)),
  };
}

/** Move `count` random rate values of a dataset's data by ±0.05–0.25 percentage points (in a copy). */
function walk(data: Entity[], count: number, next: () => number): Entity[] {
  const copy = structuredClone(data);
  const targets: { holder: Record<string, unknown>; key: string }[] = [];
  for (const entity of copy) {
    for (const item of itemsOf(entity)) {
      // A product's values are in its rates; a card plan's are fields of the plan itself.
      const holders: object[] = 'rates' in item ? item.rates : [item];
      for (const holder of holders as Record<string, unknown>[]) {
        for (const key of Object.keys(holder))
          if ((key === 'rate' || key.endsWith('Rate')) && typeof holder[key] === 'number')
            targets.push({ holder, key });
      }
    }
  }
  for (let n = 0; n < count && targets.length > 0; n++) {
    const { holder, key } = targets[Math.floor(next() * targets.length)]!;
    const step = (0.05 + Math.floor(next() * 5) * 0.05) * (next() < 0.5 ? -1 : 1);
    holder[key] = Math.min(39.99, Math.max(0, Math.round(((holder[key] as number) + step) * 100) / 100));
  }
  return copy;
}

export async function generateHistory(options: {
  from: string;
  to: string;
  years: number;
  /** A snapshot every day for every dataset (the most a history can hold), not at the real history's pace. */
  daily?: boolean;
  seed?: number;
}): Promise<Record<string, number>> {
  const next = random(options.seed ?? 1);
  const written: Record<string, number> = {};
  for (const dataset of DATASETS) {
    const names = (await readdir(join(options.from, dataset.slug))).filter((n) => n.endsWith('.json')).sort();
    const real = await Promise.all(
      names.map(async (n) => JSON.parse(await readFile(join(options.from, dataset.slug, n), 'utf8')) as Snapshot),
    );
    const frequency = measureFrequency(real);
    let data = real.at(-1)!.data;
    const start = Date.UTC(2026, 0, 1);
    written[dataset.slug] = 0;
    for (let day = 0; day < Math.round(options.years * 365.25); day++) {
      if (day > 0 && !options.daily && next() >= frequency.snapshotsPerDay) continue;
      const moves = Math.max(1, Math.round(frequency.movesPerSnapshot * (0.5 + next())));
      data = day === 0 ? data : walk(data, moves, next);
      const lastUpdated = new Date(start + day * 86_400_000 + Math.floor(next() * 86_000_000)).toISOString();
      await writeSnapshot(options.to, dataset, { type: dataset.type, data, lastUpdated });
      written[dataset.slug]!++;
    }
  }
  return written;
}
