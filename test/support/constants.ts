/** Values the tests share: where the repository is, the fixed clock and addresses, the test history's newest dates. */
import { resolve } from 'node:path';
import type { DatasetSlug } from '../../src/datasets.ts';

/** The repository root (the cwd of every script a test runs). */
export const ROOT = resolve(import.meta.dirname, '../..');

/** The fixed clock of the in-process service: noon on the test history's last day. */
export const NOW = new Date('2025-03-05T12:00:00.000Z');
/** Where test requests are sent: a host the answers must never repeat. */
export const ORIGIN = 'http://rates.test';
/** The configured site URL the answers' absolute URLs come from. */
export const SITE = 'https://rates.example';

/** The date of each dataset's newest snapshot in the test history (see global-setup.ts). */
export const NEWEST: Record<DatasetSlug, string> = {
  'mortgage-rates': '2025-03-05',
  'personal-loan-rates': '2025-02-04',
  'car-loan-rates': '2025-02-24',
  'credit-card-rates': '2025-01-07',
};

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
