/**
 * The explorer facts of each dataset, part of its table entry: the values worth comparing (terms,
 * plans, card rates), which end of them is best, which restricted-offer rules apply, the table of
 * an institution's offers, and its address on the site. One declaration per dataset; every page
 * is made from these. The Record type makes a dataset without one a type error.
 */
import { type DatasetSlug, datasetBySlug, type Entity, type EntityOf, type Item, type ItemOf } from '../datasets.ts';
import type { CreditCardPlan, LoanInstitution, LoanProduct } from '../schemas/rates.ts';
import { MORTGAGE_TERM_TABLE } from '../schemas/terms.ts';
import { type RestrictionKey, restrictionOf } from './restrictions.ts';

export interface Measure {
  key: string;
  label: string;
  /** Its segment in the site's addresses: /rates/mortgages/1-year, /rates/mortgages/anz/1-year. */
  slug: string;
}

/** One comparable value an item offers: a rate for a measure, with the id the API gives it. */
export interface Offer {
  key: string;
  value: number;
  id: string;
  /** Whom the offer is for when it is not open to anyone (src/explorer/restrictions.ts). */
  restricted?: string;
}

export interface Cell {
  text: string;
  /** A numeric cell: its value, and the measure it belongs to (for "lowest" marks). */
  value?: number;
  key?: string;
  /** The API id of the rate or plan the cell shows. */
  id?: string;
  /** Who the offer is for when it is not open to anyone ("first-home buyers"); absent for an open offer. */
  restricted?: string;
}

/** Whether value `a` is better than `b` by the definition's direction. */
export const isBetter = (definition: { best: ExplorerDefinition['best'] }, a: number, b: number): boolean =>
  definition.best === 'lowest' ? a < b : a > b;

/** A sort comparator putting the best value first. */
export const bestFirst =
  (definition: { best: ExplorerDefinition['best'] }) =>
  (a: number, b: number): number =>
    definition.best === 'lowest' ? a - b : b - a;

/** The offers that count for "best", trends and comparisons: those open to anyone. */
export function openOffers(definition: ExplorerDefinition, entity: Entity, item: Item): Offer[] {
  return definition.offers(item, entity).filter((o) => !o.restricted);
}

/**
 * `E` and `I` are the dataset's entity and item types; code that shows every dataset reads the
 * definitions as ExplorerDefinition<Entity, Item> (the method parameters let it).
 */
export interface ExplorerDefinition<E extends Entity = Entity, I extends Item = Item> {
  /** /rates/<path> */
  path: string;
  /** The dataset's title (from the dataset table). */
  title: string;
  /**
   * Which end of every measure is best for whoever takes the offer: `lowest` for what a borrower
   * pays, `highest` for what a saver earns. "Best" marks, cards, trend lines and comparison order follow it.
   */
  best: 'lowest' | 'highest';
  /** The restricted-offer rules that apply to its offers (src/explorer/restrictions.ts). */
  restrictions: readonly RestrictionKey[];
  /** What one value is, in words ("1-year fixed mortgage rate"). */
  valueNoun(measure: Measure): string;
  measures: Measure[];
  /** What a measure is, as a filter's name ("Term"). */
  measureName: string;
  /** The measures with a page comparing every institution (/rates/mortgages/1-year): the main ones. */
  compared: string[];
  /** The measure an institution's chart shows first (the others are a link away). */
  chartFirst: string;
  /** An item's offers, each with whom it is for when restricted (the entity's name can decide it). */
  offers(item: I, entity: E): Offer[];
  headers: string[];
  rows(entity: E): Cell[][];
  /** The API query that keeps only one measure's offers, when the API has a filter for it (`termInMonths=12`). */
  measureQuery?(measure: Measure): string | undefined;
  /**
   * The repayment figure of a comparison page: the amount and the term in years it starts from
   * (a reader can change both), and what the amount is called ("loan", "balance").
   */
  repayment: { amount: number; years: number; noun: string };
  /** A second chart for datasets where a trade-off matters (cards: rate against fee). */
  scatter?: {
    x(item: I): number | null;
    y(item: I): number | null;
    xLabel: string;
    yLabel: string;
    title: string;
    /** What one point is, as its table column names it ("Card"). */
    itemLabel: string;
    /** One point's values in words, after its entity and item. */
    pointText(x: number, y: number): string;
    /** The chart's text alternative: the points (labelled) on the date given in words. */
    description(points: readonly { x: number; y: number; label: string }[], date: string): string;
  };
}

const percent = (n: number | null | undefined) => (n === null || n === undefined ? '' : n.toFixed(2));
const termKey = (months: number | null) => (months === null ? 'floating' : String(months));
const slugify = (label: string) => label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
/** Terms in the order people read them (the term table's): floating, then by length. */
const MORTGAGE_MEASURES: Measure[] = MORTGAGE_TERM_TABLE.map(({ key, label }) => ({
  key,
  label,
  slug: slugify(label),
}));

/** Loans: a plan's group, so that "Secured", "Secured by car" … compare with each other. */
function planGroup(plan: string | null): string {
  if (plan && /unsecured/i.test(plan)) return 'unsecured';
  if (plan && /secured/i.test(plan)) return 'secured';
  return 'other';
}
const LOAN_MEASURES: Measure[] = [
  { key: 'secured', label: 'Secured', slug: 'secured' },
  { key: 'unsecured', label: 'Unsecured', slug: 'unsecured' },
  { key: 'other', label: 'Other', slug: 'other' },
];

/** The restricted-offer rules every lending dataset applies (src/explorer/restrictions.ts). */
const LENDING_RESTRICTIONS: readonly RestrictionKey[] = ['first-home', 'construction', 'disability', 'members'];

const titleOf = (slug: DatasetSlug) => datasetBySlug(slug)!.title;

const loans = (
  slug: DatasetSlug,
  path: string,
  noun: string,
  repayment: ExplorerDefinition['repayment'],
): ExplorerDefinition<LoanInstitution, LoanProduct> => {
  const restrictions: readonly RestrictionKey[] = [
    ...LENDING_RESTRICTIONS,
    'electric-vehicle',
    'students',
    'existing-customers',
    'homeowners',
    'best-credit-grade',
    'one-make',
    'from-condition',
  ];
  const restricted = (entity: LoanInstitution, product: LoanProduct, condition: string | null) =>
    restrictionOf(restrictions, { entity: entity.name, product: product.name, condition });
  return {
    path,
    title: titleOf(slug),
    best: 'lowest',
    restrictions,
    valueNoun: (m) => `${m.label.toLowerCase()} ${noun} rate`,
    measures: LOAN_MEASURES,
    measureName: 'Plan',
    compared: ['secured', 'unsecured'],
    repayment,
    chartFirst: 'secured',
    offers: (item, entity) =>
      item.rates.map((r) => ({
        key: planGroup(r.plan),
        value: r.rate,
        id: r.id,
        restricted: restricted(entity, item, r.condition),
      })),
    headers: ['Product', 'Plan', 'Condition', 'Rate %'],
    rows: (entity) =>
      entity.products.flatMap((product) =>
        product.rates.map((r) => [
          { text: product.name },
          { text: r.plan ?? '' },
          { text: r.condition ?? '' },
          {
            text: percent(r.rate),
            value: r.rate,
            key: planGroup(r.plan),
            id: r.id,
            restricted: restricted(entity, product, r.condition),
          },
        ]),
      ),
  };
};

type CardRateField = 'purchaseRate' | 'cashAdvanceRate' | 'balanceTransferRate';
const CARD_RATES: [CardRateField, Measure][] = [
  ['purchaseRate', { key: 'purchase', label: 'Purchase', slug: 'purchase' }],
  ['cashAdvanceRate', { key: 'cash', label: 'Cash advance', slug: 'cash-advance' }],
  ['balanceTransferRate', { key: 'transfer', label: 'Balance transfer', slug: 'balance-transfer' }],
];
const CARD_RESTRICTIONS: readonly RestrictionKey[] = ['professional-body'];
const cardRestriction = (entity: { name: string }, plan: CreditCardPlan) =>
  restrictionOf(CARD_RESTRICTIONS, { entity: entity.name, product: plan.name });
const MORTGAGE_RESTRICTIONS: readonly RestrictionKey[] = [
  ...LENDING_RESTRICTIONS,
  'green-top-up',
  'reverse-mortgage',
  'shared-ownership',
  'from-product',
];

/** One definition per dataset, each typed with that dataset's entities and items. */
export const EXPLORER: { [S in DatasetSlug]: ExplorerDefinition<EntityOf<S>, ItemOf<S>> } = {
  'mortgage-rates': {
    path: 'mortgages',
    title: titleOf('mortgage-rates'),
    best: 'lowest',
    restrictions: MORTGAGE_RESTRICTIONS,
    valueNoun: (m) => (m.key === 'floating' ? 'variable floating mortgage rate' : `${m.label} fixed mortgage rate`),
    measures: MORTGAGE_MEASURES,
    measureName: 'Term',
    compared: MORTGAGE_MEASURES.map((m) => m.key),
    chartFirst: '12',
    repayment: { amount: 500_000, years: 30, noun: 'loan' },
    measureQuery: (m) => (m.key === 'floating' ? undefined : `termInMonths=${m.key}`),
    offers: (item, entity) => {
      const restricted = restrictionOf(MORTGAGE_RESTRICTIONS, { entity: entity.name, product: item.name });
      return item.rates.map((r) => ({ key: termKey(r.termInMonths), value: r.rate, id: r.id, restricted }));
    },
    headers: ['Product', ...MORTGAGE_MEASURES.map((m) => m.label)],
    rows: (entity) =>
      entity.products.map((product) => {
        const restricted = restrictionOf(MORTGAGE_RESTRICTIONS, { entity: entity.name, product: product.name });
        return [
          { text: product.name || '(unnamed)' },
          ...MORTGAGE_MEASURES.map((m): Cell => {
            const rate = product.rates.find((r) => termKey(r.termInMonths) === m.key);
            return rate
              ? { text: percent(rate.rate), value: rate.rate, key: m.key, id: rate.id, restricted }
              : { text: '' };
          }),
        ];
      }),
  },
  'personal-loan-rates': loans('personal-loan-rates', 'personal-loans', 'personal loan', {
    amount: 20_000,
    years: 5,
    noun: 'loan',
  }),
  'car-loan-rates': loans('car-loan-rates', 'car-loans', 'car loan', { amount: 25_000, years: 5, noun: 'loan' }),
  'credit-card-rates': {
    path: 'credit-cards',
    title: titleOf('credit-card-rates'),
    best: 'lowest',
    restrictions: CARD_RESTRICTIONS,
    valueNoun: (m) => `${m.label.toLowerCase()} credit card rate`,
    measures: CARD_RATES.map(([, m]) => m),
    measureName: 'Rate',
    compared: ['purchase'],
    chartFirst: 'purchase',
    // A card balance cleared in a year of equal payments, nothing more spent.
    repayment: { amount: 3_000, years: 1, noun: 'balance' },
    offers: (item, entity) =>
      CARD_RATES.flatMap(([field, m]) => {
        const value = item[field];
        return value === null
          ? []
          : [{ key: m.key, value, id: `${item.id}#${field}`, restricted: cardRestriction(entity, item) }];
      }),
    headers: [
      'Card',
      'Purchase %',
      'Cash advance %',
      'Balance transfer %',
      'Transfer period',
      'Interest-free days',
      'Annual fee NZD',
    ],
    rows: (entity) =>
      entity.plans.map((plan: CreditCardPlan) => [
        { text: plan.name },
        ...CARD_RATES.map(([field, m]): Cell => {
          const value = plan[field];
          return value === null
            ? { text: '' }
            : {
                text: percent(value),
                value,
                key: m.key,
                id: `${plan.id}#${field}`,
                restricted: cardRestriction(entity, plan),
              };
        }),
        { text: plan.balanceTransferPeriod ?? '' },
        { text: plan.interestFreeDays === null ? '' : String(plan.interestFreeDays) },
        { text: plan.annualFeeNZD === null ? '' : `$${plan.annualFeeNZD.toLocaleString('en-NZ')}` },
      ]),
    scatter: {
      x: (item) => item.annualFeeNZD,
      y: (item) => item.purchaseRate,
      xLabel: 'Annual fee (NZD)',
      yLabel: 'Purchase rate %',
      title: 'Purchase rate against annual fee',
      itemLabel: 'Card',
      pointText: (fee, rate) => `${percent(rate)} %, $${fee} a year`,
      description: (points, date) => {
        const cheapest = [...points].sort((a, b) => a.x - b.x || a.y - b.y)[0];
        const rates = points.map((p) => p.y);
        return (
          `${points.length} cards with a purchase rate and an annual fee on ${date}. ` +
          (cheapest ? `Lowest fee: ${cheapest.label}. ` : '') +
          `Purchase rates range from ${percent(Math.min(...rates))} % to ${percent(Math.max(...rates))} %.`
        );
      },
    },
  },
};
