/**
 * What a loan costs a month at a rate: the repayment figure of the comparison pages
 * (src/components/Repayments.astro, src/browser/repayments.ts). Pure, so the page and the tests
 * compute the same numbers.
 *
 * The standard amortisation formula: a loan of P repaid in N equal monthly payments at a monthly
 * rate i (the annual rate r % ÷ 100 ÷ 12; N = 12 × the term in years) costs
 *
 *   M = P·i / (1 − (1 + i)^−N)        and M = P / N when i = 0,
 *
 * each month (the denominator is worked out as −expm1(−N·log1p(i)), which keeps its digits when i
 * is tiny). It is an estimate: equal payments, the rate fixed for the whole term, no fees.
 */

/** The largest amount the figure is worked out for (NZD). */
export const MAX_AMOUNT = 100_000_000;
/** The longest term (years). */
export const MAX_YEARS = 50;
/** The highest annual rate (%): any lending rate is below it. */
export const MAX_RATE = 100;

export interface Repayment {
  /** The equal monthly payment. */
  monthly: number;
  /** How many payments: 12 × the term in years. */
  months: number;
  /** What all the payments add up to. */
  total: number;
  /** The interest among them: total − amount. */
  interest: number;
}

/** A term's number of monthly payments: a whole number from 1 to 12 × MAX_YEARS, else undefined. */
export function termMonths(years: number): number | undefined {
  if (!Number.isFinite(years)) return undefined;
  const months = years * 12;
  const whole = Math.round(months);
  if (Math.abs(months - whole) > 1e-9 || whole < 1 || whole > MAX_YEARS * 12) return undefined;
  return whole;
}

/** Whether `amount` can be borrowed here: finite, above 0, at most MAX_AMOUNT. */
export const validAmount = (amount: number): boolean => Number.isFinite(amount) && amount > 0 && amount <= MAX_AMOUNT;

/** Whether `ratePercent` is an annual rate the figure is worked out for: finite, 0 to MAX_RATE. */
const validRate = (ratePercent: number): boolean =>
  Number.isFinite(ratePercent) && ratePercent >= 0 && ratePercent <= MAX_RATE;

/**
 * The repayment of `amount` borrowed at `ratePercent` % a year over `years` (whole months), or
 * undefined when an input is out of bounds: never NaN or Infinity.
 */
export function repayment(amount: number, ratePercent: number, years: number): Repayment | undefined {
  const months = termMonths(years);
  if (months === undefined || !validAmount(amount) || !validRate(ratePercent)) return undefined;
  const i = ratePercent / 100 / 12;
  // 1 − (1 + i)^−N, without losing digits when i is tiny.
  const monthly = i === 0 ? amount / months : (amount * i) / -Math.expm1(-months * Math.log1p(i));
  const total = monthly * months;
  return { monthly, months, total, interest: total - amount };
}

/** The monthly repayment alone (see `repayment`). */
export const monthlyRepayment = (amount: number, ratePercent: number, years: number): number | undefined =>
  repayment(amount, ratePercent, years)?.monthly;

/**
 * A number as a reader types it: "500000", "500,000", "$500 000", "2.5". Undefined for anything
 * else (a sign, an exponent, letters, nothing).
 */
export function parseNumber(text: string): number | undefined {
  const plain = text.trim().replace(/^\$/, '').replace(/[,\s]/g, '');
  return /^(\d+(\.\d*)?|\.\d+)$/.test(plain) ? Number(plain) : undefined;
}

const dollars = new Intl.NumberFormat('en-NZ', { style: 'currency', currency: 'NZD', maximumFractionDigits: 0 });
const cents = new Intl.NumberFormat('en-NZ', { style: 'currency', currency: 'NZD', minimumFractionDigits: 2 });

/** A repayment as the page prints it: whole dollars ("$2,998"), cents below $100 ("$8.33"). */
export const formatRepayment = (value: number): string => (value < 100 ? cents : dollars).format(value);

/** An amount as typed, in dollars: "$500,000", "$1,234.50". */
export const formatAmount = (value: number): string => (Number.isInteger(value) ? dollars : cents).format(value);

/** A term in words: "30 years", "1 year", "18 months". */
export function termWords(months: number): string {
  const [n, unit] = months % 12 === 0 ? [months / 12, 'year'] : [months, 'month'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
