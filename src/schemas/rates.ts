import { z } from 'zod';
import { CleanText, idWithPrefix } from './common.ts';
import { FIXED_TERM_MONTHS_PROSE, MORTGAGE_TERMS } from './terms.ts';

export { MORTGAGE_TERMS };

/**
 * The bounds of every number the service keeps, far outside any real value (2024–2025: rates 0–32.5 %,
 * fees up to $1,250, interest-free periods up to 180 days). The collector refuses a page past them
 * and the build a snapshot, with the same schema; the collection docs' limits table lists each, in
 * its words and unit (src/collect/docs.ts).
 */
export const VALUE_BOUNDS = {
  rate: { min: 0, max: 40, what: 'rates', unit: '%' },
  annualFeeNZD: { min: 0, max: 10_000, what: 'annual fees', unit: '$' },
  interestFreeDays: { min: 0, max: 365, what: 'interest-free periods', unit: 'days' },
} as const satisfies Record<string, { min: number; max: number; what: string; unit: '%' | '$' | 'days' }>;

const percentNumber = () => z.number().min(VALUE_BOUNDS.rate.min).max(VALUE_BOUNDS.rate.max);
const percentMeaning = (what: string) => `${what}, percent per year (4.29 means 4.29 %)`;
const percent = (what: string) => percentNumber().describe(`${percentMeaning(what)}.`);
/** Described on the nullable schema itself: a description inside `.nullable()` is lost on the way to the reference pages. */
const percentOrNull = (what: string) =>
  percentNumber()
    .nullable()
    .describe(`${percentMeaning(what)}; null when the source lists none for the card.`);

export const MortgageRate = z.strictObject({
  id: idWithPrefix('rate').describe('Rate id, e.g. rate:anz:special:1-year.'),
  rate: percent('The interest rate'),
  term: z
    .enum(MORTGAGE_TERMS)
    .meta({ default: 'Variable floating' })
    .describe(
      'Term label. "Variable floating" is a rate the institution may change at any time; the others are fixed terms.',
    ),
  termInMonths: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe(`Fixed term in months (${FIXED_TERM_MONTHS_PROSE}); null for a variable floating rate.`),
});

/** Personal and car loan rates share one shape. */
export const LoanRate = z.strictObject({
  id: idWithPrefix('rate').describe('Rate id, e.g. rate:anz:personal-loan:unsecured:3000-to-50000.'),
  rate: percent('The interest rate'),
  plan: CleanText.nullable().describe('Loan type such as Secured or Unsecured; null when the source gives none.'),
  condition: CleanText.nullable().describe(
    'Condition on the rate, such as a loan amount range ("$3,000 to $50,000") or "From"/"To" of a range; null when there is none.',
  ),
});

export const CreditCardPlan = z.strictObject({
  id: idWithPrefix('plan').describe('Plan id, e.g. plan:amex:low-rate.'),
  name: CleanText.describe('Card name as the issuer uses it.'),
  purchaseRate: percentOrNull('Interest on purchases'),
  cashAdvanceRate: percentOrNull('Interest on cash advances'),
  balanceTransferRate: percentOrNull('Interest on balance transfers'),
  balanceTransferPeriod: CleanText.nullable().describe(
    'How long the balance transfer rate lasts ("6 months", "Life of balance transferred").',
  ),
  interestFreeDays: z
    .number()
    .int()
    .min(VALUE_BOUNDS.interestFreeDays.min)
    .max(VALUE_BOUNDS.interestFreeDays.max)
    .nullable()
    .describe('Interest-free period on purchases, in days.'),
  annualFeeNZD: z
    .number()
    .min(VALUE_BOUNDS.annualFeeNZD.min)
    .max(VALUE_BOUNDS.annualFeeNZD.max)
    .nullable()
    .describe('Annual fee of the primary card, in NZ dollars.'),
});

const product = <R extends z.ZodType>(rate: R) =>
  z.strictObject({
    id: idWithPrefix('product').describe('Product id, e.g. product:anz:special.'),
    name: CleanText.describe(
      'Product name as the institution uses it; it can change when the institution changes its page.',
    ),
    rates: z.array(rate).describe('The product’s rates, one per term or condition the source lists.'),
  });

export const MortgageProduct = product(MortgageRate);
export const LoanProduct = product(LoanRate);

const institution = <P extends z.ZodType>(item: P) =>
  z.strictObject({
    id: idWithPrefix('institution').describe('Institution id (institution:<slug>); stable across collections.'),
    name: CleanText.describe('Institution name.'),
    products: z.array(item).describe('The institution’s products, each with its rates.'),
  });

export const MortgageInstitution = institution(MortgageProduct);
export const LoanInstitution = institution(LoanProduct);
export const CreditCardIssuer = z.strictObject({
  id: idWithPrefix('issuer').describe('Issuer id (issuer:<slug>); stable across collections.'),
  name: CleanText.describe('Issuer name.'),
  plans: z.array(CreditCardPlan).describe('The issuer’s cards, each with its rates and fees.'),
});

export type MortgageRate = z.infer<typeof MortgageRate>;
export type MortgageProduct = z.infer<typeof MortgageProduct>;
export type LoanProduct = z.infer<typeof LoanProduct>;
export type LoanRate = z.infer<typeof LoanRate>;
export type CreditCardPlan = z.infer<typeof CreditCardPlan>;
export type MortgageInstitution = z.infer<typeof MortgageInstitution>;
export type LoanInstitution = z.infer<typeof LoanInstitution>;
export type CreditCardIssuer = z.infer<typeof CreditCardIssuer>;
