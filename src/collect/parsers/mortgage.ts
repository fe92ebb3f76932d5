/**
 * Mortgage page: the institution, the product, then one column per term, each known by its
 * header (src/collect/page-layout.ts), wherever it stands. 18 months usually comes as a short
 * follow-on row under its product, whose `td.special-line` reads like `18 months = 5.79` (or holds
 * the value in a span): it belongs to the product its own product cell names, within its lender.
 */
import type { MortgageInstitution, MortgageRate } from '../../schemas/rates.ts';
import { MORTGAGE_TERM_TABLE, mortgageTerm } from '../../schemas/terms.ts';
import { textValue } from '../cells.ts';
import { makeId } from '../ids.ts';
import { MORTGAGE_PAGE } from '../page-layout.ts';
import { quote } from '../../lib/clean-text.ts';
import { entityRuns, PageRefusal, readRateTables, type SourceRow } from '../tables.ts';
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
    const lines: SourceRow[] = [];
    for (const row of run) {
      if (row.followOn !== undefined) {
        lines.push(row);
        continue;
      }
      const name = normalizeProductName(textValue(row.text('product')) ?? '');
      const rates = MORTGAGE_TERM_TABLE.flatMap((term) => {
        const value = cells.number(row.text(`term:${term.key}`), `${institution} · ${name} · ${term.label}`, 'rate');
        return value === null ? [] : [rateFor(institution, name, term.months, value)];
      });
      if (!name) {
        if (rates.length > 0) throw new PageRefusal('a row of rates names no product', row.quoted);
        continue;
      }
      products.push({ id: makeId('product', institution, name), name, rates });
    }
    // Each 18-month line joins the product its own product cell names, wherever the line sits.
    const byName = Map.groupBy(products, (p) => p.name);
    for (const line of lines) {
      const matching = byName.get(normalizeProductName(textValue(line.text('product')) ?? '')) ?? [];
      if (matching.length !== 1) {
        throw new PageRefusal(
          'an 18-month line names no one product of its lender',
          `${quote(institution)}: ${line.quoted} names ${matching.length === 0 ? 'no product listed above or below it' : `${matching.length} products`}`,
        );
      }
      const product = matching[0]!;
      const match = FOLLOW_ON.exec(line.followOn!);
      const months = match ? Number(match[1]) : Number.NaN;
      if (!match || !mortgageTerm(months)) {
        cells.cannotRead(`${institution} · ${product.name}: follow-on row`, line.followOn!);
        continue;
      }
      const value = cells.number(match[2]!, `${institution} · ${product.name} · ${months} months`, 'rate');
      if (value === null) continue;
      if (product.rates.some((r) => r.termInMonths === months)) {
        throw new PageRefusal(
          'a second value for a term',
          `${quote(institution)} · ${quote(product.name)} has a ${months}-month rate already; ${line.quoted} gives another`,
        );
      }
      product.rates.push(rateFor(institution, product.name, months, value));
      product.rates.sort((a, b) => (a.termInMonths ?? 0) - (b.termInMonths ?? 0));
    }
    return { id: makeId('institution', institution), name: institution, products };
  });
  return { tableCount, data: institutions, cells: cells.summary, links };
}
