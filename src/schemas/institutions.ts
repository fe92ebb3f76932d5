/**
 * The answer of `GET /api/v1/institutions`: every institution and issuer the history of any
 * dataset has listed, once per lender (its other ids and names inside, as `aliases`: earlier
 * labels, and the issuer id of a lender that also issues cards), with the
 * datasets it appears in, when it was first and last listed, its website, whether it is a
 * registered bank, and the eligibility rules that set all its offers apart.
 */
import { z } from 'zod';
import { CleanText, SnapshotDate } from './common.ts';
import { envelopeSchema } from './envelopes.ts';
import { Website } from './links.ts';

export const Institution = z.strictObject({
  id: z
    .string()
    .regex(/^(?:institution|issuer):/, 'must begin with "institution:" or "issuer:"')
    .describe(
      'The id the datasets give it: `institution:<slug>` for a lender, `issuer:<slug>` for a card issuer (/docs/concepts#ids). ' +
        'A lender that also issues cards is one entry, under its `institution:` id; its `issuer:` id is among its `aliases`.',
    ),
  name: CleanText.describe('The name it was last listed under: its newest name.'),
  website: Website.nullable().describe(
    'Its website as the source page links to it from its name, tracking parameters removed; `null` when the page ' +
      'links its name only to the source site’s own directory, or not at all. The newest link any page gave is kept.',
  ),
  lenderType: z
    .enum(['bank', 'non-bank'])
    .describe('`bank` when it is a registered bank (the rates explorer’s table of banks), else `non-bank`.'),
  datasets: z
    .array(z.string())
    .min(1)
    .describe('The slugs of the datasets whose history lists it, in the order of the API’s datasets.'),
  aliases: z
    .array(
      z.strictObject({
        id: z
          .string()
          .regex(/^(?:institution|issuer):/, 'must begin with "institution:" or "issuer:"')
          .describe(
            'The id the history lists it under by this name; the datasets answer it for the snapshots that list it.',
          ),
        name: CleanText.describe('The name it was listed under.'),
        datasets: z
          .array(z.string())
          .min(1)
          .describe('The slugs of the datasets whose history lists this id, in the order of the API’s datasets.'),
        firstSeen: SnapshotDate.describe('The date of the first snapshot, in any dataset, that lists it by this id.'),
        lastSeen: SnapshotDate.describe('The date of the last snapshot, in any dataset, that lists it by this id.'),
      }),
    )
    .describe(
      'Its other ids and names, oldest first: the same lender, listed by the source under another label ' +
        '("Nelson", "Nelson Bldg Socy" for Nelson Bldg Society), which the collector’s alias table joins ' +
        '(/docs/collection#the-pages-spellings-and-the-historys), and, for a lender that also issues cards, its ' +
        'issuer id (`issuer:anz` in the entry `institution:anz`), which the credit card dataset answers. Never an ' +
        'entry of its own. Empty: it was only ever listed as `id`.',
    ),
  firstSeen: SnapshotDate.describe('The date of the first snapshot, in any dataset, that lists it.'),
  lastSeen: SnapshotDate.describe(
    'The date of the last snapshot, in any dataset, that lists it: the newest snapshot’s date while it is still listed.',
  ),
  restrictions: z
    .array(
      z.strictObject({
        key: z.string().describe('The rule’s key (/docs/concepts#best-rates-and-restricted-offers).'),
        label: z.string().describe('Whom its offers are for, or what they are.'),
      }),
    )
    .describe(
      'The eligibility rules that match its name, among those its datasets apply: every offer it lists is then restricted. ' +
        'Rules matched on a product’s name are not listed here (they restrict single offers). Empty: none.',
    ),
});
export type Institution = z.infer<typeof Institution>;

export const INSTITUTIONS_TYPE = 'Institutions';

/** `{ type, data, lastUpdated, termsOfUse, timestamp }`, `lastUpdated` being the newest collection of any dataset. */
export const InstitutionsResponse = envelopeSchema(INSTITUTIONS_TYPE, Institution);
