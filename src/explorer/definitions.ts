/**
 * The explorer facts of each dataset, part of its table entry: the values worth comparing (terms,
 * plans, card rates), which end of them is best, which restricted-offer rules apply, the table of
 * an institution's offers, and its address on the site. One declaration per dataset; every page
 * is made from these. The Record type makes a dataset without one a type error.
 */
import {
  DATASETS,
  type DatasetSlug,
  datasetBySlug,
  type Entity,
  type EntityOf,
  type Item,
  type ItemOf,
} from '../datasets.ts';
import type { CreditCardPlan, LoanInstitution, LoanProduct } from '../schemas/rates.ts';
import { termBeforeNoun } from '../lib/words.ts';
import { MORTGAGE_TERM_TABLE } from '../schemas/terms.ts';
import { type RestrictionKey, type RestrictionRule, restrictionOf } from './restrictions.ts';

export interface Measure {
  key: string;
  label: string;
  /** Its segment in the site's addresses: /rates/mortgages/1-year, /rates/mortgages/anz/1-year. */
  slug: string;
}

/**
 * One comparable value an item offers: a rate for a measure, with the id the API gives it. A loan's
 * "From" and "To" rates are one offer, a range: its value, which every ranking uses, is where the
 * range starts (the most an approved borrower pays is its end).
 */
export interface Offer {
  key: string;
  value: number;
  /** The API id of the rate the value is (a range's "From" rate). */
  id: string;
  /** A range's ends as the source gives them: a "From" with no "To" is open-ended, a "To" alone has no known start. */
  range?: { from: number | null; to: number | null };
  /** What sets this offer apart within its item: a grade ("Blue"), a condition ("$3,000 to $50,000"). */
  note?: string;
  /** What a reader weighs beside the rate: a card's annual fee and interest-free days, a transfer's period. */
  details?: string;
  /** Whom the offer is for, or what it is, when it is set apart from "best" (src/explorer/restrictions.ts). */
  restricted?: string;
}

/** An offer's rate in words: "13.90 %", a range "8.99–17.75 %", "from 10.95 %", "up to 14.00 %". */
export function offerRate(offer: Pick<Offer, 'value' | 'range'>, unit = ' %'): string {
  const { range } = offer;
  if (!range) return `${percent(offer.value)}${unit}`;
  if (range.from !== null && range.to !== null) return `${percent(range.from)}–${percent(range.to)}${unit}`;
  return range.from !== null ? `from ${percent(range.from)}${unit}` : `up to ${percent(range.to)}${unit}`;
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
  /** What one value is, in words, without an article ("1-year fixed mortgage rate", "unsecured car loan rate"). */
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
  /** An institution's table: a row per product (per offer, for loans); items with no rate at all are left to `withoutRate`. */
  rows(entity: E): Cell[][];
  /** The names of an institution's items with no rate at all (debit, prepaid and charge cards), listed apart from the table. */
  withoutRate?(entity: E): string[];
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

/**
 * Where a loan rate stands in a range, read from its condition: the start ("From", "from", "From
 * ...", "From (limited to $10,000)"), or the end ("To"), of a range that may carry a grade before
 * it ("Blue, from", "Premium rate from"). "$3,000 to $50,000" is an amount, not an end.
 */
const RANGE_END = /^(?:(.+?)[,\s]+)?(from|to)(?:\s*\.{3}|\s*(\(.*\)))?\s*$/i;

type LoanRate = LoanProduct['rates'][number];

/** One offer of a loan product: a range's start and end rates, or a rate of its own. */
interface LoanRange {
  plan: string | null;
  /** What sets it apart within the product: a grade ("Blue"), an aside ("(limited to $10,000)"), a condition. */
  note?: string;
  from?: LoanRate;
  to?: LoanRate;
  only?: LoanRate;
}

/** A loan product's offers: each rate on its own, but a range's "From" and "To" of one plan and grade made one. */
export function loanRanges(product: LoanProduct): LoanRange[] {
  const ranges: (LoanRange & { grade?: string })[] = [];
  for (const rate of product.rates) {
    const end = RANGE_END.exec(rate.condition ?? '');
    if (!end) {
      ranges.push({ plan: rate.plan, note: rate.condition ?? undefined, only: rate });
      continue;
    }
    const [, grade = '', word, aside] = end;
    const side = word!.toLowerCase() === 'from' ? 'from' : 'to';
    const other = side === 'from' ? 'to' : 'from';
    // The other end of the same plan and grade, not yet taken: "Blue, from" pairs with "Blue, to".
    const open = ranges.find((r) => r.grade === grade && r.plan === rate.plan && r[other] && !r[side]);
    const note = [grade, aside].filter(Boolean).join(' ') || undefined;
    if (open) {
      open[side] = rate;
      open.note ??= note;
    } else ranges.push({ plan: rate.plan, note, grade, [side]: rate });
  }
  return ranges.map(({ grade: _, ...range }) => range);
}

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
const LENDING_RESTRICTIONS: readonly RestrictionKey[] = [
  'first-home',
  'construction',
  'disability',
  'members',
  'police-members',
  'disability-lender',
];

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
    'revolving-credit',
    'medical-finance',
  ];
  /** A range as an offer: worth where it starts (a "To" alone, its only rate). */
  const offerOf = (range: LoanRange, product: LoanProduct, entity: LoanInstitution): Offer => {
    const start = range.from ?? range.only ?? range.to!;
    return {
      key: planGroup(range.plan),
      value: start.rate,
      id: start.id,
      ...(range.only ? {} : { range: { from: range.from?.rate ?? null, to: range.to?.rate ?? null } }),
      ...(range.note ? { note: range.note } : {}),
      restricted: restrictionOf(restrictions, { entity: entity.name, product: product.name }),
    };
  };
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
    offers: (product, entity) => loanRanges(product).map((range) => offerOf(range, product, entity)),
    headers: ['Product', 'Plan', 'Condition', 'Rate %'],
    // One row per offer: a range's "From" and "To" are one row.
    rows: (entity) =>
      entity.products.flatMap((product) =>
        loanRanges(product).map((range) => {
          const offer = offerOf(range, product, entity);
          const { value, key, id, restricted } = offer;
          return [
            { text: product.name },
            { text: range.plan ?? '' },
            { text: offer.note ?? '' },
            { text: offerRate(offer, ''), value, key, id, restricted },
          ];
        }),
      ),
  };
};

type CardRateField = 'purchaseRate' | 'cashAdvanceRate' | 'balanceTransferRate';
const CARD_RATES: [CardRateField, Measure][] = [
  ['purchaseRate', { key: 'purchase', label: 'Purchase', slug: 'purchase' }],
  ['cashAdvanceRate', { key: 'cash', label: 'Cash advance', slug: 'cash-advance' }],
  ['balanceTransferRate', { key: 'transfer', label: 'Balance transfer', slug: 'balance-transfer' }],
];
const CARD_RESTRICTIONS: readonly RestrictionKey[] = ['professional-body', 'store-card'];
const cardRestriction = (entity: { name: string }, plan: CreditCardPlan) =>
  restrictionOf(CARD_RESTRICTIONS, { entity: entity.name, product: plan.name });
/** Whether a card has any rate: debit, prepaid and charge cards have none, and are listed apart. */
const hasRate = (plan: CreditCardPlan) => CARD_RATES.some(([field]) => plan[field] !== null);
/**
 * What a reader weighs beside a card's rate: its annual fee and interest-free days, and for a
 * balance transfer how long the rate lasts. A fee the source leaves empty is said to be unlisted
 * (the history holds some $0 fees as empty: /docs/changes).
 */
function cardDetails(plan: CreditCardPlan, key: string): string {
  const fee =
    plan.annualFeeNZD === null ? 'annual fee not listed' : `$${plan.annualFeeNZD.toLocaleString('en-NZ')} a year`;
  const days = plan.interestFreeDays === null ? undefined : `${plan.interestFreeDays} days interest-free`;
  const period =
    key === 'transfer' && plan.balanceTransferPeriod ? `for ${plan.balanceTransferPeriod.toLowerCase()}` : undefined;
  return [period, fee, days].filter(Boolean).join(' · ');
}
const MORTGAGE_RESTRICTIONS: readonly RestrictionKey[] = [
  ...LENDING_RESTRICTIONS,
  'green-top-up',
  'reverse-mortgage',
  'shared-ownership',
  'from-product',
  'housing-scheme',
];

/** One definition per dataset, each typed with that dataset's entities and items. */
export const EXPLORER: { [S in DatasetSlug]: ExplorerDefinition<EntityOf<S>, ItemOf<S>> } = {
  'mortgage-rates': {
    path: 'mortgages',
    title: titleOf('mortgage-rates'),
    best: 'lowest',
    restrictions: MORTGAGE_RESTRICTIONS,
    valueNoun: (m) =>
      m.key === 'floating' ? 'variable floating mortgage rate' : `${termBeforeNoun(m.label)} fixed mortgage rate`,
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
    compared: ['purchase', 'transfer'],
    chartFirst: 'purchase',
    // A card balance cleared in a year of equal payments, nothing more spent.
    repayment: { amount: 3_000, years: 1, noun: 'balance' },
    offers: (item, entity) =>
      CARD_RATES.flatMap(([field, m]) => {
        const value = item[field];
        return value === null
          ? []
          : [
              {
                key: m.key,
                value,
                id: `${item.id}#${field}`,
                details: cardDetails(item, m.key),
                restricted: cardRestriction(entity, item),
              },
            ];
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
    withoutRate: (entity) => entity.plans.filter((plan) => !hasRate(plan)).map((plan) => plan.name),
    rows: (entity) =>
      entity.plans.filter(hasRate).map((plan: CreditCardPlan) => [
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

/** The datasets whose explorer facts apply the rule, in table order. */
export function datasetsOfRule(rule: RestrictionRule): DatasetSlug[] {
  return DATASETS.filter((d) => (EXPLORER[d.slug].restrictions as readonly string[]).includes(rule.key)).map(
    (d) => d.slug,
  );
}
