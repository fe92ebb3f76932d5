/**
 * What the page says, mapped to the forms and ids the history holds. The earlier deployment
 * corrected the page's spellings before saving, and the page's institution labels drift between
 * visits; without these tables the first live run would change plan ids and restart their time
 * series, and feeds would report changes that never happened. Each entry is tested
 * (test/collect-continuity.test.ts), and its evidence says where the page's form was seen.
 *
 * An alias is the only way two labels become one institution: a label that is not listed keeps
 * its own name and id, and a run that would give two different names one id is refused (guards.ts).
 */

export interface Alias {
  /** A label the page has used. */
  label: string;
  /** The name the history holds for that institution. */
  name: string;
  evidence: string;
}

/** Institution and issuer labels the page has used for a name the history holds. */
export const INSTITUTION_ALIASES: readonly Alias[] = [
  { label: 'Nelson', name: 'Nelson Bldg Society', evidence: 'mortgage page label seen by public scrapers, 2024–2026' },
  { label: 'Nelson Bldg Socy', name: 'Nelson Bldg Society', evidence: 'mortgage and loan pages, 2025' },
  { label: 'Unity', name: 'UnityMoney', evidence: 'label before the rename to UnityMoney, seen 2024' },
  { label: 'Heretaunga', name: 'Heretaunga Bldg Socy', evidence: 'mortgage page label, seen 2024–2026' },
  { label: 'Kookmin (leaving soon)', name: 'Kookmin', evidence: 'mortgage page label, 2026' },
  {
    label: 'Wairarapa',
    name: 'Wairarapa Bldg Society',
    evidence:
      'mortgage page label to Dec 2024; the history lists the same products and values under each label the next day',
  },
  {
    label: 'Wairarapa Bldg Socy',
    name: 'Wairarapa Bldg Society',
    evidence:
      'mortgage page label, Dec 2024; the history lists the same products and values under each label the next day',
  },
];

export interface Spelling {
  /** The page's form: a whole word or phrase (matched at word boundaries, in any case). */
  page: string;
  /** The form the history holds. */
  history: string;
  /** The plan field it is found in. */
  field: 'plan' | 'period';
  evidence: string;
}

/** Card plan names and balance-transfer periods as the page spells them, and as the history does. */
export const SPELLINGS: readonly Spelling[] = [
  { page: 'mths', history: 'months', field: 'period', evidence: 'periods such as "6 mths" on the cards page' },
  {
    page: 'bal tsfrd',
    history: 'balance transferred',
    field: 'period',
    evidence: '"Life of bal tsfrd" on the cards page',
  },
  { page: 'Airpoint', history: 'Airpoints', field: 'plan', evidence: '"Airpoint Platinum" on the cards page' },
  { page: 'onesmart', history: 'OneSmart', field: 'plan', evidence: 'Air New Zealand\'s "onesmart" on the cards page' },
  {
    page: 'FarmersCard',
    history: 'Farmers Finance Card',
    field: 'plan',
    evidence: '"FarmersCard" on the cards page',
  },
  { page: 'Warehose', history: 'Warehouse', field: 'plan', evidence: 'a typo on the cards page: "Warehose Money"' },
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SPELLING_PATTERNS = SPELLINGS.map((s) => ({ ...s, pattern: new RegExp(`\\b${escapeRegExp(s.page)}\\b`, 'gi') }));

/** The name the history holds for a label the page uses (the label itself when no alias lists it). */
export function institutionName(label: string): string {
  return INSTITUTION_ALIASES.find((a) => a.label === label)?.name ?? label;
}

/** A card plan name or balance-transfer period in the history's spelling, first letter capitalised as the history has it. */
export function historySpelling(text: string, field: Spelling['field']): string {
  let spelled = text;
  for (const s of SPELLING_PATTERNS) if (s.field === field) spelled = spelled.replace(s.pattern, s.history);
  return spelled.charAt(0).toUpperCase() + spelled.slice(1);
}
