/**
 * The restricted-offer rules (src/explorer/restrictions.ts) and the table of banks
 * (src/explorer/lender-types.ts) against the whole real history: each rule catches exactly the
 * texts it lists and spares the look-alikes it lists, every one of them a real name; the best
 * open offers of the newest snapshot leave the restricted ones apart; nothing open is a 0–1 % top-up.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASET_SLUGS, type DatasetSlug } from '../src/datasets.ts';
import { datasetsOfRule, EXPLORER, type ExplorerDefinition } from '../src/explorer/definitions.ts';
import { bestByMeasure } from '../src/explorer/history.ts';
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
/** Every rule: the names below are open under all of them together. */
const ALL = RESTRICTIONS.map((r) => r.key);
const ruleOf = (key: string) => RESTRICTIONS.find((r) => r.key === key)!;

/** The names of an entity's offers, as its items give them. */
function offerNames(entity: any): OfferNames[] {
  return (entity.products ?? entity.plans).map((item: any) => ({ entity: entity.name, product: item.name }));
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
        for (const n of offerNames(entity)) seen.set(JSON.stringify([n.entity, n.product]), n);
    names[slug] = [...seen.values()];
  }
});

/** The distinct texts of the rule's field in its datasets' history, caught by it or not. */
function texts(rule: RestrictionRule): Set<string> {
  return new Set(
    datasetsOfRule(rule).flatMap((d) =>
      names[d].map((n) => n[rule.field]).filter((t): t is string => typeof t === 'string'),
    ),
  );
}

describe('each restricted-offer rule, on the real history', () => {
  it.each(RESTRICTIONS.map((r) => [r.key, r] as const))('%s applies to a dataset', (_, rule) => {
    expect(datasetsOfRule(rule).length).toBeGreaterThan(0);
  });

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
      const keys = EXPLORER[datasetsOfRule(rule)[0]!].restrictions;
      const base: OfferNames = { entity: 'Some Lender', product: 'Special' };
      for (const text of rule.catches) {
        const offer = { ...base, [rule.field]: text };
        expect(
          restrictionRulesOf(keys, offer).map((r) => r.key),
          text,
        ).toContain(rule.key);
        expect(restrictionOf(keys, offer), text).toContain(rule.label);
      }
      for (const text of rule.spares)
        expect(restrictionOf(keys, { ...base, [rule.field]: text }), text).toBeUndefined();
    },
  );

  it('ordinary products are open under every rule: Special, Standard, an LVR band, a special needing equity', () => {
    for (const product of [
      'Special',
      'Standard',
      'Standard  LVR < 80%',
      'Prime <60% LVR',
      'Residential',
      'Owner Occupied',
    ])
      expect(restrictionOf(ALL, { entity: 'ANZ', product }), product).toBeUndefined();
    // The institution China Construction Bank is not a construction loan.
    expect(restrictionOf(ALL, { entity: 'China Construction Bank', product: 'Standard' })).toBeUndefined();
    // A credit union whose membership the page does not restrict is open; Police CU's is not.
    expect(restrictionOf(ALL, { entity: 'First CU', product: 'Personal Loan' })).toBeUndefined();
    expect(restrictionOf(ALL, { entity: 'Police CU', product: 'Standard' })).toBe(ruleOf('police-members').label);
  });

  it('an offer caught by two rules names both, in the table’s order', () => {
    expect(restrictionOf(ALL, { entity: 'SBS Bank', product: 'Construction lending for FHB' })).toBe(
      'first-home buyers; people building a home',
    );
    expect(restrictionOf(ALL, { entity: 'Paraloan', product: 'For people with physical disabilities....from' })).toBe(
      'people with physical disabilities; the best-rated borrowers (a “from” rate)',
    );
  });

  it.each(datasetsOfRule(ruleOf('green-top-up')))(
    '%s: no open offer in the whole history is a 0–1 %% top-up (no floor is needed)',
    (slug) => {
      const definition = EXPLORER[slug] as ExplorerDefinition;
      let open = Infinity;
      for (const snapshot of history[slug])
        for (const entity of snapshot.data)
          for (const item of entity.products ?? entity.plans)
            for (const offer of definition.offers(item, entity))
              if (!offer.restricted) open = Math.min(open, offer.value);
      expect(open).toBeGreaterThan(1);
    },
  );
});

describe('the best open offers of the newest snapshot', () => {
  const definition = (slug: DatasetSlug) => EXPLORER[slug] as ExplorerDefinition;
  const newest = (slug: DatasetSlug) => history[slug].at(-1)!.data;
  /** Every offer of the newest snapshot, worked out here from the definitions' offers. */
  const offers = (slug: DatasetSlug) =>
    newest(slug).flatMap((entity: any) =>
      (entity.products ?? entity.plans).flatMap((item: any) =>
        definition(slug)
          .offers(item, entity)
          .map((offer) => ({ entity, item, offer })),
      ),
    );
  const better = (slug: DatasetSlug, a: number, b: number) => (definition(slug).best === 'lowest' ? a < b : a > b);

  it.each(DATASET_SLUGS)(
    '%s: per measure, the best value open to anyone, every offer that makes it, and the restricted offers better than it',
    (slug) => {
      const found = bestByMeasure(definition(slug), newest(slug) as never);
      const all = offers(slug);
      expect([...found.keys()].sort()).toEqual(
        [...new Set(all.filter((o) => !o.offer.restricted).map((o) => o.offer.key))].sort(),
      );
      for (const [key, best] of found) {
        const open = all.filter((o) => o.offer.key === key && !o.offer.restricted);
        expect(
          open.some((o) => better(slug, o.offer.value, best.value)),
          key,
        ).toBe(false);
        expect(best.who.map((w) => w.offer.id).sort(), key).toEqual(
          open
            .filter((o) => o.offer.value === best.value)
            .map((o) => o.offer.id)
            .sort(),
        );
        const restricted = all.filter(
          (o) => o.offer.key === key && o.offer.restricted && better(slug, o.offer.value, best.value),
        );
        expect(best.restricted.map((w) => w.offer.id).sort(), key).toEqual(restricted.map((o) => o.offer.id).sort());
        const values = best.restricted.map((w) => w.offer.value);
        expect(values, `${key}: best first`).toEqual(
          [...values].sort((a, b) => (better(slug, a, b) ? -1 : better(slug, b, a) ? 1 : 0)),
        );
      }
    },
  );

  it.each(DATASET_SLUGS)(
    '%s read the other way round (best: the highest): the highest open value is the best',
    (slug) => {
      const own = definition(slug);
      const flipped: ExplorerDefinition = { ...own, best: own.best === 'lowest' ? 'highest' : 'lowest' };
      const all = offers(slug);
      for (const [key, best] of bestByMeasure(flipped, newest(slug) as never)) {
        const open = all.filter((o) => o.offer.key === key && !o.offer.restricted).map((o) => o.offer.value);
        expect(best.value, key).toBe(flipped.best === 'lowest' ? Math.min(...open) : Math.max(...open));
        for (const w of best.restricted)
          expect(flipped.best === 'lowest' ? w.offer.value < best.value : w.offer.value > best.value, key).toBe(true);
      }
    },
  );

  it('restricted offers better than the best open one exist, so the rule decides what "best" is', () => {
    const apart = DATASET_SLUGS.flatMap((slug) =>
      [...bestByMeasure(definition(slug), newest(slug) as never).values()].flatMap((b) => b.restricted),
    );
    expect(apart.length).toBeGreaterThan(0);
  });

  it.each(datasetsOfRule(ruleOf('revolving-credit')))(
    '%s: a loan’s “From” and “To” are one offer, ranked where it starts, and no best open offer is an overdraft',
    (slug) => {
      const own = definition(slug);
      for (const entity of newest(slug)) {
        // Every rate of the lender is in exactly one offer: a range joins two, a grade ladder one per grade.
        let covered = 0;
        for (const item of entity.products) {
          const offers = own.offers(item, entity);
          const ranges = offers.filter((o) => !o.label && o.range?.from != null && o.range?.to != null).length;
          const ends = item.rates.filter((r: any) => /^(?:.+[,\s])?(?:from|to)\W*$/i.test(r.condition ?? '')).length;
          expect(ends).toBeGreaterThanOrEqual(2 * ranges);
          covered += offers.length + ranges;
          for (const o of offers.filter((o) => o.label)) covered += o.details!.split(' · ').length - 1;
          for (const o of offers.filter((o) => o.range))
            expect(o.value, `${entity.name} · ${item.name}`).toBe(o.range!.from ?? o.range!.to);
        }
        expect(covered, entity.name).toBe(entity.products.flatMap((p: any) => p.rates).length);
      }
      for (const [key, best] of bestByMeasure(own, newest(slug) as never))
        for (const w of best.who) expect(w.item.name, `${key} ${w.entity.name}`).not.toMatch(/overdraft/i);
    },
  );
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
