/**
 * What the rates explorer shows of each dataset: the values worth comparing (mortgage terms,
 * loan plans, card rates), the table of an institution's offers, and its address on the site.
 * One declaration per dataset; every page is made from these. The Record type makes a dataset
 * without one a type error.
 */
import type { DatasetSlug, Entity, Item } from '../datasets.ts';
import { MORTGAGE_TERMS, type CreditCardPlan, type LoanRate, type MortgageRate } from '../schemas/rates.ts';

export interface Measure {
  key: string;
  label: string;
}

/** One comparable value an item offers: a rate for a measure, with the id the API gives it. */
export interface Offer {
  key: string;
  value: number;
  id: string;
}

export interface Cell {
  text: string;
  /** A numeric cell: its value, and the measure it belongs to (for "lowest" marks). */
  value?: number;
  key?: string;
  /** The API id of the rate or plan the cell shows. */
  id?: string;
}

/** The offers that count for "lowest" and trends: all of them, less the special offers under the floor. */
export function countedOffers(definition: ExplorerDefinition, item: Item): Offer[] {
  const offers = definition.offers(item);
  return definition.floor ? offers.filter((o) => o.value >= definition.floor!.below) : offers;
}

export interface ExplorerDefinition {
  /** /rates/<path> */
  path: string;
  title: string;
  /** What one value is, in words ("1-year fixed mortgage rate"). */
  valueNoun(measure: Measure): string;
  measures: Measure[];
  offers(item: Item): Offer[];
  headers: string[];
  rows(entity: Entity): Cell[][];
  /**
   * Values below this are special offers (discounted top-ups, green loans at 0–1 %), not rates a
   * borrower compares: they stay in the tables but are not counted as the lowest or in the trends.
   */
  floor?: { below: number; note: string };
  /** A second chart for datasets where a trade-off matters (cards: rate against fee). */
  scatter?: { x(item: Item): number | null; y(item: Item): number | null; xLabel: string; yLabel: string; title: string };
}

const percent = (n: number | null | undefined) => (n === null || n === undefined ? '' : n.toFixed(2));
const TERM_KEYS = ['floating', '6', '18', '12', '24', '36', '48', '60'] as const;
const termKey = (months: number | null) => (months === null ? 'floating' : String(months));
/** Terms in the order people read them: floating, then by length. */
const MORTGAGE_MEASURES: Measure[] = MORTGAGE_TERMS.map((label, i) => ({ key: TERM_KEYS[i]!, label })).sort(
  (a, b) => (a.key === 'floating' ? -1 : b.key === 'floating' ? 1 : Number(a.key) - Number(b.key)),
);

/** Loans: a plan's group, so that "Secured", "Secured by car" … compare with each other. */
function planGroup(plan: string | null): string {
  if (plan && /unsecured/i.test(plan)) return 'unsecured';
  if (plan && /secured/i.test(plan)) return 'secured';
  return 'other';
}
const LOAN_MEASURES: Measure[] = [
  { key: 'secured', label: 'Secured' },
  { key: 'unsecured', label: 'Unsecured' },
  { key: 'other', label: 'Other' },
];

const loans = (path: string, title: string, noun: string): ExplorerDefinition => ({
  path,
  title,
  valueNoun: (m) => `${m.label.toLowerCase()} ${noun} rate`,
  measures: LOAN_MEASURES,
  offers: (item) => (item.rates as LoanRate[]).map((r) => ({ key: planGroup(r.plan), value: r.rate, id: r.id })),
  headers: ['Product', 'Plan', 'Condition', 'Rate %'],
  rows: (entity) =>
    (entity.products as Item[]).flatMap((product) =>
      (product.rates as LoanRate[]).map((r) => [
        { text: product.name },
        { text: r.plan ?? '' },
        { text: r.condition ?? '' },
        { text: percent(r.rate), value: r.rate, key: planGroup(r.plan), id: r.id },
      ]),
    ),
});

const CARD_RATES: [keyof CreditCardPlan, Measure][] = [
  ['purchaseRate', { key: 'purchase', label: 'Purchase' }],
  ['cashAdvanceRate', { key: 'cash', label: 'Cash advance' }],
  ['balanceTransferRate', { key: 'transfer', label: 'Balance transfer' }],
];

export const EXPLORER: Record<DatasetSlug, ExplorerDefinition> = {
  'mortgage-rates': {
    path: 'mortgages',
    title: 'Mortgage rates',
    valueNoun: (m) => (m.key === 'floating' ? 'variable floating mortgage rate' : `${m.label} fixed mortgage rate`),
    measures: MORTGAGE_MEASURES,
    floor: {
      below: 2,
      note: 'Rates under 2 % (discounted top-ups and green-home loans, such as 0 % or 1 % offers on a part of a loan) are left out of the lowest rates and the trend lines; they are in the tables.',
    },
    offers: (item) => (item.rates as MortgageRate[]).map((r) => ({ key: termKey(r.termInMonths), value: r.rate, id: r.id })),
    headers: ['Product', ...MORTGAGE_MEASURES.map((m) => m.label)],
    rows: (entity) =>
      (entity.products as Item[]).map((product) => [
        { text: product.name || '(unnamed)' },
        ...MORTGAGE_MEASURES.map((m): Cell => {
          const rate = (product.rates as MortgageRate[]).find((r) => termKey(r.termInMonths) === m.key);
          return rate ? { text: percent(rate.rate), value: rate.rate, key: m.key, id: rate.id } : { text: '' };
        }),
      ]),
  },
  'personal-loan-rates': loans('personal-loans', 'Personal loan rates', 'personal loan'),
  'car-loan-rates': loans('car-loans', 'Car loan rates', 'car loan'),
  'credit-card-rates': {
    path: 'credit-cards',
    title: 'Credit card rates',
    valueNoun: (m) => `${m.label.toLowerCase()} credit card rate`,
    measures: CARD_RATES.map(([, m]) => m),
    offers: (item) =>
      CARD_RATES.flatMap(([field, m]) => (typeof item[field] === 'number' ? [{ key: m.key, value: item[field] as number, id: `${item.id}#${String(field)}` }] : [])),
    headers: ['Card', 'Purchase %', 'Cash advance %', 'Balance transfer %', 'Transfer period', 'Interest-free days', 'Annual fee NZD'],
    rows: (entity) =>
      (entity.plans as CreditCardPlan[]).map((plan) => [
        { text: plan.name },
        ...CARD_RATES.map(([field, m]): Cell => {
          const value = plan[field] as number | null;
          return value === null ? { text: '' } : { text: percent(value), value, key: m.key, id: `${plan.id}#${String(field)}` };
        }),
        { text: plan.balanceTransferPeriod ?? '' },
        { text: plan.interestFreeDays === null ? '' : String(plan.interestFreeDays) },
        { text: plan.annualFeeNZD === null ? '' : `$${plan.annualFeeNZD.toLocaleString('en-NZ')}` },
      ]),
    scatter: {
      x: (item) => (item as unknown as CreditCardPlan).annualFeeNZD,
      y: (item) => (item as unknown as CreditCardPlan).purchaseRate,
      xLabel: 'Annual fee (NZD)',
      yLabel: 'Purchase rate %',
      title: 'Purchase rate against annual fee',
    },
  },
};
