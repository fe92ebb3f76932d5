/**
 * Which offers are not open to anyone, or are not what the page compares, and whom they are for or
 * what they are: one table of rules matched on the names the source prints (a product or card
 * name, or the institution itself when the lender sets who may borrow). The explorer's best
 * ("lowest") rates, trend lines and comparisons count open offers only and show the others apart,
 * labelled with these words (/docs/concepts#best-rates-and-restricted-offers). Each dataset's
 * explorer facts say which rules apply to it (`restrictions` in src/explorer/definitions.ts).
 *
 * Every rule lists the exact texts it catches in the history (`catches`) and real names that look
 * alike but are open (`spares`); test/explorer-restrictions.test.ts reads the whole history and
 * fails when a rule catches anything else, misses one of these, or names a text the history lacks.
 * The API does not carry this judgement: its rate objects stay as the source lists them.
 */

/** The names of one offer as the snapshot has them. */
export interface OfferNames {
  /** The institution or issuer. */
  entity: string;
  /** The product (mortgages, loans) or the card (credit cards). */
  product: string;
}

export interface RestrictionRule<K extends string = string> {
  key: K;
  /** Whom the offer is for, as the pages print it after the offer ("first-home buyers"). */
  label: string;
  /** Why the rule exists, in a sentence for the docs: for a lender, the evidence. */
  why: string;
  /** What the evidence leaves open, said rather than guessed (shown in the docs beside `why`). */
  unclear?: string;
  /** The one name the rule reads. */
  field: keyof OfferNames;
  pattern: RegExp;
  /** Every distinct text of `field` the rule catches in the history (the tests check the list is exact). */
  catches: readonly string[];
  /** Real texts of `field` that look alike and must stay open. */
  spares: readonly string[];
}

const rule = <const K extends string>(r: RestrictionRule<K>) => r;

/** In the order their labels are printed when several rules catch one offer. */
export const RESTRICTIONS = [
  rule({
    key: 'first-home',
    label: 'first-home buyers',
    why: 'Only people buying their first home qualify.',
    field: 'product',
    pattern: /\bfirst[ -]home\b|\bFHB\b/i,
    catches: ['Construction lending for FHB', 'First Home Buyer Special', 'First Home Combo'],
    spares: ['Special', 'Standard', 'Residential', 'Owner Occupied', 'Home Loans'],
  }),
  rule({
    key: 'construction',
    label: 'people building a home',
    why: 'Construction lending is drawn down while a house is built, not for buying an existing one.',
    field: 'product',
    pattern: /\bconstruction\b/i,
    catches: ['Construction lending for FHB'],
    // The institution China Construction Bank is not a product: its "Standard" is open.
    spares: ['Standard', 'Non Standard'],
  }),
  rule({
    key: 'disability',
    label: 'people with physical disabilities',
    why: 'Lent only to people with physical disabilities.',
    field: 'product',
    pattern: /\bdisabilit(y|ies)\b/i,
    catches: [
      'For people with physical disabilities',
      'For people with physical disabilities....from',
      'for people with physical disabilities',
      'for people with physical disabilities....from',
    ],
    spares: ['Personal Loan', 'Residential'],
  }),
  rule({
    key: 'green-top-up',
    label: 'green or energy-saving home upgrades',
    why: 'Top-ups at 0–1 % for insulation, heating, solar and the like, on part of an existing home loan.',
    field: 'product',
    // Westpac's green top-up is called Greater Choices; its other Choices loans are ordinary.
    pattern: /\b(green|energy|eco|solar|EVs?|better homes|greater choices)\b/i,
    catches: ['Better Homes Top Up', 'Good Energy - Up to $80K', 'Greater Choices', 'Green Home Loan top-ups'],
    spares: ['Choices Offset', 'Choices Everyday', 'TotalMoney', 'Offset Mortgage', 'Std & Flybuys'],
  }),
  rule({
    key: 'electric-vehicle',
    label: 'buyers of electric vehicles and e-bikes',
    why: 'A green loan for one kind of purchase.',
    field: 'product',
    pattern: /\b(EVs?|electric|e-bikes?)\b/i,
    catches: ['EVs and e-Bikes'],
    spares: ['Personal Loan', 'Vehicle Loan', 'Car Loans'],
  }),
  rule({
    key: 'reverse-mortgage',
    label: 'older homeowners (reverse mortgage)',
    why: 'Reverse mortgages lend against the home of older owners and are repaid when it is sold.',
    field: 'product',
    pattern: /\breverse\b/i,
    catches: ['Reverse Mortgage', 'Unwind reverse equity'],
    spares: ['Residential'],
  }),
  rule({
    key: 'shared-ownership',
    label: 'buyers in a shared-ownership scheme',
    why: 'For households buying part of a home through a shared-ownership scheme.',
    field: 'product',
    pattern: /\bshared ownership\b/i,
    catches: ['Shared Ownership'],
    spares: ['Standard'],
  }),
  rule({
    key: 'members',
    label: 'members only',
    why: 'The product name says it is for the lender’s members, or that membership criteria apply.',
    field: 'product',
    pattern: /\bmember(ship)?\b/i,
    catches: ['Member home loan', 'Personal Loan (Membership criteria apply)'],
    spares: ['Personal Loan', 'Standard'],
  }),
  rule({
    key: 'students',
    label: 'students and graduates',
    why: 'Student and graduate packages.',
    field: 'product',
    pattern: /\b(campus|graduate|student)s?\b/i,
    catches: ['Campus Pack Advanced', 'Graduate Loan', 'Graduate Pack Advanced', 'Personal Loan - Graduate pack'],
    spares: ['Advanced', 'Personal Loan'],
  }),
  rule({
    key: 'existing-customers',
    label: 'existing home-loan customers',
    why: 'A personal loan rate for people who already have the bank’s home loan.',
    field: 'product',
    pattern: /\bhome loan customers?\b/i,
    catches: ['Home Loan Customers'],
    spares: ['Personal Loan'],
  }),
  rule({
    key: 'homeowners',
    label: 'homeowners',
    why: 'A personal loan for people who own their home.',
    field: 'product',
    pattern: /\bhomeowner/i,
    catches: ["Homeowner's loan; 1 Year", "Homeowner's loan; 2 - 3 Years", "Homeowner's loan; 5 - 7 Years"],
    spares: ['Credit Grade B', 'Personal Loan'],
  }),
  rule({
    key: 'one-make',
    label: 'buyers of one maker’s vehicles',
    why: 'Dealer finance for one make’s machines or certified cars.',
    field: 'product',
    pattern: /\btractors?\b|\bsignature class\b/i,
    catches: ['Special - Signature Class', 'Tractors'],
    spares: ['Classic / Choices', 'Marine Loan'],
  }),
  rule({
    key: 'professional-body',
    label: 'members of a professional body',
    why: 'Cards issued to members of a law society, a medical association or the chartered accountants’ institute.',
    field: 'entity',
    pattern: /\blaw society\b|\bmedical association\b|^NZICA$/i,
    catches: ['Auck. Dist. Law Society', 'NZ Medical Association', 'NZICA'],
    spares: ['Diners Club', 'Amex', 'HSBC'],
  }),
  rule({
    key: 'from-product',
    label: 'the best-rated borrowers (a “from” rate)',
    why: 'A product whose name ends in “from” gives the bottom of a range, which only the strongest applications get.',
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
  }),
  rule({
    key: 'revolving-credit',
    label: 'an overdraft or revolving credit line, not a loan',
    why: 'A limit to draw on and repay at will, at a rate that is not a loan’s: listed among personal loans by the source, but no loan to compare with.',
    field: 'product',
    pattern: /\boverdraft|\brevolving\b|\bline of credit\b|\bcredit line\b/i,
    catches: ['Overdraft facilities', 'YouChoose Overdraft'],
    spares: ['Personal Loan', 'Debt Consolidation', 'Credit Grade B'],
  }),
  rule({
    key: 'police-members',
    label: 'members of the Police Credit Union (police staff and their families)',
    why: 'Police Credit Union lends to its members, who are police staff and their families; the page labels its own car loan “Membership criteria apply”.',
    unclear:
      'Other credit unions (First CU, NZCU Auckland, UnityMoney) also lend to members, but nothing on the page says who may join them: they are counted open.',
    field: 'entity',
    pattern: /^police cu$/i,
    catches: ['Police CU'],
    spares: ['First CU', 'NZCU Auckland', 'UnityMoney', 'Unity'],
  }),
  rule({
    key: 'housing-scheme',
    label: 'buyers eligible for a Kāinga Ora scheme',
    why: 'Kāinga Ora (formerly Housing New Zealand) lends under government housing schemes, each with its own eligibility (income caps, first homes, its tenants).',
    unclear:
      'The page names only a “Residential” rate and not the scheme it belongs to; no scheme of Kāinga Ora is open to anyone.',
    field: 'entity',
    pattern: /^kainga ora\b|^kāinga ora\b/i,
    catches: ['Kainga Ora - HNZ'],
    spares: ['Kiwibank', 'Heartland Bank'],
  }),
  rule({
    key: 'disability-lender',
    label: 'people with physical disabilities',
    why: 'Paraloan lends only to people with physical disabilities: every product of it on the page says so.',
    field: 'entity',
    pattern: /^paraloan$/i,
    catches: ['Paraloan'],
    spares: ['Pepper Money', 'Pronto Finance'],
  }),
  rule({
    key: 'medical-finance',
    label: 'patients paying for medical or dental treatment',
    why: 'Nova Medical Finance lends for treatment by the medical and dental practices it works with, as its name says.',
    unclear: 'The page does not say whether it lends for anything else; it is set apart on its name alone.',
    field: 'entity',
    pattern: /\bmedical finance\b/i,
    catches: ['Nova Medical Finance'],
    spares: ['Finance Now', 'Future Finance'],
  }),
  rule({
    key: 'store-card',
    label: 'a store card (one retailer’s)',
    why: 'A department store’s own card, used at that store: not a card people compare with a bank’s.',
    unclear: 'Q Card (Humm Group) and Warehouse Money are taken at many shops, so they are counted as general cards.',
    field: 'entity',
    pattern: /^(?:arthur barnett|ballantynes|smith & caughey|farmers finance|retail financial services)$/i,
    catches: ['Arthur Barnett', 'Ballantynes', 'Farmers Finance', 'Retail Financial Services', 'Smith & Caughey'],
    spares: ['Humm Group', 'The Warehouse', 'Warehouse Money', 'Flight Centre', 'Gem'],
  }),
] as const;

/** The key of a rule of the table. */
export type RestrictionKey = (typeof RESTRICTIONS)[number]['key'];

/** The rules of `keys` (a dataset's, from its explorer facts) that catch an offer, in table order (empty: open to anyone). */
export function restrictionRulesOf(keys: readonly RestrictionKey[], names: OfferNames): RestrictionRule[] {
  return RESTRICTIONS.filter((rule) => {
    if (!keys.includes(rule.key)) return false;
    const text = names[rule.field];
    return typeof text === 'string' && rule.pattern.test(text);
  });
}

/** Whom an offer is for ("first-home buyers; people building a home"), or undefined when it is open to anyone. */
export function restrictionOf(keys: readonly RestrictionKey[], names: OfferNames): string | undefined {
  const labels = [...new Set(restrictionRulesOf(keys, names).map((r) => r.label))];
  return labels.length ? labels.join('; ') : undefined;
}
