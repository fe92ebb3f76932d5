/**
 * Mortgage page: the institution, the product, then one column per term, each known by its
 * header (src/collect/page-layout.ts), wherever it stands. 18 months usually comes as a short
 * follow-on row under its product, whose `td.special-line` reads like `18 months = 5.79` (or holds
 * the value in a span): it belongs to the product row above it.
 */
import type { MortgageInstitution, MortgageRate } from '../../schemas/rates.ts';
import { MORTGAGE_TERM_TABLE, mortgageTerm } from '../../schemas/terms.ts';
import { makeId } from '../ids.ts';
import { MORTGAGE_PAGE } from '../page-layout.ts';
import { entityRuns, readRateTables } from '../tables.ts';
import { CellLog, type PageParse } from './types.ts';

/**
 * "Special LVR under 80%", "Special - Classic", "Special LVR <80%" … are all the institution's
 * "Special". Matched on the name with its white space folded, by a pattern whose every space is
 * optional but single, so it cannot backtrack over a long run of spaces.
 */
export function normalizeProductName(name: string): string {
  const folded = name.replace(/\s+/g, ' ').trim();
  return /^special\b(?: ?[-–:] ?classic| ?[-–(]? ?lvr ?(?:under|<|less than) ?\d+ ?%\)?)?$/i.test(folded)
    ? 'Special'
    : name;
}

function rateFor(institution: string, product: string, months: number | null, value: number): MortgageRate {
  const term = mortgageTerm(months)!.label;
  return { id: makeId('rate', institution, product, term), rate: value, term, termInMonths: months };
}

/** `18 months = 5.79`, `18 mths: 5.79`, `18 months 5.79`. */
const FOLLOW_ON = /^(\d+)\s*(?:months?|mths?)\s*[=:]?\s*(.*)$/i;

export function parseMortgagePage(html: string): PageParse {
  const { tableCount, rows, links } = readRateTables(html, MORTGAGE_PAGE);
  const cells = new CellLog();
  const institutions = entityRuns(rows).map(({ name: institution, rows: run }): MortgageInstitution => {
    const products: MortgageInstitution['products'] = [];
    for (const row of run) {
      if (row.followOn !== undefined) {
        const product = products.at(-1);
        const match = FOLLOW_ON.exec(row.followOn);
        const months = match ? Number(match[1]) : Number.NaN;
        if (!product || !match || !mortgageTerm(months)) {
          cells.cannotRead(`${institution}: follow-on row`, row.followOn);
          continue;
        }
        const value = cells.number(match[2]!, `${institution} · ${product.name} · ${months} months`, 'rate');
        if (value !== null && !product.rates.some((r) => r.termInMonths === months)) {
          product.rates.push(rateFor(institution, product.name, months, value));
          product.rates.sort((a, b) => (a.termInMonths ?? 0) - (b.termInMonths ?? 0));
        }
        continue;
      }
      const name = normalizeProductName(row.text('product'));
      if (!name) continue;
      const rates = MORTGAGE_TERM_TABLE.flatMap((term) => {
        const value = cells.number(row.text(`term:${term.key}`), `${institution} · ${name} · ${term.label}`, 'rate');
        return value === null ? [] : [rateFor(institution, name, term.months, value)];
      });
      products.push({ id: makeId('product', institution, name), name, rates });
    }
    return { id: makeId('institution', institution), name: institution, products };
  });
  return { tableCount, data: institutions, cells: cells.summary, links };
}
