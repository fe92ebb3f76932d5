import type { DatasetSlug } from '../../datasets.ts';
import { parseCreditCardPage } from './credit-cards.ts';
import { parseLoanPage } from './loans.ts';
import { parseMortgagePage } from './mortgage.ts';
import type { PageParser } from './types.ts';

/** One page parser per dataset; the Record type makes a dataset without a parser a type error. */
export const PAGE_PARSERS: Record<DatasetSlug, PageParser> = {
  'mortgage-rates': parseMortgagePage,
  'personal-loan-rates': parseLoanPage,
  'car-loan-rates': parseLoanPage,
  'credit-card-rates': parseCreditCardPage,
};
