/**
 * Personal and car loan pages: cells 0 institution, 1 product, 2 plan (Secured / Unsecured …),
 * 3 notes (the condition: "$3,000 to $50,000", "From", "To"), 4 rate %. Rows of the same
 * product (a range is often a "From" and a "To" row) become one product; a row with no rate
 * carries no rate.
 */
import type { LoanInstitution } from '../../schemas/rates.ts';
import { parseNumber, textValue } from '../cells.ts';
import { makeId } from '../ids.ts';
import { entityRuns, readRateTables } from '../tables.ts';
import type { PageParse } from './types.ts';

export function parseLoanPage(html: string): PageParse {
  const { tableCount, rows } = readRateTables(html);
  const warnings: string[] = [];
  const institutions = entityRuns(rows).map(({ name: institution, rows: run }): LoanInstitution => {
    const products: LoanInstitution['products'] = [];
    let lastProduct = '';
    for (const row of run) {
      if (row.texts.length < 5) continue;
      const productName = row.texts[1] || lastProduct;
      lastProduct = productName;
      const rate = parseNumber(row.texts[4] ?? '');
      if (rate === null) {
        if (textValue(row.texts[4] ?? '') !== null)
          warnings.push(`${institution} · ${productName}: rate "${row.texts[4]}" not understood; skipped`);
        continue;
      }
      const plan = textValue(row.texts[2] ?? '');
      const condition = textValue(row.texts[3] ?? '');
      const productId = makeId('product', institution, productName);
      let product = products.find((p) => p.id === productId);
      if (!product) {
        product = { id: productId, name: productName, rates: [] };
        products.push(product);
      }
      product.rates.push({ id: makeId('rate', institution, productName, plan, condition), rate, plan, condition });
    }
    return { id: makeId('institution', institution), name: institution, products };
  });
  return { tableCount, data: institutions.filter((i) => i.products.length > 0), warnings };
}
