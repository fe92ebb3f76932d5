/**
 * Personal and car loan pages: cells 0 institution, 1 product, 2 plan (Secured / Unsecured …),
 * 3 notes (the condition: "$3,000 to $50,000", "From", "To"), 4 rate %. Rows of the same
 * product (a range is often a "From" and a "To" row) become one product; a row with no rate
 * carries no rate.
 */
import type { LoanInstitution } from '../../schemas/rates.ts';
import { parseNumber, textValue } from '../cells.ts';
import { makeId } from '../ids.ts';
import { readRateTables } from '../tables.ts';
import type { PageParse } from './types.ts';

export function parseLoanPage(html: string): PageParse {
  const { tableCount, rows } = readRateTables(html);
  const institutions: LoanInstitution[] = [];
  const warnings: string[] = [];
  let current: LoanInstitution | undefined;
  let currentTable = -1;
  let lastProduct = '';

  for (const row of rows) {
    if (!current || current.name !== row.entity || currentTable !== row.table) {
      current = { id: makeId('institution', row.entity), name: row.entity, products: [] };
      institutions.push(current);
      currentTable = row.table;
      lastProduct = '';
    }
    if (row.texts.length < 5) continue;
    const productName = row.texts[1] || lastProduct;
    lastProduct = productName;
    const rate = parseNumber(row.texts[4] ?? '');
    if (rate === null) {
      if (textValue(row.texts[4] ?? '') !== null) warnings.push(`${row.entity} · ${productName}: rate "${row.texts[4]}" not understood; skipped`);
      continue;
    }
    const plan = textValue(row.texts[2] ?? '');
    const condition = textValue(row.texts[3] ?? '');
    const productId = makeId('product', row.entity, productName);
    let product = current.products.find((p) => p.id === productId);
    if (!product) {
      product = { id: productId, name: productName, rates: [] };
      current.products.push(product);
    }
    product.rates.push({ id: makeId('rate', row.entity, productName, plan, condition), rate, plan, condition });
  }
  return { tableCount, data: institutions.filter((i) => i.products.length > 0), warnings };
}
