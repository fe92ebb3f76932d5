/**
 * Personal and car loan pages: the institution, the product, the plan (Secured / Unsecured …), the
 * notes (the condition: "$3,000 to $50,000", "From", "To") and the rate, each column known by its
 * header (src/collect/page-layout.ts). Rows of the same product (a range is often a "From" and a
 * "To" row) become one product; a row with no rate carries no rate.
 */
import type { LoanColumn, SourcePage } from '../page-layout.ts';
import type { LoanInstitution } from '../../schemas/rates.ts';
import { textValue } from '../cells.ts';
import { makeId } from '../ids.ts';
import { entityRuns, PageRefusal, readRateTables } from '../tables.ts';
import { CellLog, type PageParse, type PageParser } from './types.ts';

export function loanParser(page: SourcePage<LoanColumn>): PageParser {
  return (html: string): PageParse => {
    const { tableCount, rows, links } = readRateTables(html, page);
    const cells = new CellLog();
    const institutions = entityRuns(rows).map(({ name: institution, rows: run }): LoanInstitution => {
      const products = new Map<string, LoanInstitution['products'][number]>();
      let lastProduct = '';
      for (const row of run) {
        // An empty or "not offered" product cell (`-`, `n/a`) continues the product above it.
        const productName = textValue(row.text('product')) ?? lastProduct;
        lastProduct = productName;
        const plan = textValue(row.text('plan'));
        const condition = textValue(row.text('condition'));
        const where = [institution, productName, plan, condition].filter(Boolean).join(' · ');
        const rate = cells.number(row.text('rate'), where, 'rate');
        if (rate === null) continue;
        // A rate no product cell above it names would be dropped in silence, or filed under a guess.
        if (!productName) throw new PageRefusal('a row of rates names no product', row.quoted);
        const productId = makeId('product', institution, productName);
        let product = products.get(productId);
        if (!product) products.set(productId, (product = { id: productId, name: productName, rates: [] }));
        product.rates.push({ id: makeId('rate', institution, productName, plan, condition), rate, plan, condition });
      }
      return { id: makeId('institution', institution), name: institution, products: [...products.values()] };
    });
    return { tableCount, data: institutions.filter((i) => i.products.length > 0), cells: cells.summary, links };
  };
}
