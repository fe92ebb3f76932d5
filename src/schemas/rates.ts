import { z } from 'zod';
import { idWithPrefix } from './common.ts';

export const MORTGAGE_TERMS = [
  'Variable floating',
  '6 months',
  '18 months',
  '1 year',
  '2 years',
  '3 years',
  '4 years',
  '5 years',
] as const;

export const MortgageRate = z.strictObject({
  id: idWithPrefix('rate'),
  rate: z.number(),
  term: z.enum(MORTGAGE_TERMS),
  termInMonths: z.number().int().positive().nullable(),
});

/** Personal and car loan rates share one shape (spec §2.3, §2.5). */
export const LoanRate = z.strictObject({
  id: idWithPrefix('rate'),
  rate: z.number(),
  plan: z.string().nullable(),
  condition: z.string().nullable(),
});

export const CreditCardPlan = z.strictObject({
  id: idWithPrefix('plan'),
  name: z.string(),
  purchaseRate: z.number().nullable(),
  cashAdvanceRate: z.number().nullable(),
  balanceTransferRate: z.number().nullable(),
  balanceTransferPeriod: z.string().nullable(),
  interestFreeDays: z.number().int().nonnegative().nullable(),
  annualFeeNZD: z.number().nonnegative().nullable(),
});

const product = <R extends z.ZodType>(rate: R) =>
  z.strictObject({ id: idWithPrefix('product'), name: z.string(), rates: z.array(rate) });

export const MortgageProduct = product(MortgageRate);
export const LoanProduct = product(LoanRate);

const institution = <P extends z.ZodType>(item: P) =>
  z.strictObject({ id: idWithPrefix('institution'), name: z.string(), products: z.array(item) });

export const MortgageInstitution = institution(MortgageProduct);
export const LoanInstitution = institution(LoanProduct);
export const CreditCardIssuer = z.strictObject({
  id: idWithPrefix('issuer'),
  name: z.string(),
  plans: z.array(CreditCardPlan),
});

export type MortgageRate = z.infer<typeof MortgageRate>;
export type LoanRate = z.infer<typeof LoanRate>;
export type CreditCardPlan = z.infer<typeof CreditCardPlan>;
export type MortgageInstitution = z.infer<typeof MortgageInstitution>;
export type LoanInstitution = z.infer<typeof LoanInstitution>;
export type CreditCardIssuer = z.infer<typeof CreditCardIssuer>;
