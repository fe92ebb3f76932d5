/**
 * The mortgage terms, written once. The `term` enum of the rate schema, the mortgage page
 * parser's columns, the explorer's measures and every sentence that lists the terms (the
 * `termInMonths` descriptions, the quickstart's `{{mortgageTerms}}`) are derived from this table.
 * In the order people read them: variable floating, then the fixed terms by length.
 */
export const MORTGAGE_TERM_TABLE = [
  { months: null, label: 'Variable floating', key: 'floating' },
  { months: 6, label: '6 months', key: '6' },
  { months: 12, label: '1 year', key: '12' },
  { months: 18, label: '18 months', key: '18' },
  { months: 24, label: '2 years', key: '24' },
  { months: 36, label: '3 years', key: '36' },
  { months: 48, label: '4 years', key: '48' },
  { months: 60, label: '5 years', key: '60' },
] as const;

export type MortgageTerm = (typeof MORTGAGE_TERM_TABLE)[number];
export type MortgageTermLabel = MortgageTerm['label'];
export type FixedMortgageTerm = Extract<MortgageTerm, { months: number }>;

/** Every term's label: the values of a rate's `term`. */
export const MORTGAGE_TERMS = MORTGAGE_TERM_TABLE.map((t) => t.label) as [MortgageTermLabel, ...MortgageTermLabel[]];

const FIXED_MORTGAGE_TERMS = MORTGAGE_TERM_TABLE.filter((t): t is FixedMortgageTerm => t.months !== null);

/** The term of a number of months (null: variable floating), or undefined for a term not in the table. */
export function mortgageTerm(months: number | null): MortgageTerm | undefined {
  return MORTGAGE_TERM_TABLE.find((t) => t.months === months);
}

/** "6, 12, 18, 24, 36, 48 or 60": the fixed terms in months, for prose. */
export const FIXED_TERM_MONTHS_PROSE = (() => {
  const months = FIXED_MORTGAGE_TERMS.map((t) => String(t.months));
  return `${months.slice(0, -1).join(', ')} or ${months.at(-1)}`;
})();
