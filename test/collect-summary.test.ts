import { describe, expect, it } from 'vitest';
import { describeChanges, summaryMarkdown } from '../src/collect/summary.ts';
import { valuesOf } from '../src/snapshots/diff.ts';
import { CreditCardIssuer, LoanInstitution, type LoanRate } from '../src/schemas/rates.ts';
import { datasetOfSchema } from './support/datasets.ts';

const cards = datasetOfSchema(CreditCardIssuer);
const loans = datasetOfSchema(LoanInstitution);

const plan = (id: string, name: string, purchaseRate: number | null, annualFeeNZD: number | null) => ({
  id,
  name,
  purchaseRate,
  cashAdvanceRate: 21.95,
  balanceTransferRate: null,
  balanceTransferPeriod: null,
  interestFreeDays: 55,
  annualFeeNZD,
});

describe('change summary', () => {
  it('lists issuers and plans added or removed, and every value that moved', () => {
    const before = [
      {
        id: 'issuer:amex',
        name: 'Amex',
        plans: [plan('plan:amex:low-rate', 'Low Rate', 12.69, 59), plan('plan:amex:gold', 'Gold', 20.95, 200)],
      },
      { id: 'issuer:gem', name: 'Gem', plans: [plan('plan:gem:visa', 'Visa', 29.99, 55)] },
    ];
    const after = [
      {
        id: 'issuer:amex',
        name: 'Amex',
        plans: [plan('plan:amex:low-rate', 'Low Rate', 13.95, null), plan('plan:amex:blue', 'Blue', 19.95, 0)],
      },
      { id: 'issuer:kiwibank', name: 'Kiwibank', plans: [plan('plan:kiwibank:zero', 'Zero', 20.95, 0)] },
    ];
    const { lines, moves } = describeChanges(cards, before, after);
    expect(lines).toEqual([
      '- Issuers added: Kiwibank',
      '- Issuers removed: Gem',
      '- Added: Amex · Blue',
      '- Removed: Amex · Gold',
      '- Amex · Low Rate · purchase rate: 12.69 → 13.95',
      '- Amex · Low Rate · annual fee: 59 → —',
    ]);
    expect(moves).toBe(2);
  });

  it('labels loan rates by plan and condition, and reports new and dropped rates', () => {
    const rate = (id: string, value: number, condition: string) => ({ id, rate: value, plan: 'Unsecured', condition });
    const product = (rates: LoanRate[]) => [
      {
        id: 'institution:anz',
        name: 'ANZ',
        products: [{ id: 'product:anz:personal-loan', name: 'Personal Loan', rates }],
      },
    ];
    const { lines } = describeChanges(
      loans,
      product([
        rate('rate:anz:personal-loan:unsecured:from', 13.9, 'From'),
        rate('rate:anz:personal-loan:unsecured:to', 19.9, 'To'),
      ]),
      product([
        rate('rate:anz:personal-loan:unsecured:from', 12.9, 'From'),
        rate('rate:anz:personal-loan:unsecured:3000-to-50000', 14.9, '$3,000 to $50,000'),
      ]),
    );
    expect(lines).toEqual([
      '- ANZ · Personal Loan · Unsecured From: 13.9 → 12.9',
      '- ANZ · Personal Loan · Unsecured $3,000 to $50,000: new, 14.9',
      '- ANZ · Personal Loan · Unsecured To: 19.9, no longer listed',
    ]);
  });

  it('names a rate, whatever its dataset: its term label, else its text fields, else its term in months', () => {
    const what = (rate: Record<string, unknown>) =>
      [
        ...valuesOf({ id: 'product:a:p', name: 'P', rates: [{ id: 'rate:a:p:x', rate: 5, ...rate }] } as any).values(),
      ].map((v) => v.what);
    expect(what({ term: '1 year', termInMonths: 12 })).toEqual(['1 year']);
    expect(what({ plan: 'Unsecured', condition: 'From' })).toEqual(['Unsecured From']);
    expect(what({ plan: null, condition: '$3,000 to $50,000' })).toEqual(['$3,000 to $50,000']);
    expect(what({ termInMonths: 6 })).toEqual(['6 months']);
    expect(what({ plan: null, condition: null })).toEqual(['rate']);
  });

  it('makes a commit message: subject line, blank line, a section per dataset', () => {
    const text = summaryMarkdown(
      [{ dataset: cards, file: `${cards.slug}/2026-11-21.json`, changes: { lines: ['- x'], moves: 3 } }],
      '2026-11-21',
    );
    expect(text).toBe(
      `Rates 2026-11-21: ${cards.label} (3 moved)\n\n### ${cards.title} — ${cards.slug}/2026-11-21.json\n\n- x\n`,
    );
  });
});
