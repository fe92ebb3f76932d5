/**
 * Limits over windows, not runs: every guard holds against the newest snapshot, the newest at
 * least 24 hours old and the newest at least seven days old (the trusted state), so no sequence
 * of runs, across days or midnight, goes further than one run may. Each case is a sequence of
 * runs at injected clock times, each page served over a real socket in the live page's markup
 * (renderRealStylePage) and collected; every refusal leaves the snapshot tree as it was.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectOptions, DatasetResult } from '../src/collect/collect.ts';
import { GUARD_LIMITS } from '../src/collect/guards.ts';
import { type DatasetSlug, type Entity, itemsOf } from '../src/datasets.ts';
import { MortgageInstitution } from '../src/schemas/rates.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { datasetOfSchema, EACH } from './support/datasets.ts';
import { allRates, movedWithinBounds, newestDates, tempDir, withRates } from './support/history.ts';
import { collectBench } from './support/collect-bench.ts';

const bench = collectBench();

/** The live page of `data` collected at `when` (an ISO time): the run's result for the dataset. */
const collectAt = (slug: DatasetSlug, data: readonly Entity[], when: string, extra: Partial<CollectOptions> = {}) =>
  bench.collectPage(slug, renderRealStylePage(slug, data), new Date(when), extra);

/** Every snapshot file of the dataset and its bytes. */
async function treeOf(slug: DatasetSlug): Promise<Record<string, string>> {
  const dir = join(bench.snapshots, slug);
  const names = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), 'utf8')])));
}

/** A refusal by `rule`: the run failed and the tree is byte for byte what it was. */
async function expectRefused(slug: DatasetSlug, result: DatasetResult, rule: string, before: Record<string, string>) {
  expect(result.outcome).toBe('failed');
  expect(result.reason).toContain(`refused (${rule})`);
  expect(await treeOf(slug)).toEqual(before);
  return result.reason!;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * The data with every rate (balance-transfer promotions aside) of every lender `which` picks moved
 * `delta` points, the other way where that would leave the rates' bounds: down from above 20 %, up where down would pass 0.
 */
function moved(data: readonly Entity[], delta: number, which: (index: number) => boolean = () => true): Entity[] {
  return withRates(
    data,
    (rate) => movedWithinBounds(rate, delta, 20),
    (_, index) => which(index),
    (key) => key !== 'balanceTransferRate',
  );
}

/** The data the written newest file holds. */
async function newestData(slug: DatasetSlug) {
  const names = (await readdir(join(bench.snapshots, slug))).sort();
  return JSON.parse(await readFile(join(bench.snapshots, slug, names.at(-1)!), 'utf8')).data;
}

const SEVEN_DAYS = (slug: DatasetSlug) => `the snapshot of at least seven days ago (${newestDates()[slug]})`;

describe('limits over windows: no sequence of runs goes further than one run may', () => {
  it.each(EACH)(
    '%s: four daily runs of +4.9 points are refused from the second, naming the week-old snapshot; the real page is collected on the next run',
    async (slug) => {
      const data = bench.newest[slug].data;
      expect((await collectAt(slug, moved(data, 4.9), '2026-11-21T03:00:00.000Z')).outcome).toBe('written');
      const walked = await treeOf(slug);
      for (const day of [2, 3, 4]) {
        const result = await collectAt(slug, moved(data, 4.9 * day), `2026-11-2${day}T03:00:00.000Z`);
        expect(result.outcome).toBe('failed');
        expect(await treeOf(slug)).toEqual(walked);
        if (day === 2) {
          expect(result.reason).toContain('refused (a rate moved more than 5 percentage points within seven days)');
          expect(result.reason).toContain(`from ${SEVEN_DAYS(slug)}: `);
        }
      }
      const real = await collectAt(slug, data, '2026-11-24T04:00:00.000Z');
      expect(real.reason).toBeUndefined();
      expect(real.outcome).toBe('written');
      expect(await newestData(slug)).toEqual(data);
    },
  );

  it.each(EACH)(
    '%s: a list walked down over six days is refused before it falls below half of the week-old list; the whole list is collected on the next run',
    async (slug) => {
      const rateCount = (e: Entity) => itemsOf(e).length;
      // The lenders with the most items first, so a share of the lenders keeps at least that share of the rates.
      const data = [...bench.newest[slug].data].sort((a, b) => rateCount(b) - rateCount(a));
      const keep = (share: number) => data.slice(0, Math.ceil(data.length * share));
      let kept = await treeOf(slug);
      const outcomes: string[] = [];
      for (const [day, share] of [0.77, 0.56, 0.41, 0.28, 0.15, 0.05].entries()) {
        const result = await collectAt(slug, keep(share), `2026-11-2${day + 1}T03:00:00.000Z`);
        outcomes.push(result.outcome);
        if (result.outcome === 'failed') {
          expect(await treeOf(slug)).toEqual(kept);
          if (share === 0.41)
            expect(result.reason).toMatch(
              new RegExp(
                `^refused \\(shrink\\): only \\d+ institutions where ${SEVEN_DAYS(slug).replace(/[()]/g, '\\$&')} has ${data.length} \\(below 50 %\\)`,
              ),
            );
        } else kept = await treeOf(slug);
        expect((await newestData(slug)).length).toBeGreaterThanOrEqual(data.length / 2);
      }
      expect(outcomes).toEqual(['written', 'written', 'failed', 'failed', 'failed', 'failed']);
      // The newest lists just over half: the whole list grows past 150 % of it, and is the trusted state come back.
      const real = await collectAt(slug, bench.newest[slug].data, '2026-11-26T04:00:00.000Z');
      expect(real.reason).toBeUndefined();
      expect(real.outcome).toBe('written');
      expect(await newestData(slug)).toEqual(bench.newest[slug].data);
    },
  );

  it.each(EACH)(
    '%s: lenders replaced a third a day are refused on the second day, naming the week-old list',
    async (slug, dataset) => {
      const data = bench.newest[slug].data;
      const third = Math.ceil(data.length / 3);
      const replaced = (count: number) =>
        data.map((e, i) => (i < count ? { ...e, id: `${dataset.entity.prefix}:lender-${i}`, name: `Lender ${i}` } : e));
      expect((await collectAt(slug, replaced(third), '2026-11-21T03:00:00.000Z')).outcome).toBe('written');
      const kept = await treeOf(slug);
      const second = await collectAt(slug, replaced(2 * third), '2026-11-22T03:00:00.000Z');
      const reason = await expectRefused(slug, second, 'other lenders', kept);
      expect(reason).toContain(`of the ${data.length} institutions of ${SEVEN_DAYS(slug)} are listed (below 50 %)`);
      await expectRefused(
        slug,
        await collectAt(slug, replaced(data.length), '2026-11-23T03:00:00.000Z'),
        'other lenders',
        kept,
      );
    },
  );

  it.each(EACH)(
    '%s: runs at 23:30 and 00:30 moving +9.8 in one hour are refused at the second, naming the day-old snapshot',
    async (slug) => {
      const data = bench.newest[slug].data;
      expect((await collectAt(slug, moved(data, 4.9), '2026-11-20T23:30:00.000Z')).outcome).toBe('written');
      const kept = await treeOf(slug);
      const reason = await expectRefused(
        slug,
        await collectAt(slug, moved(data, 9.8), '2026-11-21T00:30:00.000Z'),
        'a rate moved more than 5 percentage points within 24 hours',
        kept,
      );
      expect(reason).toContain(`from the snapshot of at least 24 hours ago (${newestDates()[slug]}): `);
    },
  );

  it.each(EACH)(
    '%s: a real cash-rate week, every rate −0.25 points a day for seven days, is collected every day',
    async (slug) => {
      for (let day = 1; day <= 7; day++) {
        const data = withRates(bench.newest[slug].data, (rate) => (rate > 2 ? round(rate - 0.25 * day) : rate));
        const result = await collectAt(slug, data, `2026-11-2${day}T03:00:00.000Z`);
        expect(result.reason).toBeUndefined();
        expect(result.outcome).toBe('written');
      }
    },
  );
});

describe('what the newest holds stands, and the trusted state', () => {
  it.each(EACH)(
    '%s: a move a maintainer lifted the limit for stands on later runs, and the page turning back is collected',
    async (slug) => {
      const data = bench.newest[slug].data;
      // A small move first, so the lifted run is held against the newest snapshot and, apart, the day-old one.
      expect(
        (
          await collectAt(
            slug,
            moved(data, 0.1, (i) => i === 2),
            '2026-11-21T02:00:00.000Z',
          )
        ).outcome,
      ).toBe('written');
      const lifted = moved(data, 7, (i) => i === 0);
      const refused = await collectAt(slug, lifted, '2026-11-21T03:00:00.000Z');
      expect(refused.reason).toContain('refused (a rate moved more than 5 percentage points in one run)');
      const first = await collectAt(slug, lifted, '2026-11-21T03:00:00.000Z', { maxRateMove: 8 });
      expect(first.outcome).toBe('replaced');
      // The same page an hour later, and the next day with another lender moving a little.
      expect((await collectAt(slug, lifted, '2026-11-21T04:00:00.000Z')).outcome).toBe('unchanged');
      const next = moved(lifted, -0.25, (i) => i === 1);
      const later = await collectAt(slug, next, '2026-11-22T03:00:00.000Z');
      expect(later.reason).toBeUndefined();
      expect(later.outcome).toBe('written');
      // The first lender as it was, 7 points from the newest snapshot, is the trusted state's value.
      const back = await collectAt(
        slug,
        moved(data, -0.25, (i) => i === 1),
        '2026-11-22T04:00:00.000Z',
      );
      expect(back.reason).toBeUndefined();
      expect(back.outcome).toBe('replaced');
    },
  );

  it.each(EACH)('%s: a list a maintainer accepted below half stands on later runs', async (slug) => {
    const data = [...bench.newest[slug].data].sort((a, b) => itemsOf(b).length - itemsOf(a).length);
    const third = data.slice(0, Math.ceil(data.length / 3));
    await expectRefused(slug, await collectAt(slug, third, '2026-11-21T03:00:00.000Z'), 'shrink', await treeOf(slug));
    expect((await collectAt(slug, third, '2026-11-21T03:00:00.000Z', { minRatio: 0.3 })).outcome).toBe('written');
    expect((await collectAt(slug, third, '2026-11-21T04:00:00.000Z')).outcome).toBe('unchanged');
    const later = await collectAt(
      slug,
      moved(third, 0.1, (i) => i === 0),
      '2026-11-22T03:00:00.000Z',
    );
    expect(later.reason).toBeUndefined();
    expect(later.outcome).toBe('written');
    // Fewer still is further from the week-old list than the newest went: refused.
    const kept = await treeOf(slug);
    await expectRefused(slug, await collectAt(slug, third.slice(1), '2026-11-22T04:00:00.000Z'), 'shrink', kept);
  });

  it.each(EACH)(
    '%s: a page swinging past the newest snapshot, and no nearer the trusted state, is refused by the newest',
    async (slug) => {
      // The highest rate (promotions aside) down by 98 % of the move limit, then up by as much from where it was:
      // each within the limit of the trusted state, the two further apart than it. Under 5 %, the limit is the
      // rate's whole points (COLLECT_MAX_RATE_MOVE lowered), so the step down stays above 0.
      const data = bench.newest[slug].data;
      const [top] = allRates(data)
        .filter((r) => r.key !== 'balanceTransferRate')
        .sort((a, b) => b.value - a.value);
      const limit = Math.min(GUARD_LIMITS.maxRateMove, Math.floor(top!.value));
      const step = round(limit * 0.98);
      const swung = (delta: number) => {
        const copy = structuredClone(data) as any[];
        const rate = allRates(copy).find((r) => r.id === top!.id && r.key === top!.key)!;
        rate.holder[rate.key] = round(rate.value + delta);
        return copy;
      };
      const options = { maxRateMove: limit };
      expect((await collectAt(slug, swung(-step), '2026-11-20T03:00:00.000Z', options)).outcome).toBe('written');
      const kept = await treeOf(slug);
      const reason = await expectRefused(
        slug,
        await collectAt(slug, swung(step), '2026-11-21T01:00:00.000Z', options),
        `a rate moved more than ${limit} percentage points in one run`,
        kept,
      );
      expect(reason).not.toContain('from the snapshot');
    },
  );

  it('each refusal names its anchor: the newest snapshot, the day-old one, the week-old one, or the oldest standing in', async () => {
    const { slug } = datasetOfSchema(MortgageInstitution);
    bench.snapshots = await tempDir('rates-empty-');
    const data = bench.newest[slug].data;
    expect((await collectAt(slug, data, '2026-11-20T03:00:00.000Z')).outcome).toBe('written');
    expect((await collectAt(slug, moved(data, 4.9), '2026-11-21T00:30:00.000Z')).outcome).toBe('written');
    const kept = await treeOf(slug);
    const rule = (span: string) => `a rate moved more than 5 percentage points ${span}`;
    const cases: [when: string, delta: number, rule: string, anchor: string][] = [
      [
        '2026-11-21T01:00:00.000Z',
        9.8,
        rule('within 24 hours'),
        'from the oldest snapshot (2026-11-20), none being 24 hours old: ',
      ],
      [
        '2026-11-21T04:00:00.000Z',
        9.8,
        rule('within 24 hours'),
        'from the snapshot of at least 24 hours ago (2026-11-20): ',
      ],
      [
        '2026-11-27T04:00:00.000Z',
        9.8,
        rule('within seven days'),
        'from the snapshot of at least seven days ago (2026-11-20): ',
      ],
      ['2026-11-27T05:00:00.000Z', 12, rule('in one run'), `): rate:${data[0]!.id.split(':')[1]}:`],
    ];
    for (const [when, delta, broken, anchor] of cases)
      expect(await expectRefused(slug, await collectAt(slug, moved(data, delta), when), broken, kept)).toContain(
        anchor,
      );
    const few = await collectAt(slug, data.slice(0, 5), '2026-11-27T06:00:00.000Z');
    expect(await expectRefused(slug, few, 'shrink', kept)).toContain(
      `only 5 institutions where the newest snapshot has ${data.length}`,
    );
  });
});
