/**
 * The facts each table entry declares hold over the test history: its example id names an entity
 * of every snapshot (the docs, tool descriptions and examples show it). And the test history is made
 * as test/support/global-setup.ts says: each dataset's snapshots up to HISTORY_UNTIL, from the
 * repository or from test/fixtures/history, at least LEAST_HISTORY of them.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { HISTORY_UNTIL } from './support/constants.ts';
import { EACH } from './support/datasets.ts';
import { copyTestHistory } from './support/global-setup.ts';
import { historyDir, LEAST_HISTORY, newestDates, tempDir } from './support/history.ts';

describe.each(EACH)('%s, as its table entry declares it', (slug, dataset) => {
  it(`its example id (${dataset.exampleEntityId}) is an entity of every snapshot`, async () => {
    const files = (await readdir(join(historyDir(), slug))).sort();
    for (const file of files) {
      const { data } = JSON.parse(await readFile(join(historyDir(), slug, file), 'utf8'));
      expect(
        data.map((e: { id: string }) => e.id),
        file,
      ).toContain(dataset.exampleEntityId);
    }
  });

  it(`its example id has its kind's prefix (${dataset.entity.prefix}:)`, () => {
    expect(dataset.exampleEntityId.startsWith(`${dataset.entity.prefix}:`)).toBe(true);
  });

  it(`the test history holds at least ${LEAST_HISTORY} snapshots of it, the newest on its newest date`, async () => {
    const dates = (await readdir(join(historyDir(), slug))).map((f) => f.slice(0, 10)).sort();
    expect(dates.length).toBeGreaterThanOrEqual(LEAST_HISTORY);
    expect(dates.at(-1)).toBe(newestDates()[slug]);
    expect(dates.at(-1)! <= HISTORY_UNTIL).toBe(true);
  });
});

describe('the test history', () => {
  /** A snapshot tree with `count` dated copies of the real newest snapshot of each dataset, ending on `last`. */
  async function tree(counts: Record<string, number>, last = HISTORY_UNTIL) {
    const dir = await tempDir('rates-source-');
    for (const [slug, count] of Object.entries(counts)) {
      await mkdir(join(dir, slug), { recursive: true });
      const text = await readFile(join(historyDir(), slug, `${newestDates()[slug as never]}.json`), 'utf8');
      for (let n = 0; n < count; n++) {
        const date = new Date(Date.parse(last) - n * 86_400_000).toISOString().slice(0, 10);
        await writeFile(join(dir, slug, `${date}.json`), text);
      }
    }
    return dir;
  }
  const every = (count: number) => Object.fromEntries(DATASETS.map((d) => [d.slug, count]));

  it('takes a dataset the repository lacks from the fixtures, and each dataset’s newest date', async () => {
    const [added, ...collected] = DATASETS;
    const repository = await tree(Object.fromEntries(collected.map((d) => [d.slug, LEAST_HISTORY])));
    const fixtures = await tree({ [added!.slug]: LEAST_HISTORY }, '2024-06-30');
    const into = await tempDir('rates-history-');
    const newest = await copyTestHistory([repository, fixtures], into);
    expect(newest).toEqual({
      ...Object.fromEntries(collected.map((d) => [d.slug, HISTORY_UNTIL])),
      [added!.slug]: '2024-06-30',
    });
    expect(await readdir(join(into, added!.slug))).toHaveLength(LEAST_HISTORY);
  });

  it('takes a dataset’s snapshots from one file listing them, each as its dated file', async () => {
    const [added, ...collected] = DATASETS;
    const repository = await tree(Object.fromEntries(collected.map((d) => [d.slug, LEAST_HISTORY])));
    const fixtures = await tempDir('rates-source-');
    const text = await readFile(join(historyDir(), added!.slug, `${newestDates()[added!.slug]}.json`), 'utf8');
    const dates = ['2024-06-28', '2024-06-29', '2024-06-30'];
    const listed = dates.map((date) => ({ ...JSON.parse(text), lastUpdated: `${date}T01:00:00.000Z` }));
    await writeFile(join(fixtures, `${added!.slug}.json`), JSON.stringify(listed));
    const into = await tempDir('rates-history-');
    const newest = await copyTestHistory([repository, fixtures], into);
    expect(newest[added!.slug]).toBe('2024-06-30');
    expect((await readdir(join(into, added!.slug))).sort()).toEqual(dates.map((d) => `${d}.json`));
    const second = JSON.parse(await readFile(join(into, added!.slug, '2024-06-29.json'), 'utf8'));
    expect(second).toEqual(listed[1]);
    // Two snapshots of one date are refused, as two files of one date are.
    await writeFile(join(fixtures, `${added!.slug}.json`), JSON.stringify([...listed, listed[2]]));
    const error = await copyTestHistory([repository, fixtures], await tempDir('rates-history-')).catch((e) => e);
    expect(error.message).toContain(`${added!.slug}/2024-06-30.json is in both`);
  });

  it('leaves out what is dated after HISTORY_UNTIL', async () => {
    const later = new Date(Date.parse(HISTORY_UNTIL) + 86_400_000).toISOString().slice(0, 10);
    const repository = await tree(every(LEAST_HISTORY + 1), later);
    const into = await tempDir('rates-history-');
    await copyTestHistory([repository], into);
    for (const { slug } of DATASETS) expect(await readdir(join(into, slug))).not.toContain(`${later}.json`);
  });

  it(`refuses to run on fewer than ${LEAST_HISTORY} snapshots of a dataset, naming it and where to add them`, async () => {
    const [short] = DATASETS;
    const repository = await tree({ ...every(LEAST_HISTORY), [short!.slug]: LEAST_HISTORY - 1 });
    const error = await copyTestHistory([repository], await tempDir('rates-history-')).catch((e) => e);
    expect(error.message).toContain(`${short!.slug} has ${LEAST_HISTORY - 1} snapshot(s)`);
    expect(error.message).toContain(`test/fixtures/history/${short!.slug}/<date>.json`);
  });

  it('refuses a date that both the repository and the fixtures hold', async () => {
    const repository = await tree(every(LEAST_HISTORY));
    const fixtures = await tree({ [DATASETS[0].slug]: 1 });
    const error = await copyTestHistory([repository, fixtures], await tempDir('rates-history-')).catch((e) => e);
    expect(error.message).toContain(`${DATASETS[0].slug}/${HISTORY_UNTIL}.json is in both`);
  });
});
