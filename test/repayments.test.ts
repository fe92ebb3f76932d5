/**
 * The repayment figure of the comparison pages (src/lib/repayments.ts, issue 35 point 6): the
 * standard amortisation formula against published values and against a month-by-month loan
 * balance worked out here, its bounds (never NaN or Infinity), and how the page reads and prints
 * the numbers.
 */
import { describe, expect, it } from 'vitest';
import {
  formatAmount,
  formatRepayment,
  MAX_AMOUNT,
  MAX_RATE,
  MAX_YEARS,
  monthlyRepayment,
  parseNumber,
  repayment,
  termMonths,
  termWords,
} from '../src/lib/repayments.ts';

const cents = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 100) / 100);

/** The balance left after paying `monthly` for `months` months, interest added monthly at `ratePercent` ÷ 12. */
function balanceAfter(amount: number, ratePercent: number, months: number, monthly: number): number {
  let balance = amount;
  for (let m = 0; m < months; m++) balance = balance * (1 + ratePercent / 100 / 12) - monthly;
  return balance;
}

describe('the monthly repayment', () => {
  it.each([
    // Amount, rate %, years, monthly repayment (to the cent), as loan calculators give them.
    [500_000, 6, 30, 2997.75],
    [100_000, 5, 30, 536.82],
    [200_000, 4.5, 15, 1529.99],
    [25_000, 9.99, 5, 531.05],
    [3_000, 20.95, 1, 279.27],
    [20_000, 0, 5, 333.33],
    [1_200, 0, 1, 100],
  ])('$%d at %d %% over %d years: $%d a month', (amount, rate, years, expected) => {
    expect(cents(monthlyRepayment(amount, rate, years))).toBe(expected);
  });

  it('pays the loan off exactly: a month-by-month balance reaches 0 with the last payment, not before', () => {
    for (const amount of [1, 3_000, 20_000, 500_000, MAX_AMOUNT])
      for (const rate of [0, 0.01, 1.99, 5.49, 7.25, 12.5, 24.95, MAX_RATE])
        for (const years of [1 / 12, 0.5, 1, 5, 30, MAX_YEARS]) {
          const months = Math.round(years * 12);
          const monthly = monthlyRepayment(amount, rate, years)!;
          const at = `${amount} ${rate} ${years}`;
          expect(Number.isFinite(monthly), at).toBe(true);
          // Zero to the loop's own rounding, which grows as the unpaid loan would: amount × (1 + i)^N.
          const grown = amount * (1 + rate / 100 / 12) ** months;
          expect(Math.abs(balanceAfter(amount, rate, months, monthly)) / grown, at).toBeLessThan(1e-12);
          // A month before, what is left is what the last payment clears with its month's interest.
          const left = balanceAfter(amount, rate, months - 1, monthly);
          expect(Math.abs(left - monthly / (1 + rate / 100 / 12)) / grown, at).toBeLessThan(1e-12);
        }
  });

  it('one month: the amount with a month’s interest; 0 %: the amount in equal parts', () => {
    expect(monthlyRepayment(1_000, 12, 1 / 12)).toBeCloseTo(1_010, 9);
    expect(monthlyRepayment(500_000, 0, 30)).toBeCloseTo(500_000 / 360, 9);
  });

  it('stays exact for a tiny rate, where (1 + i)^−N is all but 1', () => {
    const monthly = monthlyRepayment(500_000, 1e-9, 30)!;
    expect(monthly).toBeGreaterThan(500_000 / 360);
    expect(monthly).toBeCloseTo(500_000 / 360, 6);
  });

  it('a higher rate, or a shorter term, costs more a month', () => {
    expect(monthlyRepayment(500_000, 6.5, 30)!).toBeGreaterThan(monthlyRepayment(500_000, 6, 30)!);
    expect(monthlyRepayment(500_000, 6, 25)!).toBeGreaterThan(monthlyRepayment(500_000, 6, 30)!);
  });

  it('gives the payments’ total and the interest among them', () => {
    const r = repayment(500_000, 6, 30)!;
    expect(r.months).toBe(360);
    expect(cents(r.total)).toBe(1_079_190.95);
    expect(cents(r.interest)).toBe(579_190.95);
    expect(repayment(20_000, 0, 5)).toEqual({ monthly: 20_000 / 60, months: 60, total: 20_000, interest: 0 });
  });
});

describe('its bounds: out of them there is no figure, never NaN or Infinity', () => {
  it.each([
    ['no amount', 0, 6, 30],
    ['a negative amount', -1, 6, 30],
    ['an amount over the bound', MAX_AMOUNT + 1, 6, 30],
    ['an amount of NaN', Number.NaN, 6, 30],
    ['an infinite amount', Number.POSITIVE_INFINITY, 6, 30],
    ['a negative rate', 500_000, -0.5, 30],
    ['a rate over the bound', 500_000, MAX_RATE + 0.01, 30],
    ['a rate of NaN', 500_000, Number.NaN, 30],
    ['an infinite rate', 500_000, Number.POSITIVE_INFINITY, 30],
    ['no term', 500_000, 6, 0],
    ['a negative term', 500_000, 6, -5],
    ['a term under a month', 500_000, 6, 1 / 24],
    ['a term not in whole months', 500_000, 6, 1.1],
    ['a term over the bound', 500_000, 6, MAX_YEARS + 1 / 12],
    ['a term of NaN', 500_000, 6, Number.NaN],
    ['an infinite term', 500_000, 6, Number.POSITIVE_INFINITY],
  ])('%s', (_, amount, rate, years) => {
    expect(repayment(amount, rate, years)).toBeUndefined();
    expect(monthlyRepayment(amount, rate, years)).toBeUndefined();
  });

  it('the bounds themselves are in', () => {
    for (const [amount, rate, years] of [
      [MAX_AMOUNT, MAX_RATE, MAX_YEARS],
      [0.01, 0, 1 / 12],
      [MAX_AMOUNT, 0, 1 / 12],
      [0.01, MAX_RATE, MAX_YEARS],
    ] as const) {
      const r = repayment(amount, rate, years)!;
      for (const n of [r.monthly, r.total, r.interest])
        expect(Number.isFinite(n), `${amount} ${rate} ${years}`).toBe(true);
      expect(r.monthly).toBeGreaterThan(0);
    }
  });

  it('a term is a whole number of months from 1 to 12 × the longest term', () => {
    expect(termMonths(30)).toBe(360);
    expect(termMonths(1.5)).toBe(18);
    expect(termMonths(7 / 12)).toBe(7);
    expect(termMonths(MAX_YEARS)).toBe(MAX_YEARS * 12);
    for (const years of [0, 1 / 24, 2.01, -1, MAX_YEARS + 1, Number.NaN])
      expect(termMonths(years), String(years)).toBeUndefined();
  });
});

describe('reading and printing the numbers', () => {
  it('reads an amount or a term as a reader types it, and nothing else', () => {
    expect(parseNumber('500000')).toBe(500_000);
    expect(parseNumber('500,000')).toBe(500_000);
    expect(parseNumber(' $500 000 ')).toBe(500_000);
    expect(parseNumber('2.5')).toBe(2.5);
    expect(parseNumber('.5')).toBe(0.5);
    expect(parseNumber('30.')).toBe(30);
    for (const text of ['', ' ', '-5', '+5', '1e5', 'abc', '1.2.3', '5 years', 'Infinity', 'NaN', '$', '0x10'])
      expect(parseNumber(text), text).toBeUndefined();
  });

  it('prints a repayment in whole dollars, in cents below $100', () => {
    expect(formatRepayment(2997.7526)).toBe('$2,998');
    expect(formatRepayment(279.2693)).toBe('$279');
    expect(formatRepayment(8.3333)).toBe('$8.33');
    expect(formatRepayment(1_234_567.8)).toBe('$1,234,568');
  });

  it('prints an amount as typed, and a term in years or months', () => {
    expect(formatAmount(500_000)).toBe('$500,000');
    expect(formatAmount(1_234.5)).toBe('$1,234.50');
    expect(termWords(360)).toBe('30 years');
    expect(termWords(12)).toBe('1 year');
    expect(termWords(18)).toBe('18 months');
    expect(termWords(1)).toBe('1 month');
  });
});
