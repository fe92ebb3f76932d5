import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateHistory, measureFrequency } from '../bench/lib/synthetic-history.ts';
import { DATASETS, type Snapshot } from '../src/datasets.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { historyDir, tempDir } from './support/history.ts';

const YEARS = 0.5;
const snapshotsOf = async (dir: string): Promise<Snapshot[]> =>
  Promise.all((await readdir(dir)).sort().map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8'))));

describe('the benchmark’s synthetic history', () => {
  it('measures a history’s change frequency: snapshots a day and rate values moved a snapshot', () => {
    const data = (rate: number, other: number): Snapshot['data'] =>
      [
        {
          id: 'institution:a',
          name: 'A',
          products: [
            {
              id: 'product:a:p',
              name: 'P',
              rates: [
                { id: 'rate:a:p:1', rate, termInMonths: 12 },
                { id: 'rate:a:p:2', rate: other, termInMonths: 24 },
              ],
            },
          ],
        },
      ] as Snapshot['data'];
    const at = (day: string, d: Snapshot['data']): Snapshot => ({
      type: 'T',
      data: d,
      lastUpdated: `2025-01-${day}T00:00:00.000Z`,
    });
    // Two moves each time, over four days: half a snapshot a day.
    expect(measureFrequency([at('01', data(5, 6)), at('03', data(4, 5)), at('05', data(5, 6))])).toEqual({
      snapshotsPerDay: 0.5,
      movesPerSnapshot: 2,
    });
    // Days are counted by date, as snapshots are filed: one on each of three dates is one a day,
    // even when each next one was taken earlier in its day.
    const earlier = (day: string, time: string, d: Snapshot['data']) => ({
      ...at(day, d),
      lastUpdated: `2025-01-${day}T${time}.000Z`,
    });
    expect(
      measureFrequency([
        earlier('01', '02:11:00', data(5, 6)),
        earlier('02', '01:58:00', data(4, 5)),
        earlier('03', '01:32:00', data(5, 6)),
      ]).snapshotsPerDay,
    ).toBe(1);
  });

  it.each(DATASETS.map((d) => [d.slug, d] as const))(
    '%s: the real history’s frequency is at most a snapshot a day, each moving at least one rate',
    async (slug) => {
      const { snapshotsPerDay, movesPerSnapshot } = measureFrequency(await snapshotsOf(join(historyDir(), slug)));
      expect(snapshotsPerDay).toBeGreaterThan(0);
      expect(snapshotsPerDay).toBeLessThanOrEqual(1);
      expect(movesPerSnapshot).toBeGreaterThanOrEqual(1);
    },
  );

  it('writes valid snapshots at that frequency, the same for the same seed, that compile with sharing', async () => {
    const a = await tempDir();
    const b = await tempDir();
    const counts = await generateHistory({ from: historyDir(), to: a, years: YEARS, seed: 7 });
    await generateHistory({ from: historyDir(), to: b, years: YEARS, seed: 7 });
    const compiled = await compileSnapshotTree(a); // validates every file
    for (const { slug } of DATASETS) {
      // A snapshot on the first day, then one on each later day with the real history's chance of one:
      // the count lies within five standard deviations of the binomial mean.
      const p = measureFrequency(await snapshotsOf(join(historyDir(), slug))).snapshotsPerDay;
      const days = Math.round(YEARS * 365.25) - 1;
      const [mean, sd] = [1 + days * p, Math.sqrt(days * p * (1 - p))];
      expect(counts[slug], slug).toBeGreaterThanOrEqual(Math.floor(mean - 5 * sd));
      expect(counts[slug], slug).toBeLessThanOrEqual(Math.ceil(mean + 5 * sd));
      const names = (await readdir(join(a, slug))).sort();
      expect(names, slug).toEqual((await readdir(join(b, slug))).sort());
      expect(await readFile(join(a, slug, names.at(-1)!), 'utf8'), slug).toBe(
        await readFile(join(b, slug, names.at(-1)!), 'utf8'),
      );
      expect(compiled.datasets[slug]!.dates, slug).toHaveLength(names.length);
    }
    // The longest synthetic history moves its rates, and an entity unchanged between snapshots is stored once.
    const longest = DATASETS.map((d) => d.slug).sort((x, y) => counts[y]! - counts[x]!)[0]!;
    const names = (await readdir(join(a, longest))).sort();
    const first = JSON.parse(await readFile(join(a, longest, names[0]!), 'utf8'));
    const last = JSON.parse(await readFile(join(a, longest, names.at(-1)!), 'utf8'));
    expect(JSON.stringify(last.data)).not.toBe(JSON.stringify(first.data));
    const history = compiled.datasets[longest]!;
    const references = history.snapshots.reduce((n, s) => n + s.length, 0);
    expect(history.entities.length).toBeLessThan(references / 3);
  });
});
