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
  itemsOf,
} from '../datasets.ts';
import type { CreditCardPlan, LoanInstitution, LoanProduct } from '../schemas/rates.ts';
import { termBeforeNoun } from '../lib/words.ts';
import { MORTGAGE_TERM_TABLE } from '../schemas/terms.ts';
import { type RestrictionKey, type RestrictionRule, restrictionOf } from './restrictions.ts';
import { type BestDeclared, type BestEnd, bestRateOf } from './best.ts';

export interface Measure {
  key: string;
  label: string;
  /** Its segment in the site's addresses: /rates/mortgages/1-year, /rates/mortgages/anz/1-year. */
  slug: string;
  /** Which end of it is best, where it differs from its dataset's `best` (src/explorer/best.ts). */
  best?: BestEnd;
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
  /** The offer's name when it is several items at once: a grade ladder's ("Credit Grade A–D"). */
  label?: string;
  /**
   * What a person pays next, which orders offers tied on value (the dataset's `tieRule` says what it
   * is): a card's annual fee, the end of a loan's range. Absent when unknown: after every known one.
   */
  next?: number;
}

/** An offer's rate in words: "13.90 %", a range "8.99–17.75 %", "from 10.95 %", "up to 14.00 %". */
export function offerRate(offer: Pick<Offer, 'value' | 'range'>, unit = ' %'): string {
  const { range } = offer;
  if (!range) return `${percent(offer.value)}${unit}`;
  if (range.from !== null && range.to !== null) return `${percent(range.from)}–${percent(range.to)}${unit}`;
  return range.from !== null ? `from ${percent(range.from)}${unit}` : `up to ${percent(range.to)}${unit}`;
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

/**
 * An item's name as the pages write it: "(unnamed)" for none, and an item whose name an earlier
 * item of the same lender has too marked as what it is ("Airpoints Card (second listing)"): the
 * source lists some cards twice with different values, and two rows of one name would read as
 * one card shown twice.
 */
export function itemName(entity: Entity, item: Item): string {
  const name = item.name || '(unnamed)';
  const same = itemsOf(entity).filter((other) => other.name === item.name);
  const n = same.indexOf(item);
  return n > 0 ? `${name} (${ORDINALS[n] ? `${ORDINALS[n]} listing` : `listing ${n + 1}`})` : name;
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

/**
 * Offers tied on value, the one a person pays less for next first (`next`, lowest first; unknown
 * last), then by lender and product name: the order of every list of tied offers and lenders.
 */
export const byNext = (a: { next?: number }, b: { next?: number }): number =>
  (a.next ?? Number.POSITIVE_INFINITY) - (b.next ?? Number.POSITIVE_INFINITY) || 0;

/** Whether value `a` of a measure is better than `b`, as its best rate is declared (src/explorer/best.ts). */
export const isBetter = (definition: BestDeclared, measureKey: string | undefined, a: number, b: number): boolean =>
  bestRateOf(definition, measureKey).better(a, b);

/** A sort comparator putting a measure's best value first. */
export const bestFirst = (definition: BestDeclared, measureKey: string) => bestRateOf(definition, measureKey).order;

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
   * Which end of its measures is best for whoever takes the offer: `lowest` for what a borrower
   * pays, `highest` for what a saver earns (a measure may say otherwise: `Measure.best`). Everything
   * that ranks, picks or words a best rate reads it through src/explorer/best.ts.
   */
  best: BestEnd;
  /** The restricted-offer rules that apply to its offers (src/explorer/restrictions.ts). */
  restrictions: readonly RestrictionKey[];
  /** What one value is, in words, without an article ("1-year fixed mortgage rate", "unsecured car loan rate"). */
  valueNoun(measure: Measure): string;
  measures: Measure[];
  /** What a measure is, as a filter's name ("Term"). */
  measureName: string;
  /** How offers tied on value are ordered, in words after "Tied on rate, ": what `Offer.next` is. */
  tieRule: string;
  /**
   * How an item's offers count where its rates are not each an offer of their own, in a sentence
   * the restriction note ends with ("A loan’s range counts from where it starts.").
   */
  countingNote?: string;
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
   * (a reader can change both), and what the amount is called ("loan", "balance"). Only for a rate
   * paid: a page whose measure's best is the highest (a rate earned) shows none, so a dataset of
   * rates earned leaves it out.
   */
  repayment?: { amount: number; years: number; noun: string };
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

/**
 * A grade ladder: products of one lender named by grade ("Credit Grade A" … "Credit Grade D"), one
 * rate each on one plan. A borrower is offered one of them by their credit grade, as a range's
 * "From" and "To" are one offer, so the ladder is one range offer: from its lowest grade rate to
 * its highest, ranked where it starts, like Heartland's "from 8.95" (/docs/concepts#best-rates-and-restricted-offers).
 */
const GRADE = /^(.*\bgrade)\s+([A-Z])$/i;

/** A loan's offers before they are priced: a range of one product, or a ladder of several. */
interface LoanOfferSource {
  product: LoanProduct;
  range: LoanRange;
  /** A grade ladder's name and its grades, lowest letter first; `product` and `range` are its start's. */
  ladder?: { label: string; grades: { grade: string; rate: number }[] };
}

const LADDERS = new WeakMap<LoanInstitution, LoanOfferSource[]>();

/** An institution's loan offers in the order of its products: each range, and a ladder where its first grade stands. */
function loanOfferSources(entity: LoanInstitution): LoanOfferSource[] {
  const known = LADDERS.get(entity);
  if (known) return known;
  const single = (product: LoanProduct) => {
    const ranges = loanRanges(product);
    return ranges.length === 1 && ranges[0]!.only ? ranges[0]! : undefined;
  };
  type Grade = { product: LoanProduct; range: LoanRange; grade: string };
  const ladders = new Map<string, Grade[]>();
  for (const product of entity.products) {
    const [, prefix, grade] = GRADE.exec(product.name) ?? [];
    const range = single(product);
    if (!prefix || !range) continue;
    const key = JSON.stringify([prefix.toLowerCase(), range.plan, range.note ?? null]);
    ladders.set(key, [...(ladders.get(key) ?? []), { product, range, grade: grade!.toUpperCase() }]);
  }
  const inLadder = new Map<LoanProduct, Grade[]>();
  for (const members of ladders.values())
    if (members.length > 1) for (const m of members) inLadder.set(m.product, members);
  const sources: LoanOfferSource[] = [];
  const placed = new Set<Grade[]>();
  for (const product of entity.products) {
    const members = inLadder.get(product);
    if (!members) {
      for (const range of loanRanges(product)) sources.push({ product, range });
      continue;
    }
    if (placed.has(members)) continue;
    placed.add(members);
    const grades = [...members].sort((a, b) => a.grade.localeCompare(b.grade));
    const rates = members.map((m) => m.range.only!.rate);
    const start = members.find((m) => m.range.only!.rate === Math.min(...rates))!;
    const end = members.find((m) => m.range.only!.rate === Math.max(...rates))!;
    const prefix = GRADE.exec(grades[0]!.product.name)![1]!;
    sources.push({
      product: start.product,
      range: { plan: start.range.plan, note: start.range.note, from: start.range.only, to: end.range.only },
      ladder: {
        label: `${prefix} ${grades[0]!.grade}–${grades.at(-1)!.grade}`,
        grades: grades.map((g) => ({ grade: g.grade, rate: g.range.only!.rate })),
      },
    });
  }
  LADDERS.set(entity, sources);
  return sources;
}

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
    'one-make',
    'revolving-credit',
    'medical-finance',
  ];
  /** An offer worth where its range starts (a "To" alone, its only rate); what is paid next is where it ends. */
  const offerOf = ({ range, product, ladder }: LoanOfferSource, entity: LoanInstitution): Offer => {
    const start = range.from ?? range.only ?? range.to!;
    const end = range.only ?? range.to;
    return {
      key: planGroup(range.plan),
      value: start.rate,
      id: start.id,
      ...(range.only ? {} : { range: { from: range.from?.rate ?? null, to: range.to?.rate ?? null } }),
      ...(range.note ? { note: range.note } : {}),
      ...(ladder
        ? {
            label: ladder.label,
            details: ladder.grades.map((g) => `${g.grade} ${percent(g.rate)} %`).join(' · '),
          }
        : {}),
      ...(end ? { next: end.rate } : {}),
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
    tieRule:
      'the range with the lower end first (the most an approved borrower pays; a single rate is its own end, an open end comes last), then by lender and product name',
    countingNote: 'A loan’s range counts from where it starts.',
    repayment,
    chartFirst: 'secured',
    offers: (product, entity) =>
      loanOfferSources(entity)
        .filter((source) => source.product === product)
        .map((source) => offerOf(source, entity)),
    headers: ['Product', 'Plan', 'Condition', 'Rate %'],
    // One row per offer: a range's "From" and "To" are one row, a grade ladder one row with each grade's rate.
    rows: (entity) =>
      loanOfferSources(entity).map((source) => {
        const offer = offerOf(source, entity);
        const { value, key, id, restricted } = offer;
        return [
          { text: offer.label ?? itemName(entity, source.product) },
          { text: source.range.plan ?? '' },
          { text: offer.details ?? offer.note ?? '' },
          { text: offerRate(offer, ''), value, key, id, restricted },
        ];
      }),
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
    tieRule: 'by lender and product name (a mortgage rate carries nothing else to pay in the source)',
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
          { text: itemName(entity, product) },
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
    tieRule: 'the card with the lower annual fee first (a fee not listed comes last), then by issuer and card name',
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
                ...(item.annualFeeNZD === null ? {} : { next: item.annualFeeNZD }),
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
        { text: itemName(entity, plan) },
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
