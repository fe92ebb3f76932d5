/**
 * Credit card page: cells 0 issuer, 1 plan, 2 interest-free period (days), 3 annual fee of the
 * primary card (NZD), 4 balance transfer rate %, 5 balance transfer period, 6 cash advance
 * rate %, 7 purchase rate %. Each row is one plan.
 */
import type { CreditCardIssuer } from '../../schemas/rates.ts';
import { parseNumber, textValue } from '../cells.ts';
import { makeId } from '../ids.ts';
import { entityRuns, readRateTables } from '../tables.ts';
import type { PageParse } from './types.ts';

function wholeDays(text: string): number | null {
  const days = parseNumber(text);
  return days !== null && Number.isInteger(days) && days >= 0 ? days : null;
}

export function parseCreditCardPage(html: string): PageParse {
  const { tableCount, rows } = readRateTables(html);
  const issuers = entityRuns(rows).map(
    ({ name: issuer, rows: run }): CreditCardIssuer => ({
      id: makeId('issuer', issuer),
      name: issuer,
      plans: run
        .filter(({ texts }) => texts.length >= 8 && texts[1])
        .map(({ texts: t }) => {
          const fee = parseNumber(t[3]!);
          return {
            id: makeId('plan', issuer, t[1]),
            name: t[1]!,
            purchaseRate: parseNumber(t[7]!),
            cashAdvanceRate: parseNumber(t[6]!),
            balanceTransferRate: parseNumber(t[4]!),
            balanceTransferPeriod: textValue(t[5]!),
            interestFreeDays: wholeDays(t[2]!),
            annualFeeNZD: fee !== null && fee >= 0 ? fee : null,
          };
        }),
    }),
  );
  return { tableCount, data: issuers.filter((i) => i.plans.length > 0), warnings: [] };
}
