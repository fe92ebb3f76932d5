/**
 * The restricted-offer rules (src/explorer/restrictions.ts) and the table of banks
 * (src/explorer/lender-types.ts) against the whole real history: each rule catches exactly the
 * texts it lists and spares the look-alikes it lists, every one of them a real name; the open
 * lowest rates of the newest snapshot are the ones the issue names; nothing open is a 0–1 % top-up.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASET_SLUGS, type DatasetSlug } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { lowestByMeasure } from '../src/explorer/history.ts';
import { BANK_SLUGS, lenderType } from '../src/explorer/lender-types.ts';
import {
  type OfferNames,
  RESTRICTIONS,
  type RestrictionRule,
  restrictionOf,
  restrictionRulesOf,
} from '../src/explorer/restrictions.ts';
import { historyDir } from './support/history.ts';

interface Snapshot {
  date: string;
  data: any[];
}

/** Every snapshot of every dataset in the test history, oldest first. */
const history = {} as Record<DatasetSlug, Snapshot[]>;
/** Every distinct offer's names per dataset, across the history. */
const names = {} as Record<DatasetSlug, OfferNames[]>;

function offerNames(slug: DatasetSlug, entity: any): OfferNames[] {
  if (slug === 'credit-card-rates') return entity.plans.map((p: any) => ({ entity: entity.name, product: p.name }));
  return entity.products.flatMap((p: any) =>
    slug === 'mortgage-rates'
      ? [{ entity: entity.name, product: p.name }]
      : p.rates.map((r: any) => ({ entity: entity.name, product: p.name, condition: r.condition })),
  );
}

beforeAll(async () => {
  for (const slug of DATASET_SLUGS) {
    const dir = join(historyDir(), slug);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    history[slug] = await Promise.all(
      files.map(async (f) => ({ date: f.slice(0, 10), data: JSON.parse(await readFile(join(dir, f), 'utf8')).data })),
    );
    const seen = new Map<string, OfferNames>();
    for (const snapshot of history[slug])
      for (const entity of snapshot.data)
        for (const n of offerNames(slug, entity)) seen.set(JSON.stringify([n.entity, n.product, n.condition]), n);
    names[slug] = [...seen.values()];
  }
});

/** The distinct texts of the rule's field in its datasets' history, caught by it or not. */
function texts(rule: RestrictionRule): Set<string> {
  return new Set(
    rule.datasets.flatMap((d) => names[d].map((n) => n[rule.field]).filter((t): t is string => typeof t === 'string')),
  );
}

describe('each restricted-offer rule, on the real history', () => {
  it.each(RESTRICTIONS.map((r) => [r.key, r] as const))('%s catches exactly the real texts it lists', (_, rule) => {
    const all = texts(rule);
    for (const text of [...rule.catches, ...rule.spares])
      expect(all.has(text), `“${text}” is in the history`).toBe(true);
    const caught = [...all].filter((t) => rule.pattern.test(t)).sort();
    expect(caught).toEqual([...rule.catches].sort());
  });

  it.each(RESTRICTIONS.map((r) => [r.key, r] as const))(
    '%s labels what it catches, and spares look-alikes',
    (_, rule) => {
      const dataset = rule.datasets[0]!;
      const base: OfferNames = { entity: 'Some Lender', product: 'Special', condition: null };
      for (const text of rule.catches) {
        const offer = { ...base, [rule.field]: text };
        expect(
          restrictionRulesOf(dataset, offer).map((r) => r.key),
          text,
        ).toContain(rule.key);
        expect(restrictionOf(dataset, offer), text).toContain(rule.label);
      }
      for (const text of rule.spares)
        expect(restrictionOf(dataset, { ...base, [rule.field]: text }), text).toBeUndefined();
    },
  );

  it('ordinary products are open: Special, Standard, an LVR band, a special needing equity', () => {
    for (const product of [
      'Special',
      'Standard',
      'Standard  LVR < 80%',
      'Prime <60% LVR',
      'Residential',
      'Owner Occupied',
    ])
      expect(restrictionOf('mortgage-rates', { entity: 'ANZ', product }), product).toBeUndefined();
    // The institution China Construction Bank is not a construction loan.
    expect(restrictionOf('mortgage-rates', { entity: 'China Construction Bank', product: 'Standard' })).toBeUndefined();
    // A loan's "To" rate is the most an approved borrower pays: open. Its "From" rate is not.
    expect(
      restrictionOf('personal-loan-rates', { entity: 'Gem', product: 'Personal Loan', condition: 'To' }),
    ).toBeUndefined();
    expect(restrictionOf('personal-loan-rates', { entity: 'Gem', product: 'Personal Loan', condition: 'from' })).toBe(
      'the best-rated borrowers (a “from” rate)',
    );
    // The tier called Green is a credit tier, not a green loan.
    expect(
      restrictionOf('personal-loan-rates', { entity: 'Unity', product: 'Personal Loan', condition: 'Green, to' }),
    ).toBe(undefined);
  });

  it('an offer caught by two rules names both', () => {
    expect(restrictionOf('mortgage-rates', { entity: 'SBS Bank', product: 'Construction lending for FHB' })).toBe(
      'first-home buyers; people building a home',
    );
    expect(
      restrictionOf('mortgage-rates', { entity: 'Paraloan', product: 'For people with physical disabilities....from' }),
    ).toBe('people with physical disabilities; the best-rated borrowers (a “from” rate)');
  });

  it('no open mortgage offer in the whole history is a 0–1 % top-up (no floor is needed)', () => {
    const definition = EXPLORER['mortgage-rates'];
    let open = Infinity;
    for (const snapshot of history['mortgage-rates'])
      for (const entity of snapshot.data)
        for (const item of entity.products)
          for (const offer of definition.offers(item, entity))
            if (!offer.restricted) open = Math.min(open, offer.value);
    expect(open).toBeGreaterThan(4);
  });
});

describe('the lowest open offers of the newest snapshot', () => {
  const lowest = (slug: DatasetSlug) =>
    lowestByMeasure(EXPLORER[slug] as never, history[slug].at(-1)!.data as never) as ReturnType<typeof lowestByMeasure>;
  const named = (who: { entity: { name: string }; item: { name: string } }[]) =>
    who.map((w) => `${w.entity.name} · ${w.item.name}`);

  it('mortgages: 1 year 5.05 % ICBC Special, not SBS Bank First Home Combo at 4.39 %', () => {
    const byTerm = lowest('mortgage-rates');
    const year = byTerm.get('12')!;
    expect(year.value).toBe(5.05);
    expect(named(year.who)).toEqual(['ICBC · Special']);
    expect(year.restricted.map((w) => [w.offer.value, w.entity.name, w.item.name, w.offer.restricted])).toEqual([
      [4.39, 'SBS Bank', 'First Home Combo', 'first-home buyers'],
      [4.69, 'UnityMoney', 'First Home Buyer Special', 'first-home buyers'],
    ]);
    const three = byTerm.get('36')!;
    expect([three.value, named(three.who)]).toEqual([5.15, ['Bank of China · Special']]);
    expect(three.restricted.map((w) => `${w.offer.value} ${w.entity.name} · ${w.item.name}`)).toEqual([
      '1 ANZ · Good Energy - Up to $80K',
      '1 ASB · Better Homes Top Up',
      '1 BNZ · Green Home Loan top-ups',
      '4.03 Paraloan · For people with physical disabilities....from',
    ]);
    const floating = byTerm.get('floating')!;
    expect([floating.value, named(floating.who)]).toEqual([5.8, ['CFML Loans · 321 Loans']]);
    expect(floating.restricted.map((w) => `${w.offer.value} ${w.item.name}`)).toEqual([
      '4.44 Construction lending for FHB',
      '4.95 Member home loan',
    ]);
  });

  it('loans: the lowest open rate is never a “from” rate', () => {
    for (const slug of ['personal-loan-rates', 'car-loan-rates'] as const) {
      for (const [key, best] of lowest(slug)) {
        for (const w of best.who) {
          const rate = (w.item as any).rates.find((r: any) => r.id === w.offer.id);
          expect(rate.condition ?? '', `${slug} ${key} ${w.entity.name}`).not.toMatch(/from/i);
        }
      }
    }
  });
});

describe('banks and non-banks', () => {
  it('every listed bank is in the history, and every lender named a bank is listed', () => {
    const all = new Map<string, string>();
    for (const slug of DATASET_SLUGS)
      for (const snapshot of history[slug]) for (const e of snapshot.data) all.set(e.id.split(':')[1], e.name);
    for (const slug of BANK_SLUGS) expect(all.has(slug), slug).toBe(true);
    const named = [...all].filter(([, name]) => /\bbank\b/i.test(name)).map(([slug]) => slug);
    expect(named.length).toBeGreaterThan(5);
    for (const slug of named) expect(BANK_SLUGS.has(slug), slug).toBe(true);
  });

  it('banks by their ids, building societies, credit unions and finance companies are not', () => {
    for (const id of ['institution:anz', 'institution:icbc', 'institution:kiwibank', 'issuer:hsbc', 'issuer:westpac'])
      expect(lenderType(id), id).toBe('bank');
    for (const id of [
      'institution:nelson-bldg-society',
      'institution:first-cu',
      'institution:unitymoney',
      'institution:kainga-ora-hnz',
      'institution:aia',
      'issuer:amex',
    ])
      expect(lenderType(id), id).toBe('non-bank');
  });
});
