import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateHistory, measureFrequency } from '../bench/lib/synthetic-history.ts';
import type { Snapshot } from '../src/datasets.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { historyDir, tempDir } from './support/history.ts';

describe('the benchmark’s synthetic history', () => {
  it('measures the real change frequency', async () => {
    const dir = join(historyDir(), 'mortgage-rates');
    const snapshots: Snapshot[] = await Promise.all(
      (await readdir(dir)).sort().map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8'))),
    );
    const { snapshotsPerDay, movesPerSnapshot } = measureFrequency(snapshots);
    expect(snapshotsPerDay).toBeGreaterThan(0.3);
    expect(snapshotsPerDay).toBeLessThan(0.7);
    expect(movesPerSnapshot).toBeGreaterThanOrEqual(1);
  });

  it('writes valid snapshots at that frequency, the same for the same seed, that compile with sharing', async () => {
    const a = await tempDir();
    const b = await tempDir();
    const counts = await generateHistory({ from: historyDir(), to: a, years: 0.5, seed: 7 });
    await generateHistory({ from: historyDir(), to: b, years: 0.5, seed: 7 });
    expect(counts['mortgage-rates']).toBeGreaterThan(50);
    expect(counts['mortgage-rates']).toBeLessThan(130);
    const names = (await readdir(join(a, 'mortgage-rates'))).sort();
    expect(names).toEqual((await readdir(join(b, 'mortgage-rates'))).sort());
    expect(await readFile(join(a, 'mortgage-rates', names.at(-1)!), 'utf8')).toBe(
      await readFile(join(b, 'mortgage-rates', names.at(-1)!), 'utf8'),
    );
    const compiled = await compileSnapshotTree(a); // validates every file
    const mortgage = compiled.datasets['mortgage-rates']!;
    const first = JSON.parse(await readFile(join(a, 'mortgage-rates', names[0]!), 'utf8'));
    const last = JSON.parse(await readFile(join(a, 'mortgage-rates', names.at(-1)!), 'utf8'));
    expect(JSON.stringify(last.data)).not.toBe(JSON.stringify(first.data));
    const references = mortgage.snapshots.reduce((n, s) => n + s.length, 0);
    expect(mortgage.entities.length).toBeLessThan(references / 3);
  });
});
