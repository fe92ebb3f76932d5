/**
 * Fix for how long: for two fixed terms, a shorter of a months at r_a and a longer of b months at
 * r_b, the break-even rate x at which fixing for a months and then refixing for the remaining
 * b − a months comes out the same as fixing for b (BREAK_EVEN_FORMULA, src/schemas/break-even.ts).
 * Worked out from the best open rates of each term, as /lowest answers them (src/explorer/lowest.ts),
 * or within each product of one lender; the API's answer, its MCP tool and the comparison pages'
 * sentence all come from here. A dataset has break-even rates when its measures are fixed terms:
 * it has the `termInMonths` filter, and its fixed-term measures are the term table's.
 */
import type { z } from 'zod';
import { DATASETS, type Dataset, type Entity, itemsOf } from '../datasets.ts';
import { breakEvenSchema } from '../schemas/break-even.ts';
import { FIXED_TERM_MONTHS_PROSE, mortgageTerm } from '../schemas/terms.ts';
import { bestRateOf } from './best.ts';
import { EXPLORER, type ExplorerDefinition, type Offer } from './definitions.ts';
import { lowestOffers, namesOf, offerOf } from './lowest.ts';

/** A fixed term in months and its rate in percent a year. */
export interface Fixed {
  months: number;
  rate: number;
}

/** What 1 grows to over the term at its rate, compounded monthly: (1 + r/1200)^months. */
export const growth = ({ months, rate }: Fixed): number => (1 + rate / 1200) ** months;

/** The break-even rate, unrounded: x = 1200 × [(growth(longer) ÷ growth(shorter))^(1/(b − a)) − 1]. */
export function breakEvenExact(shorter: Fixed, longer: Fixed): number {
  const months = longer.months - shorter.months;
  if (!(months > 0))
    throw new RangeError(`the longer term (${longer.months}) must be longer than the shorter (${shorter.months})`);
  return 1200 * ((growth(longer) / growth(shorter)) ** (1 / months) - 1);
}

/** As the API gives every rate: 2 decimals (0 rather than −0). */
const twoDecimals = (rate: number) => Math.round(rate * 100) / 100 || 0;

/** The break-even rate rounded as the API gives rates. */
export const breakEvenRate = (shorter: Fixed, longer: Fixed): number => twoDecimals(breakEvenExact(shorter, longer));

/** Whether a dataset has break-even rates: its `termInMonths` filter says its measures are fixed terms. */
const hasFixedTerms = (dataset: Dataset) => dataset.filters.some((filter) => filter.name === 'termInMonths');

/** The datasets that answer `/break-even`, in table order. */
export const BREAK_EVEN_DATASETS: readonly Dataset[] = DATASETS.filter(hasFixedTerms);

const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;

/** A dataset's fixed-term measures, shortest first: those whose key is a fixed term of the term table. */
function fixedTerms(definition: ExplorerDefinition): { key: string; months: number }[] {
  return definition.measures
    .flatMap((m) => {
      const months = mortgageTerm(Number(m.key))?.months;
      return typeof months === 'number' ? [{ key: m.key, months }] : [];
    })
    .sort((a, b) => a.months - b.months);
}

/** The months of a dataset's fixed terms, shortest first (none for a dataset without them). */
export const fixedTermMonths = (dataset: Dataset): number[] => fixedTerms(definitionOf(dataset)).map((t) => t.months);

/** How the dataset's best rate of its fixed terms is worded (src/explorer/best.ts): the first fixed term's. */
export const fixedTermBest = (dataset: Dataset) =>
  bestRateOf(definitionOf(dataset), fixedTerms(definitionOf(dataset))[0]?.key);

/** Every pair of the terms, the shorter first: (6, 12), (6, 18) … (48, 60). */
const pairsOf = <T>(terms: readonly T[]): [T, T][] =>
  terms.flatMap((a, i) => terms.slice(i + 1).map((b): [T, T] => [a, b]));

/** A number of months in words, as the term table labels them: "6 months", "1 year", "18 months", "2 years". */
function monthsInWords(months: number): string {
  const label = mortgageTerm(months)?.label;
  if (label) return label;
  return months % 12 === 0
    ? `${months / 12} year${months === 12 ? '' : 's'}`
    : `${months} month${months === 1 ? '' : 's'}`;
}

const percent = (rate: number) => `${rate.toFixed(2)} %`;

/**
 * The break-even in a sentence: "Fixing 1 year at 5.05 % beats 2 years at 4.99 % if in a year you
 * can refix for 1 year below 4.93 %." (`above` for a rate earned, as the dataset's best rate says).
 */
export function breakEvenSentence(definition: ExplorerDefinition, shorter: Fixed, longer: Fixed, rate: number): string {
  const { side } = bestRateOf(definition, String(shorter.months));
  const after = monthsInWords(shorter.months).replace(/^1 /, 'a ');
  return (
    `Fixing ${monthsInWords(shorter.months)} at ${percent(shorter.rate)} beats ${monthsInWords(longer.months)} at ${percent(longer.rate)} ` +
    `if in ${after} you can refix for ${monthsInWords(longer.months - shorter.months)} ${side} ${percent(rate)}.`
  );
}

/** The worked example the docs state: 1 year at 5.05 % against 2 years at 4.99 %, the lowest open rates when the endpoint came. */
export function breakEvenExample(dataset: Dataset): string {
  const [shorter, longer] = [
    { months: 12, rate: 5.05 },
    { months: 24, rate: 4.99 },
  ];
  return breakEvenSentence(definitionOf(dataset), shorter, longer, breakEvenRate(shorter, longer));
}

/** An offer as /lowest names it, and whom it is for when it is not open to anyone. */
type NamedOffer = ReturnType<typeof offerOf> & { for?: string };

/** One side of a pair: the rate used and who offers it. */
interface Side {
  rate: number;
  offers: NamedOffer[];
}

export interface BreakEvenEntry {
  basis: 'lowest' | 'product';
  shorterInMonths: number;
  longerInMonths: number;
  shorterRate: number;
  longerRate: number;
  breakEvenRate: number;
  text: string;
  shorterOffers: NamedOffer[];
  longerOffers: NamedOffer[];
}

function entryOf(
  definition: ExplorerDefinition,
  basis: BreakEvenEntry['basis'],
  [a, b]: [{ months: number }, { months: number }],
  [sa, sb]: [Side, Side],
): BreakEvenEntry {
  const shorter = { months: a.months, rate: sa.rate };
  const longer = { months: b.months, rate: sb.rate };
  const rate = breakEvenRate(shorter, longer);
  return {
    basis,
    shorterInMonths: a.months,
    longerInMonths: b.months,
    shorterRate: sa.rate,
    longerRate: sb.rate,
    breakEvenRate: rate,
    text: breakEvenSentence(definition, shorter, longer, rate),
    shorterOffers: sa.offers,
    longerOffers: sb.offers,
  };
}

/** Every pair of terms from the best open rate of each, as /lowest answers them of `data` (pairs with a term no open offer has are left out). */
export function lowestBreakEvens(dataset: Dataset, data: readonly Entity[]): BreakEvenEntry[] {
  const definition = definitionOf(dataset);
  const lowest = new Map(lowestOffers(dataset, data).map((m) => [m.measure, m]));
  const terms = fixedTerms(definition).filter((t) => lowest.has(t.key));
  return pairsOf(terms).map(([a, b]) =>
    entryOf(definition, 'lowest', [a, b], [lowest.get(a.key)!, lowest.get(b.key)!]),
  );
}

/**
 * Every pair of terms within each product of one lender that offers both, in the order of its
 * products; a product that is not open to anyone says whom it is for (`for`), as /lowest's
 * restricted offers do.
 */
export function productBreakEvens(dataset: Dataset, entity: Entity): BreakEvenEntry[] {
  const definition = definitionOf(dataset);
  const names = namesOf(dataset);
  return itemsOf(entity).flatMap((item) => {
    // A product lists one rate per term; should it list two, its first is the one paired.
    const byTerm = new Map<string, Offer>();
    for (const offer of definition.offers(item, entity)) if (!byTerm.has(offer.key)) byTerm.set(offer.key, offer);
    const sideOf = (key: string): Side => {
      const offer = byTerm.get(key)!;
      const named = offerOf(names, { entity, item, offer });
      return { rate: offer.value, offers: [offer.restricted ? { ...named, for: offer.restricted } : named] };
    };
    const terms = fixedTerms(definition).filter((t) => byTerm.has(t.key));
    return pairsOf(terms).map((pair) =>
      entryOf(definition, 'product', pair, [sideOf(pair[0].key), sideOf(pair[1].key)]),
    );
  });
}

/**
 * A comparison page's sentence: its fixed term against the next longer term of whole years that
 * has a best open rate (the 6-month and 1-year pages against 1 and 2 years, the 18-month page
 * against 2 years: people weigh fixed terms by the year), from the best
 * open rates of every lender (`data`, the newest snapshot). None for a measure that is no fixed
 * term (floating), for the longest term, or for a dataset without fixed terms.
 */
export function nextTermBreakEven(dataset: Dataset, data: readonly Entity[], measureKey: string): string | undefined {
  if (!hasFixedTerms(dataset)) return undefined;
  const months = mortgageTerm(Number(measureKey))?.months;
  if (typeof months !== 'number') return undefined;
  // Pairs come shortest longer term first: the first of whole years with this shorter term is the next.
  return lowestBreakEvens(dataset, data).find((e) => e.shorterInMonths === months && e.longerInMonths % 12 === 0)?.text;
}

/** The answer's `type`: `<the dataset's type>BreakEven`. */
export const breakEvenTypeOf = (dataset: Dataset) => `${dataset.type}BreakEven`;

const SCHEMAS = new Map<string, z.ZodObject>();

/** The answer's schema, made once per process: validation, OpenAPI and the MCP outputSchema read it. */
export function breakEvenSchemaOf(dataset: Dataset): z.ZodObject {
  let schema = SCHEMAS.get(dataset.slug);
  if (!schema) {
    // The side a refixed rate must be on, as the fixed terms' best rate is declared.
    const { side } = fixedTermBest(dataset);
    schema = breakEvenSchema(namesOf(dataset), {
      type: breakEvenTypeOf(dataset),
      side,
      terms: FIXED_TERM_MONTHS_PROSE,
    });
    SCHEMAS.set(dataset.slug, schema);
  }
  return schema;
}
