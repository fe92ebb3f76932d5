/**
 * Every value guarded by what it is: a move is measured per lender and measure (a term, a plan, a
 * card's rate, fee or interest-free period) from the nearest value the lender had, so renaming an
 * offer never resets its move; fees and periods have limits of their own, chosen from the
 * history's own largest real moves (figures computed here again from the test history); a run in
 * which most ids are new is a rename and keeps every value. Each page is served over a real
 * socket in the live page's markup and collected; a refusal leaves the newest snapshot byte for byte.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectOptions, DatasetResult } from '../src/collect/collect.ts';
import { GUARD_LIMITS } from '../src/collect/guards.ts';
import { HISTORY_MOVES, HISTORY_MOVES_UNTIL, historyFigures } from '../src/collect/history-moves.ts';
import { measuresOf, movesBetween } from '../src/collect/moves.ts';
import { DATASETS, type DatasetSlug, type Entity, itemsOf } from '../src/datasets.ts';
import { CreditCardIssuer } from '../src/schemas/rates.ts';
import { listSnapshotDates, readSnapshot } from '../src/snapshots/tree.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { HISTORY_UNTIL } from './support/constants.ts';
import { datasetOfSchema, EACH } from './support/datasets.ts';
import { historyDir, withRates } from './support/history.ts';
import { collectBench } from './support/collect-bench.ts';

const bench = collectBench();

const CARDS = datasetOfSchema(CreditCardIssuer).slug;

/** The live page of `data` collected: the run's result for the dataset. */
const collectPage = (slug: DatasetSlug, data: readonly Entity[], extra: Partial<CollectOptions> = {}) =>
  bench.collectPage(slug, renderRealStylePage(slug, data), undefined, extra);
const { expectRefused } = bench;

async function expectWritten(slug: DatasetSlug, result: DatasetResult) {
  expect(result.reason).toBeUndefined();
  expect(result.outcome).toBe('written');
  const names = (await readdir(join(bench.snapshots, slug))).sort();
  return JSON.parse(await readFile(join(bench.snapshots, slug, names.at(-1)!), 'utf8')).data as any[];
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The data with every product and plan renamed ("Standard" → "Standard Plus") and every rate (promotions aside) moved `delta` points, down from above 20 %. */
function renamed(data: readonly Entity[], delta: number): any[] {
  const copy = withRates(
    data,
    (rate) => round(rate + (rate > 20 ? -delta : delta)),
    undefined,
    (key) => key !== 'balanceTransferRate',
  );
  for (const entity of copy) for (const item of itemsOf(entity) as any[]) item.name = `${item.name} Plus`;
  return copy;
}

/** The card data with `edit` applied to every plan. */
function plans(edit: (plan: any) => void): any[] {
  const copy = structuredClone(bench.newest[CARDS].data) as any[];
  for (const issuer of copy) for (const plan of issuer.plans) edit(plan);
  return copy;
}

describe("the history's own largest real moves, from which the limits are chosen", () => {
  it('are computed again from the test history, which is the one HISTORY_MOVES is of', async () => {
    expect(HISTORY_MOVES_UNTIL).toBe(HISTORY_UNTIL);
    const histories: Record<string, any[]> = {};
    for (const dataset of DATASETS) {
      const dates = await listSnapshotDates(historyDir(), dataset);
      histories[dataset.slug] = await Promise.all(dates.map((date) => readSnapshot(historyDir(), dataset, date)));
    }
    expect(historyFigures(histories)).toEqual(HISTORY_MOVES);
  });

  it('give the fee limit ($105 × 2, at least $100), the period limit (no real move: the 30-day floor), and one run’s limits to every window', () => {
    expect(HISTORY_MOVES.consecutive.fee.value).toBe(105);
    expect(GUARD_LIMITS.maxFeeMove).toBe(210);
    expect(Math.max(...Object.values(HISTORY_MOVES).map((w) => w.days.value))).toBe(0);
    expect(GUARD_LIMITS.maxDaysMove).toBe(30);
    // Real rate moves reach one run's limit within seven days and between snapshots: no window's may be tighter.
    expect(HISTORY_MOVES.week.rate.value).toBeGreaterThan(GUARD_LIMITS.maxRateMove);
    expect(HISTORY_MOVES.consecutive.rate.value).toBeGreaterThan(GUARD_LIMITS.maxRateMove);
    // The share of ids that makes a rename is far past any the history shows.
    for (const w of Object.values(HISTORY_MOVES)) expect(w.newIds.value).toBeLessThan(GUARD_LIMITS.renameShare / 5);
  });
});

describe('moves measured by lender and measure, never by id', () => {
  it.each(EACH)(
    '%s: every product renamed and every rate moved 20 points is refused, naming the renamed offer and the value it came from',
    async (slug) => {
      const reason = await expectRefused(
        slug,
        await collectPage(slug, renamed(bench.newest[slug].data, 20)),
        'a rate moved more than 5 percentage points in one run',
      );
      expect(reason).toMatch(/:[\w-]*-plus(:\S+)? \w+ [\d.]+ → [\d.]+/);
    },
  );

  it.each(EACH)(
    '%s: every product renamed and every rate moved 1 point is refused as a rename that moves values',
    async (slug) => {
      const data = renamed(bench.newest[slug].data, 1);
      const reason = await expectRefused(slug, await collectPage(slug, data), 'a rename that moves values');
      expect(reason).toMatch(/\d+ % of the \d+ product, plan and rate ids of the lenders kept are new/);
      expect(reason).toContain(`${bench.newest[slug].data[0].id} `);
      // A maintainer who read the page lifts the move limit: the rename is collected.
      await expectWritten(slug, await collectPage(slug, data, { maxRateMove: 6 }));
    },
  );

  it('a rate of neither term nor plan is measured with its lender’s other such rates, whatever amount it is paid from', () => {
    const lender = (rates: object[]) =>
      [{ id: 'institution:a', name: 'A', products: [{ id: 'product:a:p', name: 'P', rates }] }] as any[];
    const before = measuresOf(
      lender([
        { id: 'rate:a:p:from-0', rate: 0.5, minimumDepositNZD: 0 },
        { id: 'rate:a:p:from-5000', rate: 3, minimumDepositNZD: 5000 },
      ]),
    );
    // The threshold relabelled ($5,000 → $4,000): still the lender's measure, its move judged from the nearest rate.
    const now = measuresOf(lender([{ id: 'rate:a:p:from-4000', rate: 9, minimumDepositNZD: 4000 }]));
    expect([...now.values()].map((m) => m.measure)).toEqual(['rate']);
    expect(movesBetween(before, now)).toMatchObject([{ lender: 'institution:a', measure: 'rate', from: 3, to: 9 }]);
  });

  it.each(EACH)('%s: every product renamed, every value kept, is collected under the new names', async (slug) => {
    const written = await expectWritten(slug, await collectPage(slug, renamed(bench.newest[slug].data, 0)));
    expect(itemsOf(written[0]).every((item: any) => item.name.endsWith(' Plus'))).toBe(true);
  });
});

describe('card fees and interest-free periods have move limits of their own', () => {
  it(`fees ×100, the page's cents read as dollars, are refused past $${GUARD_LIMITS.maxFeeMove}`, async () => {
    const data = plans((plan) => {
      if (plan.annualFeeNZD !== null && plan.annualFeeNZD <= 100) plan.annualFeeNZD *= 100;
    });
    const reason = await expectRefused(
      CARDS,
      await collectPage(CARDS, data),
      `a fee moved more than $${GUARD_LIMITS.maxFeeMove} in one run`,
    );
    expect(reason).toMatch(/plan:\S+ annualFeeNZD \d+ → \d+00\b/);
  });

  it(`interest-free periods 100 days longer are refused past ${GUARD_LIMITS.maxDaysMove} days`, async () => {
    const data = plans((plan) => {
      if (plan.interestFreeDays !== null) plan.interestFreeDays += 100;
    });
    const reason = await expectRefused(
      CARDS,
      await collectPage(CARDS, data),
      `an interest-free period moved more than ${GUARD_LIMITS.maxDaysMove} days in one run`,
    );
    expect(reason).toMatch(/plan:\S+ interestFreeDays (\d+) → \d+/);
  });

  it('a fee $100 dearer, a period of 44 days made 55, promotions starting and ending, and a 0 where the history holds none are collected', async () => {
    let [fee, days] = [false, false];
    const data = plans((plan) => {
      if (!fee && plan.annualFeeNZD > 0) [plan.annualFeeNZD, fee] = [plan.annualFeeNZD + 100, true];
      if (!days && plan.interestFreeDays === 44) [plan.interestFreeDays, days] = [55, true];
      // Balance-transfer promotions move freely: 0 ↔ 19.95 is real.
      plan.balanceTransferRate = plan.balanceTransferRate === null ? null : plan.balanceTransferRate > 10 ? 0 : 19.95;
      // The history saved the page's 0 fees as null: the page's 0 is no move.
      plan.annualFeeNZD ??= 0;
    });
    expect([fee, days]).toEqual([true, true]);
    await expectWritten(CARDS, await collectPage(CARDS, data));
  });

  it('a maintainer who lifts the rate move limit lifts the fee and period limits in proportion', async () => {
    const data = plans((plan) => {
      if (plan.interestFreeDays !== null) plan.interestFreeDays += 40;
    });
    await expectRefused(
      CARDS,
      await collectPage(CARDS, data),
      'an interest-free period moved more than 30 days in one run',
    );
    // Twice the rate limit: 60 days.
    await expectWritten(CARDS, await collectPage(CARDS, data, { maxRateMove: 2 * GUARD_LIMITS.maxRateMove }));
  });
});
