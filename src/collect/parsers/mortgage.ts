/**
 * Mortgage page: cells 0 institution, 1 product, 2 variable floating, 3 six months, 4 one year,
 * 5 two years, 6 three, 7 four, 8 five years. 18 months is a short follow-on row whose
 * `td.special-line` reads `18 months = 5.79`, belonging to the product row above it.
 */
import type { MortgageInstitution, MortgageRate } from '../../schemas/rates.ts';
import { MORTGAGE_TERMS } from '../../schemas/rates.ts';
import { parseNumber, cellText } from '../cells.ts';
import { makeId } from '../ids.ts';
import { entityRuns, readRateTables } from '../tables.ts';
import type { PageParse } from './types.ts';

const TERM_LABELS: Record<number, (typeof MORTGAGE_TERMS)[number]> = {
  6: '6 months',
  12: '1 year',
  18: '18 months',
  24: '2 years',
  36: '3 years',
  48: '4 years',
  60: '5 years',
};
const COLUMNS: [cell: number, months: number | null][] = [[2, null], [3, 6], [4, 12], [5, 24], [6, 36], [7, 48], [8, 60]];

/** "Special LVR under 80%", "Special - Classic", "Special LVR <80%" … are all the institution's "Special". */
export function normalizeProductName(name: string): string {
  return /^special\b(?:\s*[-–:]\s*classic|\s*[-–(]?\s*lvr\s*(?:under|<|less than)\s*\d+\s*%\)?)?\s*$/i.test(name) ? 'Special' : name;
}

function rateFor(institution: string, product: string, months: number | null, value: number): MortgageRate {
  const term = months === null ? 'Variable floating' : TERM_LABELS[months]!;
  return { id: makeId('rate', institution, product, term), rate: value, term, termInMonths: months };
}

export function parseMortgagePage(html: string): PageParse {
  const { tableCount, rows } = readRateTables(html);
  const warnings: string[] = [];
  const institutions = entityRuns(rows).map(({ name: institution, rows: run }): MortgageInstitution => {
    const products: MortgageInstitution['products'] = [];
    for (const row of run) {
      const special = row.row.find('td.special-line');
      if (special.length > 0) {
        const text = cellText(special.first());
        const match = /(\d+)\s*(?:months?|mths?)\s*[=:]\s*(.+)$/i.exec(text);
        const product = products.at(-1);
        const months = match ? Number(match[1]) : NaN;
        const value = match ? parseNumber(match[2]!) : null;
        if (!product || !TERM_LABELS[months]) {
          warnings.push(`${institution}: follow-on row "${text}" not understood; skipped`);
        } else if (value !== null && !product.rates.some((r) => r.termInMonths === months)) {
          product.rates.push(rateFor(institution, product.name, months, value));
          product.rates.sort((a, b) => (a.termInMonths ?? 0) - (b.termInMonths ?? 0));
        }
        continue;
      }
      if (row.texts.length < 3) continue;
      const name = normalizeProductName(row.texts[1] ?? '');
      const rates = COLUMNS.flatMap(([cell, months]) => {
        const value = parseNumber(row.texts[cell] ?? '');
        return value === null ? [] : [rateFor(institution, name, months, value)];
      });
      products.push({ id: makeId('product', institution, name), name, rates });
    }
    return { id: makeId('institution', institution), name: institution, products };
  });
  return { tableCount, data: institutions, warnings };
}
