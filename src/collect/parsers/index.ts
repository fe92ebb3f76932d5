import type { DatasetSlug } from '../../datasets.ts';
import { CAR_LOAN_PAGE, PERSONAL_LOAN_PAGE } from '../page-layout.ts';
import { parseCreditCardPage } from './credit-cards.ts';
import { loanParser } from './loans.ts';
import { parseMortgagePage } from './mortgage.ts';
import type { PageParser } from './types.ts';

/** One page parser per dataset; the Record type makes a dataset without a parser a type error. */
export const PAGE_PARSERS: Record<DatasetSlug, PageParser> = {
  'mortgage-rates': parseMortgagePage,
  'personal-loan-rates': loanParser(PERSONAL_LOAN_PAGE),
  'car-loan-rates': loanParser(CAR_LOAN_PAGE),
  'credit-card-rates': parseCreditCardPage,
};
