/**
 * The links file beside a dataset's snapshots (`snapshots/<dataset>/links.json`): each lender's
 * website as the source page links to it from the lender's name, tracking parameters removed.
 * It is kept apart from the snapshots on purpose: no rate object carries a link, and a link that
 * changes is not a rate that changes, so it never writes a snapshot.
 */
import { z } from 'zod';

/** An address a name cell links to, as kept: http or https, nothing else. */
export const Website = z
  .url({ protocol: /^https?$/, hostname: z.regexes.domain })
  .max(2_000)
  .refine((url) => new URL(url).username === '' && new URL(url).password === '', 'must not carry credentials');

export const LenderLinks = z.strictObject({
  websites: z
    .record(z.string().regex(/^(?:institution|issuer):/), Website)
    .describe(
      'Per entity id, the website its name links to on the newest page that linked it anywhere but the source site.',
    ),
});
export type LenderLinks = z.infer<typeof LenderLinks>;
