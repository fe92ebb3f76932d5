/**
 * The answer of `GET /api/v1/<dataset>/lowest`: per measure (a mortgage term, a loan plan, a card
 * rate), the best rate open to anyone (the lowest of a rate paid, the highest of a rate earned: the
 * words come in `LowestNames.best`), the offers that make it, and the restricted offers better than
 * it with whom they are for (/docs/concepts#best-rates-and-restricted-offers). Offers are named as
 * the change log names values (src/changes/schema.ts): `institutionId` / `issuerId`, `productId` /
 * `planId`, and `rateId`, or `field` where the rates are a plan's own fields.
 */
import { z } from 'zod';
import { envelopeSchema } from './envelopes.ts';
import { CleanText, idWithPrefix } from './common.ts';
import { openToNewFields } from './open.ts';

/** How one dataset names what an offer belongs to, and the measures it has (for the descriptions). */
export interface LowestNames {
  /** The answer's `type`. */
  type: string;
  entityId: string;
  entityName: string;
  entityKind: string;
  entityPrefix: string;
  itemId: string;
  itemName: string;
  itemPrefix: string;
  /** `rateId` for rate objects with ids, else the item's fields that hold the rates. */
  value: { key: 'rateId' } | { key: 'field'; fields: readonly [string, ...string[]] };
  /** The measure keys, and what each is, in words ("`12` (1 year)"). */
  measures: string;
  /** How offers tied on rate are ordered, in words (the explorer's `tieRule`). */
  tieRule: string;
  /** The best rate in words, as the dataset declares it (src/explorer/best.ts bestWordOf): "lowest". */
  best: string;
  /** Where a better rate than the best stands, in words: "below" for a rate paid, "above" for a rate earned. */
  better: string;
}

/** One offer as /lowest names it (the break-even rates and the quote check name theirs the same way: src/schemas/break-even.ts, src/schemas/quote.ts). */
export function offerSchema(names: LowestNames) {
  const { value } = names;
  return z.strictObject({
    [names.entityId]: idWithPrefix(names.entityPrefix).describe(`The ${names.entityKind}’s id.`),
    [names.entityName]: CleanText.describe(`The ${names.entityKind}’s name.`),
    [names.itemId]: idWithPrefix(names.itemPrefix).describe(`The ${names.itemPrefix}’s id.`),
    [names.itemName]: CleanText.describe(`The ${names.itemPrefix}’s name.`),
    [value.key]:
      value.key === 'rateId'
        ? idWithPrefix('rate').describe('The rate’s id, as in the rates endpoints (a range: its start’s).')
        : z.enum(value.fields).describe(`The ${names.itemPrefix} field that holds the rate.`),
    rate: z.number().describe('The rate in percent a year; for a range, where it starts.'),
    rateText: z
      .string()
      .describe(
        'The rate as the explorer writes it: “4.49 %”, a range “8.99–17.75 %”, “from 10.95 %”, “up to 14.00 %”.',
      ),
    range: z
      .strictObject({
        from: z.number().nullable().describe('Where the range starts; null when the source gives only its end.'),
        to: z.number().nullable().describe('Where it ends, the most an approved borrower pays; null when open-ended.'),
      })
      .optional()
      .describe('A loan’s range of rates, when the offer is one (its “From” and “To” rates).'),
    label: z
      .string()
      .optional()
      .describe(
        'The offer’s name when it is several products at once: a grade ladder (“Credit Grade A–D”), one range ' +
          'from its lowest grade rate to its highest, whose product is the grade where it starts.',
      ),
    note: z.string().optional().describe('What sets the offer apart within its product: a grade, a condition.'),
    details: z
      .string()
      .optional()
      .describe(
        'What to weigh beside the rate: a card’s annual fee and interest-free days, a transfer’s period, a grade ladder’s rate per grade.',
      ),
  });
}

function measureSchema(names: LowestNames) {
  const offer = offerSchema(names);
  return z.strictObject({
    measure: z.string().describe(`What is compared: ${names.measures}.`),
    label: z.string().describe('The measure’s name, as the explorer’s pages write it.'),
    description: z.string().describe('What one rate of the measure is, in words (“1-year fixed mortgage rate”).'),
    rate: z.number().describe(`The ${names.best} rate open to anyone, in percent a year.`),
    fromRange: z.boolean().describe('Whether that rate is where a range starts (“from 8.99 %”).'),
    offers: z
      .array(offer)
      .describe(`Every offer open to anyone at that rate (several when they tie; tied on rate, ${names.tieRule}).`),
    restricted: z
      .array(
        offer.extend({
          for: z.string().describe('Whom the offer is for, or what it is (“first-home buyers”).'),
        }),
      )
      .describe(
        `Offers ${names.better} that rate that are not open to anyone, ${names.best} first, set apart with whom they are for; they never set \`rate\`.`,
      ),
  });
}

/**
 * The whole answer: the envelope of the list and detail answers, with a measure per item of `data`;
 * published open, as it may gain fields (/docs/stability#where-new-fields-may-appear).
 */
export const lowestSchema = (names: LowestNames) => openToNewFields(envelopeSchema(names.type, measureSchema(names)));
