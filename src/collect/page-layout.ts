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
  /** Recognises the folded header text (foldHeader: abbreviations spelled out). */
  header: RegExp;
  /** A column the page may leave out (then every value of it is missing). */
  optional?: boolean;
  /**
   * Text this column never holds, because another column does: a plan column reading "From" or
   * "$3,000", a notes column reading "Secured". One such cell means the columns traded places,
   * and the table is refused naming the column, the row and the text.
   */
  never?: readonly { text: RegExp; reads: string }[];
}

export interface SourcePage<K extends string = string> {
  /** The page's path on the source site. */
  path: string;
  /** What its folded `<title>` or `<h1>` says: the page is the one asked for, not another. */
  title: RegExp;
  columns: readonly SourceColumn<K>[];
  /** The column naming the product or plan a row is about (what the 18-month line repeats). */
  item: K;
}

/**
 * Abbreviations the page's headers use or may use, spelled out before a header is matched:
 * "Cash Adv %" (recorded) is "cash advance %", "Bal. transfer %" is "balance transfer %".
 */
export const HEADER_ABBREVIATIONS: Readonly<Record<string, string>> = {
  adv: 'advance',
  bal: 'balance',
  int: 'interest',
  tsfr: 'transfer',
  xfer: 'transfer',
  mth: 'month',
  mths: 'months',
  yr: 'year',
  yrs: 'years',
};

/**
 * Header text folded: lower case, line breaks and runs of white space as one space, and each
 * abbreviation of HEADER_ABBREVIATIONS spelled out (with or without its full stop).
 */
export function foldHeader(text: string): string {
  return text
    .replace(/\u00a0/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .split(' ')
    .map((word) => HEADER_ABBREVIATIONS[word.endsWith('.') ? word.slice(0, -1) : word] ?? word)
    .join(' ');
}

/**
 * The first column's header: the recorded mortgage and savings pages say "Institution"; the loan and
 * card pages' first header is recorded nowhere, so the words a lender column is plainly headed by.
 */
const INSTITUTION: SourceColumn<'institution'> = {
  key: 'institution',
  label: 'institution',
  header: /^(?:institutions?|lenders?|providers?|banks?|financial institutions?)$/,
};

/** An amount, a number or a range word: what a notes (condition) column holds, never a plan. */
const CONDITION_LIKE = { text: /^(?:from|to)\b|\$|\d/i, reads: 'an amount or a range' };
/** A bare number: a value, never a product's name. */
const NUMBER_LIKE = { text: /^[\d\s.,%$]+$/, reads: 'a number' };
/** Whether a loan is secured: what the plan column holds, never a product's name (none in the history starts so). */
const PLAN_LIKE = { text: /^(?:un)?secured\b/i, reads: 'a plan (secured or not)' };
/** A loan product's words (the history's products: "Personal Loan", "YouChoose Overdraft", "Vehicle finance"), never a plan. */
const PRODUCT_LIKE = { text: /\b(?:loans?|overdrafts?|finance)\b/i, reads: 'a product' };

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
  item: 'product',
  title: /\bmortgages?\b|\bhome loans?\b/,
  columns: [
    INSTITUTION,
    { key: 'product', label: 'product', header: /^(?:products?|loans?|loan types?)$/, never: [NUMBER_LIKE] },
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
  item: 'product',
  title,
  columns: [
    INSTITUTION,
    // "Loan type" names the product here: the recorded plan column is headed "Plan".
    {
      key: 'product',
      label: 'product',
      header: /^(?:products?|loans?|loan (?:types?|names?|products?))$/,
      never: [NUMBER_LIKE, PLAN_LIKE],
    },
    {
      key: 'plan',
      label: 'plan (secured or not)',
      header: /^(?:plans?|security|secured(?: or |\/)unsecured)$/,
      never: [CONDITION_LIKE, PRODUCT_LIKE],
    },
    {
      key: 'condition',
      label: 'notes (amount or term)',
      header: /^(?:notes?|conditions?|details?|terms?)$/,
      // A bare number in the notes is a rate out of its column (no condition in the history is one).
      never: [PLAN_LIKE, { text: /^[\d\s.,%]+$/, reads: 'a bare number, which is a rate' }],
    },
    { key: 'rate', label: 'interest rate %', header: /^(?:interest )?rates?(?: %| \(%\))?$|^%$/ },
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
  item: 'plan',
  title: /\bcredit cards?\b/,
  columns: [
    { key: 'issuer', label: 'issuer', header: /^(?:(?:card )?issuers?|institutions?|providers?|banks?|lenders?)$/ },
    // "Plan" (recorded) names the card: the column after the issuer.
    {
      key: 'plan',
      label: 'card (plan)',
      header: /^(?:plans?|cards?|products?|card (?:names?|types?|plans?))$/,
      never: [{ text: /^\d+\s*(?:days?|months?|mths?)$|^[\d\s.,%$]+$/i, reads: 'a number or a period' }],
    },
    {
      key: 'interestFreeDays',
      label: 'interest-free days',
      header: /^interest[ -]?free(?: period| days)?(?: \(days\)| days)?$/,
    },
    { key: 'annualFeeNZD', label: 'annual fee', header: /^(?:annual )?fees?(?: primary(?: card)?)?(?: \$| \(\$\))?$/ },
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
