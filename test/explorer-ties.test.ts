/**
 * How the explorer ranks and names offers, over the test history in-process: a grade ladder
 * (Squirrel Money's Credit Grade A–D) is one range offer ranked where it starts, the same rule as
 * Heartland's "from 8.95", in /lowest and on the comparison page; offers tied on rate are ordered
 * by what a person pays next (a card's annual fee, a range's end), as each dataset's `tieRule`
 * says; a range given by its end alone reads "up to"; a card the source lists twice under one
 * name is marked as its second listing; and every date the pages give a snapshot is its New
 * Zealand day.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Dataset, DATASETS, itemsOf } from '../src/datasets.ts';
import { EXPLORER, type ExplorerDefinition, itemName } from '../src/explorer/definitions.ts';
import { lowestOffers } from '../src/explorer/lowest.ts';
import { bestCards, comparison, type DatasetView, datasetViews, overview, snapshotDay } from '../src/explorer/pages.ts';
import { nzDate } from '../src/lib/time-words.ts';
import { CreditCardIssuer, LoanInstitution } from '../src/schemas/rates.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { datasetOfSchema, datasetsOfSchema } from './support/datasets.ts';
import { historyDir } from './support/history.ts';

let views: DatasetView[];
beforeAll(async () => {
  views = datasetViews(await compileSnapshotTree(historyDir()));
}, 60_000);

const viewOf = (dataset: Dataset) => views.find((v) => v.dataset === dataset)!;
const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;
const LOANS = datasetsOfSchema(LoanInstitution);
const CARDS = datasetOfSchema(CreditCardIssuer);
/** The loans dataset that lists Squirrel Money's grades. */
const personalLoans = () => LOANS.find((d) => viewOf(d).latest.data.some((e) => e.name === 'Squirrel Money'));

describe('a grade ladder', () => {
  it('Squirrel Money’s Credit Grade A–D is one open range offer, 8.95–15.95 %, from its Grade A rate, with each grade’s rate', () => {
    const personal = personalLoans();
    expect(personal).toBeDefined();
    const view = viewOf(personal!);
    const squirrel = view.latest.data.find((e) => e.name === 'Squirrel Money')!;
    const offers = itemsOf(squirrel).flatMap((item) =>
      definitionOf(personal!)
        .offers(item, squirrel)
        .map((offer) => ({ item: item.name, offer })),
    );
    const graded = offers.filter(({ item }) => /^Credit Grade/.test(item));
    expect(graded).toHaveLength(1);
    const [{ item, offer }] = graded as [(typeof graded)[number]];
    expect(item).toBe('Credit Grade A');
    expect(offer).toMatchObject({
      key: 'unsecured',
      value: 8.95,
      range: { from: 8.95, to: 15.95 },
      label: 'Credit Grade A–D',
      details: 'A 8.95 % · B 11.45 % · C 12.95 % · D 15.95 %',
      next: 15.95,
      restricted: undefined,
    });
    // Its institution table shows it as one row with every grade.
    const rows = definitionOf(personal!).rows(squirrel);
    const ladder = rows.filter((row) => row[0]!.text === 'Credit Grade A–D');
    expect(ladder).toHaveLength(1);
    expect(rows.some((row) => /^Credit Grade [A-D]$/.test(row[0]!.text))).toBe(false);
    expect(ladder[0]![3]!.text).toBe('8.95–15.95');
  });

  it('ranks first on the unsecured comparison page with Heartland’s “from 8.95”, and /lowest names it among the lowest', () => {
    const personal = personalLoans();
    const view = viewOf(personal!);
    const page = comparison(view, 'unsecured', { type: 'all', restricted: false });
    const first = page.rows.filter((r) => r.rank === 1).map((r) => r.entity);
    expect(first).toEqual(expect.arrayContaining(['Heartland Bank', 'Squirrel Money']));
    const squirrel = page.rows.find((r) => r.entity === 'Squirrel Money')!;
    expect(squirrel).toMatchObject({ rank: 1, value: 8.95, lead: 'from', fromRange: true });
    expect(squirrel.offers[0]).toMatchObject({ product: 'Credit Grade A–D', rate: '8.95–15.95 %' });
    const lowest = lowestOffers(personal!, view.latest.data).find((m) => m.measure === 'unsecured')!;
    expect(lowest.rate).toBe(8.95);
    expect(lowest.offers.map((o: any) => o.institutionName)).toContain('Squirrel Money');
    const ladder = lowest.offers.find((o: any) => o.institutionName === 'Squirrel Money') as any;
    expect(ladder).toMatchObject({
      productName: 'Credit Grade A',
      label: 'Credit Grade A–D',
      range: { from: 8.95, to: 15.95 },
    });
    // Grade A is no restricted offer of its own any more.
    expect(lowest.restricted.map((o: any) => o.productName)).not.toContain('Credit Grade A');
  });
});

describe('offers tied on rate', () => {
  it.each(DATASETS.map((d) => [d.slug, d] as const))('%s: in the order its tieRule says, everywhere', (_, dataset) => {
    const view = viewOf(dataset);
    const definition = definitionOf(dataset);
    expect(definition.tieRule.length).toBeGreaterThan(10);
    let tied = 0;
    /** Tied offers are ordered by `next` (unknown last), then by lender and product name. */
    const inOrder = (list: { next?: number; entity: string; product: string }[], where: string) => {
      for (let i = 1; i < list.length; i++) {
        const [a, b] = [list[i - 1]!, list[i]!];
        const [na, nb] = [a.next ?? Infinity, b.next ?? Infinity];
        expect(na <= nb, `${where}: ${a.entity} ${a.product} before ${b.entity} ${b.product}`).toBe(true);
        if (na === nb) expect(a.entity.localeCompare(b.entity, 'en') <= 0, where).toBe(true);
        tied++;
      }
    };
    const nextOf = (id: string) => {
      for (const entity of view.latest.data)
        for (const item of itemsOf(entity))
          for (const offer of definition.offers(item, entity)) if (offer.id === id) return offer.next;
      throw new Error(id);
    };
    for (const card of bestCards(view, 0, 0))
      inOrder(
        card.who.map((w) => ({ next: nextOf(w.id), entity: w.entity, product: w.product })),
        `card ${card.measure.key}`,
      );
    for (const key of definition.compared) {
      const page = comparison(view, key, { type: 'all', restricted: false });
      const byRank = new Map<number, typeof page.rows>();
      for (const row of page.rows) if (row.rank) byRank.set(row.rank, [...(byRank.get(row.rank) ?? []), row]);
      for (const [rank, rows] of byRank)
        inOrder(
          rows.map((r) => ({ next: nextOf(r.ids[0]!), entity: r.entity, product: r.products[0]! })),
          `${key} rank ${rank}`,
        );
    }
    // /lowest names the offers tied on each measure's lowest in the same order.
    const item = dataset.itemsKey === 'products' ? 'product' : 'plan';
    for (const measure of lowestOffers(dataset, view.latest.data) as any[])
      inOrder(
        measure.offers.map((o: any) => ({
          next: nextOf(o.rateId ?? `${o[`${item}Id`]}#${o.field}`),
          entity: o[`${dataset.entity.kind}Name`],
          product: o[`${item}Name`],
        })),
        `/lowest ${measure.measure}`,
      );
    if (dataset === CARDS) expect(tied).toBeGreaterThan(0);
  });

  it('cards tied on rate: the lower annual fee first, a fee not listed last', () => {
    const view = viewOf(CARDS);
    const page = comparison(view, 'purchase', { type: 'all', restricted: false });
    const fees = (row: (typeof page.rows)[number]) =>
      row.offers.map((o) => {
        const entity = view.latest.data.find((e) => e.name === row.entity)!;
        return (itemsOf(entity).find((i) => o.id.startsWith(`${i.id}#`)) as any).annualFeeNZD as number | null;
      });
    let compared = 0;
    for (const row of page.rows) {
      const own = fees(row).map((f) => f ?? Infinity);
      for (let i = 1; i < own.length; i++, compared++) expect(own[i - 1]! <= own[i]!, row.entity).toBe(true);
    }
    const sameRate = new Map<number, number[]>();
    for (const row of page.rows)
      if (row.value !== undefined)
        sameRate.set(row.value, [...(sameRate.get(row.value) ?? []), fees(row)[0] ?? Infinity]);
    for (const [rate, list] of sameRate) {
      for (let i = 1; i < list.length; i++, compared++) expect(list[i - 1]! <= list[i]!, `${rate} %`).toBe(true);
    }
    expect(compared).toBeGreaterThan(0);
  });
});

describe('the words of a rate and a name', () => {
  it('a range given by its end alone reads “up to”, never “from”, on the comparison page and the cards', () => {
    let found = 0;
    for (const dataset of LOANS) {
      const view = viewOf(dataset);
      for (const key of definitionOf(dataset).compared) {
        for (const row of comparison(view, key, { type: 'all', restricted: false }).rows) {
          const first = row.offers[0];
          if (!first?.ranged) continue;
          expect(row.lead, row.entity).toBe(first.rate.startsWith('up to') ? 'up to' : 'from');
          if (row.lead === 'up to') found++;
        }
      }
    }
    expect(found).toBeGreaterThan(0);
  });

  it('a card the source lists twice under one name is marked as its second listing wherever the pages name it', () => {
    const view = viewOf(CARDS);
    const twice = view.latest.data.flatMap((entity) =>
      itemsOf(entity)
        .filter((item, i, all) => all.findIndex((o) => o.name === item.name) !== i)
        .map((item) => ({ entity, item })),
    );
    expect(twice.length).toBeGreaterThanOrEqual(2);
    for (const { entity, item } of twice) {
      expect(itemName(entity, item)).toBe(`${item.name} (second listing)`);
      const rows = definitionOf(CARDS)
        .rows(entity)
        .map((row) => row[0]!.text);
      expect(rows.filter((text) => text === item.name).length, `${entity.name} ${item.name}`).toBeLessThanOrEqual(1);
    }
    const names = overview(view).scatter!.rows.map((row) => row[0]);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('dates', () => {
  it('every date a dataset page, a chart and a comparison page give a snapshot is its collection’s day in New Zealand', () => {
    let differ = 0;
    for (const view of views) {
      const day = (s: { lastUpdated: string }) => nzDate(new Date(s.lastUpdated));
      for (const s of view.snapshots) expect(snapshotDay(s)).toBe(day(s));
      const page = overview(view);
      for (const chart of page.charts) {
        expect(chart.title).toContain(`${day(view.snapshots[0]!)} to ${day(view.latest)}`);
        expect(chart.rows.map((r) => r[0])).toEqual(view.snapshots.map(day));
      }
      const key = view.definition.compared[0]!;
      const compared = comparison(view, key, { type: 'all', restricted: false });
      expect(compared.previousDay).toBe(day(view.snapshots.at(-2)!));
      differ += view.snapshots.filter((s) => !day(s).startsWith(String(Number(s.date.slice(8))))).length;
    }
    // The test history has snapshots whose UTC date is the day before their New Zealand one.
    expect(differ).toBeGreaterThan(0);
  });
});
