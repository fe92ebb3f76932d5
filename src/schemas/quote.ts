/**
 * The answer of `GET /api/v1/<dataset>/quote`: where one rate stands among the offers open to
 * anyone of one measure (a mortgage term, a loan plan, a card rate) in the newest snapshot — how
 * many are below, equal and above it, its percentile, the best and the median open rate, the
 * offers that make the best — and, for a named lender, that lender's own offers of the measure.
 * Offers are named as /lowest names them (src/schemas/lowest.ts).
 */
import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { type LowestNames, offerSchema } from './lowest.ts';
import { openToNewFields } from './open.ts';

/** How one dataset names its offers (as /lowest does), and which count holds the offers better than the rate. */
export interface QuoteNames extends LowestNames {
  /**
   * The count of the offers better than the rate, in words: "`lower`" where the best is the
   * lowest, "`higher`" where it is the highest, both (each with its measures) where they differ.
   */
  betterCount: string;
}

function quoteDataSchema(names: QuoteNames) {
  const offer = offerSchema(names);
  const count = (what: string) => z.int().nonnegative().describe(what);
  return z.strictObject({
    measure: z.string().describe(`The measure the rate is placed in: ${names.measures}.`),
    label: z.string().describe('The measure’s name, as the explorer’s pages write it.'),
    description: z.string().describe('What one rate of the measure is, in words (“1-year fixed mortgage rate”).'),
    rate: z.number().describe('The rate checked, in percent a year, as the request gave it.'),
    count: count(
      'How many offers open to anyone the measure has in the newest snapshot, of every lender: what the rate is placed among. ' +
        'An offer counts once, at its rate; a loan’s range at where it starts, as /lowest ranks it.',
    ),
    lower: count('How many of those offers have a rate below `rate`.'),
    equal: count('How many have a rate equal to `rate`.'),
    higher: count('How many have a rate above `rate`.'),
    percentile: z
      .number()
      .min(0)
      .max(100)
      .nullable()
      .describe(
        `The share of those offers that are no better than \`rate\` (equal to it or worse), in percent rounded to one decimal place: ` +
          `100 × (count − better) / count, where better is ${names.betterCount}, the offers better than \`rate\` as the ${names.best} rate is best. ` +
          '100 means no open offer beats the rate; 0 means every one does. Null when the measure has no open offer.',
      ),
    lowest: z
      .number()
      .nullable()
      .describe(
        `The ${names.best} rate open to anyone of the measure (the best of those offers; the field keeps the name \`lowest\` as /lowest does), ` +
          'what /lowest answers for it. Null when the measure has no open offer.',
      ),
    median: z
      .number()
      .nullable()
      .describe(
        'The median rate of those offers (the mean of the two middle ones when their number is even, to three decimal places). Null when there are none.',
      ),
    lowestOffers: z
      .array(offer)
      .describe(
        `The offers open to anyone that make \`lowest\`, as /lowest names them (several when they tie; tied on rate, ${names.tieRule}); empty when there are none.`,
      ),
    lenderOffers: z
      .array(
        offer.extend({
          open: z
            .boolean()
            .describe('Whether the offer is open to anyone, and so one of the offers the rate is placed among.'),
          for: z
            .string()
            .optional()
            .describe('Whom a restricted offer is for, or what it is (“first-home buyers”); absent for an open offer.'),
        }),
      )
      .optional()
      .describe(
        `Given a ${names.entityKind} (\`${names.entityId}\`): its own advertised offers of the measure, open and restricted, ${names.best} first; ` +
          `empty when it advertises none. Absent without a ${names.entityKind}.`,
      ),
  });
}

/**
 * The whole answer: the envelope of the other data answers, its `data` one object, the quote;
 * published open, as it may gain fields (/docs/stability#where-new-fields-may-appear).
 */
export const quoteSchema = (names: QuoteNames) =>
  openToNewFields(
    z.strictObject({
      type: z.literal(names.type),
      data: quoteDataSchema(names),
      lastUpdated: IsoDateTime,
      termsOfUse: z.string(),
      timestamp: IsoDateTime,
    }),
  );
