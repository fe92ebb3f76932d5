/**
 * Credit card page: the issuer, the plan, the interest-free period (days), the annual fee of the
 * primary card (NZD), the balance transfer rate and period, the cash advance and purchase rates,
 * each column known by its header (src/collect/page-layout.ts). Each row is one plan; plan names
 * and periods take the history's spelling (src/collect/page-spellings.ts).
 */
import type { CreditCardIssuer } from '../../schemas/rates.ts';
import { textValue } from '../cells.ts';
import { makeId } from '../ids.ts';
import { CREDIT_CARD_PAGE } from '../page-layout.ts';
import { historySpelling } from '../page-spellings.ts';
import { entityRuns, PageRefusal, readRateTables } from '../tables.ts';
import { CellLog, type PageParse } from './types.ts';

/** A balance-transfer period in the history's spelling ("6 mths" is "6 months"), or null. */
function period(text: string): string | null {
  const value = textValue(text);
  return value === null ? null : historySpelling(value, 'period');
}

/** The columns holding a card's values: a row with any of them names its card. */
const CARD_COLUMNS = CREDIT_CARD_PAGE.columns.flatMap((c) => (c.key === 'issuer' || c.key === 'plan' ? [] : [c.key]));

export function parseCreditCardPage(html: string): PageParse {
  const { tableCount, rows, links } = readRateTables(html, CREDIT_CARD_PAGE);
  const cells = new CellLog();
  const issuers = entityRuns(rows).map(
    ({ name: issuer, rows: run }): CreditCardIssuer => ({
      id: makeId('issuer', issuer),
      name: issuer,
      plans: run
        .filter((row) => {
          if (textValue(row.text('plan')) !== null) return true;
          // A row of values naming no card would be dropped in silence, or filed under a guess.
          if (CARD_COLUMNS.some((column) => textValue(row.text(column)) !== null))
            throw new PageRefusal('a row of rates names no product', row.quoted);
          return false;
        })
        .map((row) => {
          const name = historySpelling(textValue(row.text('plan'))!, 'plan');
          const at = (what: string) => `${issuer} · ${name} · ${what}`;
          const days = cells.number(row.text('interestFreeDays'), at('interest-free days'), 'days');
          if (days !== null && !Number.isInteger(days)) cells.cannotRead(at('interest-free days'), String(days));
          return {
            id: makeId('plan', issuer, name),
            name,
            purchaseRate: cells.number(row.text('purchaseRate'), at('purchase rate'), 'rate'),
            cashAdvanceRate: cells.number(row.text('cashAdvanceRate'), at('cash advance rate'), 'rate'),
            balanceTransferRate: cells.number(row.text('balanceTransferRate'), at('balance transfer rate'), 'rate'),
            balanceTransferPeriod: period(row.text('balanceTransferPeriod')),
            interestFreeDays: days !== null && Number.isInteger(days) ? days : null,
            annualFeeNZD: cells.number(row.text('annualFeeNZD'), at('annual fee'), 'money'),
          };
        }),
    }),
  );
  return { tableCount, data: issuers.filter((i) => i.plans.length > 0), cells: cells.summary, links };
}
