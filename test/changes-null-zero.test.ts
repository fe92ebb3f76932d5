/**
 * Null and 0 are one value to every reader of the diff: the imported history saved every 0 the
 * page showed as null (its collector read numbers with `parseFloat(text) || null`), so the first
 * live collection, reading $0 fees and 0 % balance transfers, must not report them as changes —
 * in the change model (JSON change log, Atom feeds), the collector's summary and the diff the
 * "what changed" page reads. A real change next to them, and 0 → 5 or null → 5, still are.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { atomFeed } from '../src/changes/feeds.ts';
import { changeDay, changeDays, type SnapshotData } from '../src/changes/model.ts';
import { describeChanges } from '../src/collect/summary.ts';
import { datasetBySlug } from '../src/datasets.ts';
import { diffSnapshots, sameValue } from '../src/snapshots/diff.ts';
import { getJson } from './support/core.ts';
import { apiOver } from './support/core.ts';
import { SITE } from './support/constants.ts';
import { newestSnapshots, treeOfNewest } from './support/history.ts';

const cards = datasetBySlug('credit-card-rates')!;
const FEE = 'annualFeeNZD';
const BALANCE = 'balanceTransferRate';

let before: SnapshotData;

/** The next day's snapshot: the same data with `edit` applied to a copy. */
function nextDay(edit: (data: any[]) => void, date = '2025-01-08'): SnapshotData {
  const data = structuredClone(before.data) as any[];
  edit(data);
  return { date, lastUpdated: `${date}T02:00:00.000Z`, data };
}

const plans = (data: any[]) => data.flatMap((issuer) => issuer.plans);

/** Every null fee and balance-transfer rate read as 0, as the live page shows them; how many of each. */
function zeroesForNulls(data: any[]) {
  const counts = { [FEE]: 0, [BALANCE]: 0 };
  for (const plan of plans(data))
    for (const field of [FEE, BALANCE] as const)
      if (plan[field] === null) {
        plan[field] = 0;
        counts[field]++;
      }
  return counts;
}

const amexPlatinum = (data: any[]) => plans(data).find((p) => p.id === 'plan:amex:platinum-charge-card');
const firstWithNull = (data: any[], field: string) => plans(data).find((p) => p[field] === null);

beforeAll(async () => {
  const newest = (await newestSnapshots())['credit-card-rates'];
  before = { date: '2025-01-07', lastUpdated: newest.lastUpdated, data: newest.data };
});

describe('null ↔ 0 is no change', () => {
  it('the rule: null and 0 are the same value, any other pair of different values is not', () => {
    expect(sameValue(null, 0)).toBe(true);
    expect(sameValue(0, null)).toBe(true);
    expect(sameValue(5, 5)).toBe(true);
    expect(sameValue(0, 5)).toBe(false);
    expect(sameValue(null, 5)).toBe(false);
    expect(sameValue(5, 0)).toBe(false);
    expect(sameValue(null, '6 months')).toBe(false);
  });

  it('a snapshot differing only by null → 0 (fees, balance-transfer rates) has no change day, no move, no summary line', () => {
    let counts = {};
    const after = nextDay((data) => (counts = zeroesForNulls(data)));
    // The history has nulls to read as 0: the newest card snapshot has 26 null fees.
    expect(counts).toMatchObject({ [FEE]: 26 });
    expect((counts as Record<string, number>)[BALANCE]).toBeGreaterThan(6);

    expect(changeDay(before, after)).toBeNull();
    expect(changeDays(cards, [before, after])).toEqual([]);
    expect(diffSnapshots(before.data, after.data).moves).toEqual([]);
    const summary = describeChanges(cards, before.data, after.data);
    expect(summary.moves).toBe(0);
    expect(summary.lines.join('\n')).not.toMatch(/annual fee|balance transfer rate|→/);
    // And back: 0 → null is no change either.
    expect(changeDay({ ...after, date: '2025-01-08' }, { ...before, date: '2025-01-09' })).toBeNull();
  });

  it('a real change next to them is still reported, alone', () => {
    const after = nextDay((data) => {
      zeroesForNulls(data);
      amexPlatinum(data).purchaseRate = 19.95;
    });
    const day = changeDay(before, after)!;
    expect(day.added).toEqual([]);
    expect(day.removed).toEqual([]);
    expect(day.changed).toEqual([
      expect.objectContaining({ valueId: 'plan:amex:platinum-charge-card#purchaseRate', from: null, to: 19.95 }),
    ]);
    const summary = describeChanges(cards, before.data, after.data);
    expect(summary.moves).toBe(1);
    expect(summary.lines).toEqual(['- Amex · Platinum Charge Card · purchase rate: — → 19.95']);
  });

  it('0 → 5, null → 5 and 5 → 0 are changes', () => {
    const zeroed = nextDay(zeroesForNulls);
    const feePlan = firstWithNull(before.data as any[], FEE).id;
    const ratePlan = firstWithNull(before.data as any[], BALANCE).id;
    const set = (data: any[], value: number) => {
      plans(data).find((p) => p.id === feePlan)[FEE] = value;
      plans(data).find((p) => p.id === ratePlan)[BALANCE] = value;
    };
    const five = (from: SnapshotData) => {
      const data = structuredClone(from.data) as any[];
      set(data, 5);
      return { date: '2025-01-09', lastUpdated: '2025-01-09T02:00:00.000Z', data };
    };
    const moved = (day: ReturnType<typeof changeDay>) =>
      day!.changed.map((c) => [c.valueId, c.from, c.to]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const ids = [`${feePlan}#${FEE}`, `${ratePlan}#${BALANCE}`].sort();

    expect(moved(changeDay(zeroed, five(zeroed)))).toEqual(ids.map((id) => [id, 0, 5]));
    expect(moved(changeDay(before, five(before)))).toEqual(ids.map((id) => [id, null, 5]));
    expect(moved(changeDay(five(zeroed), { ...zeroed, date: '2025-01-10' }))).toEqual(ids.map((id) => [id, 5, 0]));
    expect(describeChanges(cards, zeroed.data, five(zeroed).data).moves).toBe(2);
  });

  it('the Atom feed has no entry for a null → 0 day', () => {
    const after = nextDay(zeroesForNulls);
    const days = changeDays(cards, [before, after]);
    const feed = atomFeed(
      { kind: 'dataset', dataset: cards },
      [{ dataset: cards, days, lastUpdated: after.lastUpdated }],
      SITE,
    );
    expect(feed).not.toContain('<entry>');
  });
});

describe('the JSON change log over a history whose next day reads 0 for null', () => {
  let api: Handler;
  beforeAll(async () => {
    const dir = await treeOfNewest();
    const write = async (day: SnapshotData) => {
      await mkdir(join(dir, cards.slug), { recursive: true });
      const snapshot = { type: cards.type, data: day.data, lastUpdated: day.lastUpdated };
      await writeFile(join(dir, cards.slug, `${day.date}.json`), `${JSON.stringify(snapshot, null, 2)}\n`);
    };
    await write(nextDay(zeroesForNulls, '2025-01-08'));
    await write(
      nextDay((data) => {
        zeroesForNulls(data);
        amexPlatinum(data)[FEE] = 1300;
      }, '2025-01-09'),
    );
    api = await apiOver(dir);
  });

  it('lists only the real change, on its own date', async () => {
    const { response, body } = await getJson(api, '/api/v1/credit-card-rates/changes?since=2025-01-01');
    expect(response.status).toBe(200);
    expect(body.changes.map((d: any) => d.date)).toEqual(['2025-01-09']);
    const [day] = body.changes;
    expect(day).toMatchObject({ previousDate: '2025-01-08', added: [], removed: [] });
    expect(day.changed).toEqual([
      expect.objectContaining({
        issuerId: 'issuer:amex',
        planId: 'plan:amex:platinum-charge-card',
        field: FEE,
        from: 1250,
        to: 1300,
      }),
    ]);
  });
});
