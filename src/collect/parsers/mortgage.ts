/**
 * Mortgage page: cells 0 institution, 1 product, then one column per term in the order of the
 * term table (src/schemas/terms.ts) less 18 months: 2 variable floating, 3 six months, 4 one
 * year, 5 two years, 6 three, 7 four, 8 five years. 18 months is a short follow-on row whose
 * `td.special-line` reads `18 months = 5.79`, belonging to the product row above it.
 */
import type { MortgageInstitution, MortgageRate } from '../../schemas/rates.ts';
import { MORTGAGE_TERM_TABLE, mortgageTerm } from '../../schemas/terms.ts';
import { parseNumber, cellText } from '../cells.ts';
import { makeId } from '../ids.ts';
import { entityRuns, readRateTables } from '../tables.ts';
import type { PageParse } from './types.ts';

/** Terms the page gives only in a follow-on row, not in a column of their own. */
const FOLLOW_ON_ONLY = new Set<number | null>([18]);
/** The page's rate columns: cell index and the term's months, from cell 2 on. */
const COLUMNS: [cell: number, months: number | null][] = MORTGAGE_TERM_TABLE.filter(
  (t) => !FOLLOW_ON_ONLY.has(t.months),
).map((t, i) => [2 + i, t.months]);

/** "Special LVR under 80%", "Special - Classic", "Special LVR <80%" … are all the institution's "Special". */
export function normalizeProductName(name: string): string {
  return /^special\b(?:\s*[-–:]\s*classic|\s*[-–(]?\s*lvr\s*(?:under|<|less than)\s*\d+\s*%\)?)?\s*$/i.test(name)
    ? 'Special'
    : name;
}

function rateFor(institution: string, product: string, months: number | null, value: number): MortgageRate {
  const term = mortgageTerm(months)!.label;
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
        if (!product || !mortgageTerm(months)) {
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
