/**
 * Which offers are not open to anyone, and whom they are for: one table of rules matched on the
 * names the source prints (a product or card name, a loan rate's condition, for cards the
 * issuer). The explorer's "lowest" rates, trend lines and comparisons count open offers only and
 * show restricted ones apart, labelled with these words (/docs/concepts#lowest-rates-and-restricted-offers).
 *
 * Every rule lists the exact texts it catches in the history (`catches`) and real names that look
 * alike but are open (`spares`); test/explorer-restrictions.test.ts reads the whole history and
 * fails when a rule catches anything else, misses one of these, or names a text the history lacks.
 * The API does not carry this judgement: its rate objects stay as the source lists them.
 */
import type { DatasetSlug } from '../datasets.ts';

/** The names of one offer as the snapshot has them. */
export interface OfferNames {
  /** The institution or issuer. */
  entity: string;
  /** The product (mortgages, loans) or the card (credit cards). */
  product: string;
  /** Loans: the rate's condition ("From", "To", "$3,000 to $50,000"). */
  condition?: string | null;
}

export interface RestrictionRule {
  key: string;
  /** Whom the offer is for, as the pages print it after the offer ("first-home buyers"). */
  label: string;
  /** Why the rule exists, in a sentence for the docs. */
  why: string;
  datasets: readonly DatasetSlug[];
  /** The one name the rule reads. */
  field: keyof OfferNames;
  pattern: RegExp;
  /** Every distinct text of `field` the rule catches in the history (the tests check the list is exact). */
  catches: readonly string[];
  /** Real texts of `field` that look alike and must stay open. */
  spares: readonly string[];
}

const MORTGAGES: readonly DatasetSlug[] = ['mortgage-rates'];
const LOANS: readonly DatasetSlug[] = ['personal-loan-rates', 'car-loan-rates'];
const LENDING: readonly DatasetSlug[] = ['mortgage-rates', 'personal-loan-rates', 'car-loan-rates'];
const FROM_LABEL = 'the best-rated borrowers (a “from” rate)';

/** In the order their labels are printed when several rules catch one offer. */
export const RESTRICTIONS: readonly RestrictionRule[] = [
  {
    key: 'first-home',
    label: 'first-home buyers',
    why: 'Only people buying their first home qualify.',
    datasets: LENDING,
    field: 'product',
    pattern: /\bfirst[ -]home\b|\bFHB\b/i,
    catches: ['Construction lending for FHB', 'First Home Buyer Special', 'First Home Combo'],
    spares: ['Special', 'Standard', 'Residential', 'Owner Occupied', 'Home Loans'],
  },
  {
    key: 'construction',
    label: 'people building a home',
    why: 'Construction lending is drawn down while a house is built, not for buying an existing one.',
    datasets: LENDING,
    field: 'product',
    pattern: /\bconstruction\b/i,
    catches: ['Construction lending for FHB'],
    // The institution China Construction Bank is not a product: its "Standard" is open.
    spares: ['Standard', 'Non Standard'],
  },
  {
    key: 'disability',
    label: 'people with physical disabilities',
    why: 'Lent only to people with physical disabilities.',
    datasets: LENDING,
    field: 'product',
    pattern: /\bdisabilit(y|ies)\b/i,
    catches: [
      'For people with physical disabilities',
      'For people with physical disabilities....from',
      'for people with physical disabilities',
      'for people with physical disabilities....from',
    ],
    spares: ['Personal Loan', 'Residential'],
  },
  {
    key: 'green-top-up',
    label: 'green or energy-saving home upgrades',
    why: 'Top-ups at 0–1 % for insulation, heating, solar and the like, on part of an existing home loan.',
    datasets: MORTGAGES,
    field: 'product',
    // Westpac's green top-up is called Greater Choices; its other Choices loans are ordinary.
    pattern: /\b(green|energy|eco|solar|EVs?|better homes|greater choices)\b/i,
    catches: ['Better Homes Top Up', 'Good Energy - Up to $80K', 'Greater Choices', 'Green Home Loan top-ups'],
    spares: ['Choices Offset', 'Choices Everyday', 'TotalMoney', 'Offset Mortgage', 'Std & Flybuys'],
  },
  {
    key: 'electric-vehicle',
    label: 'buyers of electric vehicles and e-bikes',
    why: 'A green loan for one kind of purchase.',
    datasets: LOANS,
    field: 'product',
    pattern: /\b(EVs?|electric|e-bikes?)\b/i,
    catches: ['EVs and e-Bikes'],
    spares: ['Personal Loan', 'Vehicle Loan', 'Car Loans'],
  },
  {
    key: 'reverse-mortgage',
    label: 'older homeowners (reverse mortgage)',
    why: 'Reverse mortgages lend against the home of older owners and are repaid when it is sold.',
    datasets: MORTGAGES,
    field: 'product',
    pattern: /\breverse\b/i,
    catches: ['Reverse Mortgage', 'Unwind reverse equity'],
    spares: ['Residential'],
  },
  {
    key: 'shared-ownership',
    label: 'buyers in a shared-ownership scheme',
    why: 'For households buying part of a home through a shared-ownership scheme.',
    datasets: MORTGAGES,
    field: 'product',
    pattern: /\bshared ownership\b/i,
    catches: ['Shared Ownership'],
    spares: ['Standard'],
  },
  {
    key: 'members',
    label: 'members only',
    why: 'The product name says it is for the lender’s members, or that membership criteria apply.',
    datasets: LENDING,
    field: 'product',
    pattern: /\bmember(ship)?\b/i,
    catches: ['Member home loan', 'Personal Loan (Membership criteria apply)'],
    spares: ['Personal Loan', 'Standard'],
  },
  {
    key: 'students',
    label: 'students and graduates',
    why: 'Student and graduate packages.',
    datasets: LOANS,
    field: 'product',
    pattern: /\b(campus|graduate|student)s?\b/i,
    catches: ['Campus Pack Advanced', 'Graduate Loan', 'Graduate Pack Advanced', 'Personal Loan - Graduate pack'],
    spares: ['Advanced', 'Personal Loan'],
  },
  {
    key: 'existing-customers',
    label: 'existing home-loan customers',
    why: 'A personal loan rate for people who already have the bank’s home loan.',
    datasets: LOANS,
    field: 'product',
    pattern: /\bhome loan customers?\b/i,
    catches: ['Home Loan Customers'],
    spares: ['Personal Loan'],
  },
  {
    key: 'homeowners',
    label: 'homeowners',
    why: 'A personal loan for people who own their home.',
    datasets: LOANS,
    field: 'product',
    pattern: /\bhomeowner/i,
    catches: ["Homeowner's loan; 1 Year", "Homeowner's loan; 2 - 3 Years", "Homeowner's loan; 5 - 7 Years"],
    spares: ['Credit Grade B', 'Personal Loan'],
  },
  {
    key: 'best-credit-grade',
    label: 'borrowers with the best credit grade',
    why: 'The top grade of a graded range, the loan equivalent of a “from” rate.',
    datasets: LOANS,
    field: 'product',
    pattern: /^credit grade a$/i,
    catches: ['Credit Grade A'],
    spares: ['Credit Grade B', 'Credit Grade C', 'Credit Grade D'],
  },
  {
    key: 'one-make',
    label: 'buyers of one maker’s vehicles',
    why: 'Dealer finance for one make’s machines or certified cars.',
    datasets: LOANS,
    field: 'product',
    pattern: /\btractors?\b|\bsignature class\b/i,
    catches: ['Special - Signature Class', 'Tractors'],
    spares: ['Classic / Choices', 'Marine Loan'],
  },
  {
    key: 'professional-body',
    label: 'members of a professional body',
    why: 'Cards issued to members of a law society, a medical association or the chartered accountants’ institute.',
    datasets: ['credit-card-rates'],
    field: 'entity',
    pattern: /\blaw society\b|\bmedical association\b|^NZICA$/i,
    catches: ['Auck. Dist. Law Society', 'NZ Medical Association', 'NZICA'],
    spares: ['Diners Club', 'Amex', 'HSBC'],
  },
  {
    key: 'from-product',
    label: FROM_LABEL,
    why: 'A product whose name ends in “from” gives the bottom of a range, which only the strongest applications get.',
    datasets: MORTGAGES,
    field: 'product',
    pattern: /\bfrom\W*$/i,
    catches: [
      'Commercial / Rural - from',
      'For people with physical disabilities....from',
      'Residential - from',
      'Short term bridging 1st mortgages ....from',
      'Short-term & Bridge mortgage loans from',
      'Short-term & bridge mortgage loans from',
      'Standard, from',
      'for people with physical disabilities....from',
    ],
    // A date, not a range.
    spares: ['Standard from Aug 20', 'Standard  LVR < 80%', 'Prime <60% LVR'],
  },
  {
    key: 'from-condition',
    label: FROM_LABEL,
    why: 'A loan rate whose condition is “From” is the bottom of a range; its “To” rate is the most an approved borrower pays.',
    datasets: LOANS,
    field: 'condition',
    pattern: /\bfrom\b/i,
    catches: [
      'Blue, from',
      'From',
      'From (limited to $10,000)',
      'From ...',
      'Green, from',
      'Premium rate from',
      'Yellow, from',
      'from',
      'premium rate from',
    ],
    spares: ['To', 'to', 'Green, to', 'Orange', '$3,000 to $50,000', '$2,000-$15,000'],
  },
];

/** The rules that catch an offer of a dataset, in table order (empty: open to anyone). */
export function restrictionRulesOf(dataset: DatasetSlug, names: OfferNames): RestrictionRule[] {
  return RESTRICTIONS.filter((rule) => {
    if (!rule.datasets.includes(dataset)) return false;
    const text = names[rule.field];
    return typeof text === 'string' && rule.pattern.test(text);
  });
}

/** Whom an offer is for ("first-home buyers; people building a home"), or undefined when it is open to anyone. */
export function restrictionOf(dataset: DatasetSlug, names: OfferNames): string | undefined {
  const labels = [...new Set(restrictionRulesOf(dataset, names).map((r) => r.label))];
  return labels.length ? labels.join('; ') : undefined;
}

/** The rules as a Markdown table, for the docs (`{{restrictionRules}}`). */
export function restrictionsMarkdown(titles: Record<DatasetSlug, string>): string {
  const field = { entity: 'issuer', product: 'product or card name', condition: 'rate condition' } as const;
  return [
    '| restricted to | matched on | datasets | caught in the history | why |',
    '| --- | --- | --- | --- | --- |',
    ...RESTRICTIONS.map(
      (r) =>
        `| ${r.label} | ${field[r.field]} | ${r.datasets.map((d) => titles[d].toLowerCase()).join(', ')} | ${r.catches
          .map((c) => `“${c.replace(/\|/g, '\\|')}”`)
          .join(', ')} | ${r.why} |`,
    ),
  ].join('\n');
}
