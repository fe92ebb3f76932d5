/**
 * How a source page is recognised: the words its `<title>` or `<h1>` carries, and the columns its
 * rate tables must have, each known by what its header cell says. The dataset table
 * (src/datasets.ts) declares one layout per dataset; the table reader (tables.ts) maps every
 * column by its header and refuses a table whose headers it cannot place.
 *
 * Headers are matched after folding (foldHeader): lower case, `<br>` and runs of white space as
 * one space. A pattern says what the header means in words (`/interest[ -]?free/`), not its exact
 * text, which the page may change; when it changes past recognition, the refusal prints the
 * headers found and the columns expected, so the fix is one pattern here.
 */
import { MORTGAGE_TERM_TABLE } from '../schemas/terms.ts';

export interface SourceColumn<K extends string = string> {
  key: K;
  /** The column in words, for messages. */
  label: string;
  /** Recognises the folded header text. */
  header: RegExp;
  /** A column the page may leave out (then every value of it is missing). */
  optional?: boolean;
}

export interface SourcePage<K extends string = string> {
  /** The page's path on the source site. */
  path: string;
  /** What its folded `<title>` or `<h1>` says: the page is the one asked for, not another. */
  title: RegExp;
  columns: readonly SourceColumn<K>[];
}

/** Header text folded: lower case, line breaks and runs of white space as one space. */
export function foldHeader(text: string): string {
  return text
    .replace(/\u00a0/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

const INSTITUTION: SourceColumn<'institution'> = {
  key: 'institution',
  label: 'institution',
  header: /^(?:institution|lender|provider|bank|financial institution)s?$/,
};

/**
 * A mortgage term's header: "Variable floating" / "Floating"; a term of months as "6 months",
 * "6 mths", "18 months"; a term of years as "1 year", "2 years", "2 yrs" (or its months).
 */
function termHeader(months: number | null): RegExp {
  if (months === null) return /^(?:variable )?floating(?: rate)?$|^variable$/;
  const inMonths = `${months} ?(?:months?|mths?)`;
  if (months % 12 !== 0) return new RegExp(`^${inMonths}$`);
  return new RegExp(`^(?:${months / 12} ?(?:years?|yrs?)|${inMonths})(?: fixed)?$`);
}

/** The 18-month rate usually comes in a follow-on row under its product, not in a column. */
const FOLLOW_ON_MONTHS = 18;

export const MORTGAGE_PAGE: SourcePage = {
  path: '/borrowing',
  title: /\bmortgages?\b|\bhome loans?\b/,
  columns: [
    INSTITUTION,
    { key: 'product', label: 'product', header: /^(?:product|loan|loan type)s?$/ },
    ...MORTGAGE_TERM_TABLE.map((t) => ({
      key: `term:${t.key}`,
      label: t.label,
      header: termHeader(t.months),
      optional: t.months === FOLLOW_ON_MONTHS,
    })),
  ],
};

export type LoanColumn = 'institution' | 'product' | 'plan' | 'condition' | 'rate';

const loanPage = (path: string, title: RegExp): SourcePage<LoanColumn> => ({
  path,
  title,
  columns: [
    INSTITUTION,
    { key: 'product', label: 'product', header: /^(?:product|loan|loan name)s?$/ },
    { key: 'plan', label: 'plan (secured or not)', header: /^(?:plan|type|loan type|security|secured)s?$/ },
    { key: 'condition', label: 'notes (amount or term)', header: /^(?:notes?|conditions?|details?|terms?)$/ },
    { key: 'rate', label: 'interest rate %', header: /^(?:interest )?rate(?: %| \(%\))?$|^%$/ },
  ],
});

export const PERSONAL_LOAN_PAGE = loanPage('/borrowing/personal-loan', /\bpersonal loans?\b/);
export const CAR_LOAN_PAGE = loanPage('/borrowing/car-loan', /\bcar loans?\b|\bvehicle loans?\b/);

export type CardColumn =
  | 'issuer'
  | 'plan'
  | 'interestFreeDays'
  | 'annualFeeNZD'
  | 'balanceTransferRate'
  | 'balanceTransferPeriod'
  | 'cashAdvanceRate'
  | 'purchaseRate';

export const CREDIT_CARD_PAGE: SourcePage<CardColumn> = {
  path: '/borrowing/credit-cards',
  title: /\bcredit cards?\b/,
  columns: [
    { key: 'issuer', label: 'issuer', header: /^(?:issuer|institution|provider|bank|card issuer)s?$/ },
    { key: 'plan', label: 'card (plan)', header: /^(?:card|plan|product|card name|card type)s?$/ },
    { key: 'interestFreeDays', label: 'interest-free days', header: /\binterest[ -]?free\b/ },
    { key: 'annualFeeNZD', label: 'annual fee', header: /\bfees?\b/ },
    {
      key: 'balanceTransferRate',
      label: 'balance transfer rate',
      header: /^balance transfers?(?: rate)?(?: %| \(%\))?$/,
    },
    { key: 'balanceTransferPeriod', label: 'balance transfer period', header: /^balance transfers? (?:period|term)\b/ },
    { key: 'cashAdvanceRate', label: 'cash advance rate', header: /^cash(?: advances?)?(?: rate)?(?: %| \(%\))?$/ },
    { key: 'purchaseRate', label: 'purchase rate', header: /^purchases?(?: rate)?(?: %| \(%\))?$/ },
  ],
};
