/**
 * Which lenders are banks. The snapshots do not keep the source page's sections (banks, building
 * societies, credit unions, other lenders), so the explorer's "bank or non-bank" filter reads this
 * table of the registered banks the history names, by the slug of their institution or issuer id
 * (the same slug in every dataset). test/explorer-restrictions.test.ts checks that every slug is in
 * the history and that every lender named "… Bank" or "Bank of …" is listed.
 */
export const BANK_SLUGS: ReadonlySet<string> = new Set([
  'anz',
  'asb',
  'bank-of-baroda',
  'bank-of-china',
  'bnz',
  'china-construction-bank',
  'co-operative-bank',
  'heartland-bank',
  'hsbc',
  'icbc',
  'kiwibank',
  'kookmin',
  'kookmin-leaving-soon',
  'sbs-bank',
  'tsb-bank',
  'westpac',
]);

export type LenderType = 'bank' | 'non-bank';

export const lenderType = (entityId: string): LenderType =>
  BANK_SLUGS.has(entityId.slice(entityId.indexOf(':') + 1)) ? 'bank' : 'non-bank';
