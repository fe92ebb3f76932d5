/**
 * "The best rate", declared once. Each dataset's explorer facts say which end of its measures is
 * best (`best` in src/explorer/definitions.ts: `lowest` for a rate paid, `highest` for a rate
 * earned), and a measure may say otherwise where it differs (`Measure.best`). Everything that
 * ranks, picks or words a best rate reads it from here: the explorer's rankings and cards,
 * `/lowest` (its name stays, whichever end is best), the alert feeds' threshold (`below` for a
 * rate paid, `above` for a rate earned), the lowest-rate feeds, the comparison pages, the
 * repayment figure (shown only for a rate paid), the OpenAPI and MCP texts and the reference docs.
 */

/** Which end of a measure's values is best for whoever takes the offer. */
export type BestEnd = 'lowest' | 'highest';

/** What follows from a best end: how values rank, and the words for it. */
export interface BestRate {
  end: BestEnd;
  /** A rate paid (a borrower's, a cardholder's), whose best is the lowest; else a rate earned. */
  paid: boolean;
  /** "lowest", "highest": the best value in words. */
  word: BestEnd;
  /** "Lowest", "Highest": the same at the start of a title. */
  Word: 'Lowest' | 'Highest';
  /** The threshold parameter of an alert: a rate paid is followed below a rate, a rate earned above it. */
  side: 'below' | 'above';
  /** Whether value `a` is better than `b`. */
  better(a: number, b: number): boolean;
  /** A sort comparator putting the best value first. */
  order(a: number, b: number): number;
}

const RATES: Record<BestEnd, BestRate> = {
  lowest: {
    end: 'lowest',
    paid: true,
    word: 'lowest',
    Word: 'Lowest',
    side: 'below',
    better: (a, b) => a < b,
    order: (a, b) => a - b,
  },
  highest: {
    end: 'highest',
    paid: false,
    word: 'highest',
    Word: 'Highest',
    side: 'above',
    better: (a, b) => a > b,
    order: (a, b) => b - a,
  },
};

/** What declares a best end: a dataset's explorer facts, whose measures may each say their own. */
export interface BestDeclared {
  best: BestEnd;
  measures: readonly { key: string; best?: BestEnd }[];
}

/** The best rate of one measure (its own declaration, else its dataset's), or of the dataset without one. */
export function bestRateOf(declared: BestDeclared, measureKey?: string): BestRate {
  const measure = measureKey === undefined ? undefined : declared.measures.find((m) => m.key === measureKey);
  return RATES[measure?.best ?? declared.best];
}

/** The best rates its measures have: one for a dataset whose measures agree, both where they differ. */
export function bestRatesOf(declared: BestDeclared): BestRate[] {
  const ends = new Set(
    declared.measures.length > 0 ? declared.measures.map((m) => m.best ?? declared.best) : [declared.best],
  );
  return [...ends].map((end) => RATES[end]);
}

/**
 * The best value of a dataset's measures in words, for a text about all of them: "lowest" where
 * every measure's best is the lowest, "highest" where every one's is the highest, else what each is.
 */
export function bestWordOf(declared: BestDeclared): string {
  const [only, ...more] = bestRatesOf(declared);
  return more.length === 0 ? only!.word : 'best (the lowest of a rate paid, the highest of a rate earned)';
}

/** The threshold parameters a dataset's alerts take: `below`, `above`, or both where its measures differ. */
export const alertSidesOf = (declared: BestDeclared): ('below' | 'above')[] =>
  bestRatesOf(declared).map((rate) => rate.side);
