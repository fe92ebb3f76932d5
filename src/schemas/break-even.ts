/**
 * The answer of `GET /api/v1/<dataset>/break-even` (a dataset whose measures are fixed terms): for
 * each pair of fixed terms, a shorter of a months and a longer of b, the rate the shorter must be
 * refixed at for the remaining b − a months to come out the same as fixing for b
 * (/docs/concepts#break-even-rates). Its offers are named as /lowest names them (src/schemas/lowest.ts).
 */
import { z } from 'zod';
import { envelopeSchema } from './envelopes.ts';
import { type LowestNames, offerSchema } from './lowest.ts';
import { openToNewFields } from './open.ts';

/** The formula, as the docs, the descriptions and the tool state it; src/explorer/break-even.ts computes it. */
export const BREAK_EVEN_FORMULA =
  'with monthly compounding, fixing for b months at r_b grows 1 to (1 + r_b/1200)^b, and fixing for a months at r_a, ' +
  'then for the remaining b − a months at x, grows it to (1 + r_a/1200)^a × (1 + x/1200)^(b − a); the break-even rate ' +
  'x makes the two equal: x = 1200 × [((1 + r_b/1200)^b ÷ (1 + r_a/1200)^a)^(1/(b − a)) − 1], ' +
  'rounded to 2 decimals as the API gives every rate';

/** What the descriptions say of one dataset's answer. */
export interface BreakEvenWords {
  /** The answer's `type`. */
  type: string;
  /** Where a refixed rate must stand to win: "below" for a rate paid, "above" for a rate earned (src/explorer/best.ts). */
  side: 'below' | 'above';
  /** The fixed terms in months, in prose ("6, 12, 18, 24, 36, 48 or 60"). */
  terms: string;
}

function entrySchema(names: LowestNames, words: BreakEvenWords) {
  const offer = offerSchema(names).extend({
    for: z
      .string()
      .optional()
      .describe(
        'Whom the product is for, when it is not open to anyone (“first-home buyers”); only where `basis` is `product`.',
      ),
  });
  return z.strictObject({
    basis: z
      .enum(['lowest', 'product'])
      .describe(
        '`lowest`: the two rates are the best open rates of their terms, as /lowest answers them (any lenders); ' +
          '`product`: both are one product’s own rates (with the lender given).',
      ),
    shorterInMonths: z.number().int().describe(`a: the shorter fixed term, in months (${words.terms}).`),
    longerInMonths: z.number().int().describe('b: the longer fixed term, in months.'),
    shorterRate: z.number().describe('r_a: the rate of the shorter term used, in percent a year.'),
    longerRate: z.number().describe('r_b: the rate of the longer term used, in percent a year.'),
    breakEvenRate: z
      .number()
      .describe(
        `x, in percent a year: fixing for a months and then refixing for b − a months ${words.side} it comes out better than fixing for b months; ${BREAK_EVEN_FORMULA}.`,
      ),
    text: z
      .string()
      .describe(
        `The same in a sentence, as the comparison pages write it: “Fixing 1 year at 5.05 % beats 2 years at 4.99 % if in a year you can refix for 1 year ${words.side} 4.93 %.”`,
      ),
    shorterOffers: z
      .array(offer)
      .describe(
        'Who offers the shorter term at `shorterRate`: every offer open to anyone at that rate, or the product.',
      ),
    longerOffers: z
      .array(offer)
      .describe('Who offers the longer term at `longerRate`: every offer open to anyone at that rate, or the product.'),
  });
}

/** The whole answer: the envelope of the other data answers, an entry per pair of terms; open, as it may gain fields. */
export const breakEvenSchema = (names: LowestNames, words: BreakEvenWords) =>
  openToNewFields(envelopeSchema(words.type, entrySchema(names, words)));
