/** Values the tests share: where the repository is, the test history's last date, the fixed clock and addresses. */
import { resolve } from 'node:path';

/** The repository root (the cwd of every script a test runs). */
export const ROOT = resolve(import.meta.dirname, '../..');

/** The last date of the test history (global-setup.ts): the repository's snapshots up to it, the imported 2024–2025 history. */
export const HISTORY_UNTIL = '2025-03-05';
/** The fixed clock of the in-process service: noon on the test history's last day. */
export const NOW = new Date(`${HISTORY_UNTIL}T12:00:00.000Z`);
/** Where test requests are sent: a host the answers must never repeat. */
export const ORIGIN = 'http://rates.test';
/** The configured site URL the answers' absolute URLs come from. */
export const SITE = 'https://rates.example';

/** The values of a credit card plan, in the order the API gives them. */
export const PLAN_VALUES = [
  'purchaseRate',
  'cashAdvanceRate',
  'balanceTransferRate',
  'balanceTransferPeriod',
  'interestFreeDays',
  'annualFeeNZD',
];
/** The fields of a credit card plan, in the order the API gives them. */
export const PLAN_FIELDS = ['id', 'name', ...PLAN_VALUES];
