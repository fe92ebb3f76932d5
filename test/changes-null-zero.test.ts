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
import { changesEndpointOf } from '../src/changes/endpoint.ts';
import { atomFeed } from '../src/changes/feeds.ts';
import { changeDay, changeDays, type SnapshotData } from '../src/changes/model.ts';
import { describeChanges } from '../src/collect/summary.ts';
import { CreditCardIssuer } from '../src/schemas/rates.ts';
import { diffSnapshots, sameValue } from '../src/snapshots/diff.ts';
import { getJson } from './support/core.ts';
import { apiOver } from './support/core.ts';
import { SITE } from './support/constants.ts';
import { datasetOfSchema } from './support/datasets.ts';
import { newestDates, newestSnapshots, treeOfNewest } from './support/history.ts';

/** The plans of the card schema carry the fees and balance-transfer rates the old collector saved as null. */
const cards = datasetOfSchema(CreditCardIssuer);
const FEE = 'annualFeeNZD';
const BALANCE = 'balanceTransferRate';

let before: SnapshotData;
/** The date `n` days after the newest snapshot's. */
const day = (n: number) => new Date(Date.parse(before.date) + n * 86_400_000).toISOString().slice(0, 10);

/** The next day's snapshot: the same data with `edit` applied to a copy. */
function nextDay(edit: (data: any[]) => void, date = day(1)): SnapshotData {
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

const firstWithNull = (data: any[], field: string) => plans(data).find((p) => p[field] === null);
const planIn = (data: any[], id: string) => plans(data).find((p) => p.id === id);
/** The issuer and the plan of the newest snapshot's first plan whose `field` is `match`. */
function firstPlan(field: string, match: (value: unknown) => boolean) {
  for (const issuer of before.data as any[])
    for (const plan of issuer.plans) if (match(plan[field])) return { issuer, plan };
  throw new Error(`no plan's ${field} matches`);
}

beforeAll(async () => {
  const newest = (await newestSnapshots())[cards.slug];
  before = { date: newestDates()[cards.slug], lastUpdated: newest.lastUpdated, data: newest.data };
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
    // The history has nulls to read as 0, in both fields.
    expect((counts as Record<string, number>)[FEE]).toBeGreaterThan(0);
    expect((counts as Record<string, number>)[BALANCE]).toBeGreaterThan(0);

    expect(changeDay(cards, before, after)).toBeNull();
    expect(changeDays(cards, [before, after])).toEqual([]);
    expect(diffSnapshots(before.data, after.data).moves).toEqual([]);
    const summary = describeChanges(cards, before.data, after.data);
    expect(summary.moves).toBe(0);
    expect(summary.lines.join('\n')).not.toMatch(/annual fee|balance transfer rate|→/);
    // And back: 0 → null is no change either.
    expect(changeDay(cards, { ...after, date: day(1) }, { ...before, date: day(2) })).toBeNull();
  });

  it('a real change next to them is still reported, alone', () => {
    const { issuer, plan } = firstPlan('purchaseRate', (v) => v === null);
    const after = nextDay((data) => {
      zeroesForNulls(data);
      planIn(data, plan.id).purchaseRate = 19.95;
    });
    const changed = changeDay(cards, before, after)!;
    expect(changed.added).toEqual([]);
    expect(changed.removed).toEqual([]);
    expect(changed.changed).toEqual([
      expect.objectContaining({ valueId: `${plan.id}#purchaseRate`, from: null, to: 19.95 }),
    ]);
    const summary = describeChanges(cards, before.data, after.data);
    expect(summary.moves).toBe(1);
    expect(summary.lines).toEqual([`- ${issuer.name} · ${plan.name} · purchase rate: new, — → 19.95`]);
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
      return { date: day(2), lastUpdated: `${day(2)}T02:00:00.000Z`, data };
    };
    const moved = (day: ReturnType<typeof changeDay>) =>
      day!.changed.map((c) => [c.valueId, c.from, c.to]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const ids = [`${feePlan}#${FEE}`, `${ratePlan}#${BALANCE}`].sort();

    expect(moved(changeDay(cards, zeroed, five(zeroed)))).toEqual(ids.map((id) => [id, 0, 5]));
    expect(moved(changeDay(cards, before, five(before)))).toEqual(ids.map((id) => [id, null, 5]));
    expect(moved(changeDay(cards, five(zeroed), { ...zeroed, date: day(3) }))).toEqual(ids.map((id) => [id, 5, 0]));
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
  let fee: ReturnType<typeof firstPlan>;
  beforeAll(async () => {
    fee = firstPlan(FEE, (v) => typeof v === 'number' && v > 0);
    const dir = await treeOfNewest();
    const write = async (day: SnapshotData) => {
      await mkdir(join(dir, cards.slug), { recursive: true });
      const snapshot = { type: cards.type, data: day.data, lastUpdated: day.lastUpdated };
      await writeFile(join(dir, cards.slug, `${day.date}.json`), `${JSON.stringify(snapshot, null, 2)}\n`);
    };
    await write(nextDay(zeroesForNulls, day(1)));
    await write(
      nextDay((data) => {
        zeroesForNulls(data);
        planIn(data, fee.plan.id)[FEE] = fee.plan[FEE] + 50;
      }, day(2)),
    );
    api = await apiOver(dir);
  });

  it('lists only the real change, on its own date', async () => {
    const { response, body } = await getJson(api, `${changesEndpointOf(cards).path}?since=${day(0)}`);
    expect(response.status).toBe(200);
    expect(body.changes.map((d: any) => d.date)).toEqual([day(2)]);
    const [changed] = body.changes;
    expect(changed).toMatchObject({ previousDate: day(1), added: [], removed: [] });
    expect(changed.changed).toEqual([
      expect.objectContaining({
        [cards.entity.param]: fee.issuer.id,
        planId: fee.plan.id,
        field: FEE,
        from: fee.plan[FEE],
        to: fee.plan[FEE] + 50,
      }),
    ]);
  });
});
