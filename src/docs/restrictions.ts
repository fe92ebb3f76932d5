/** The explorer's restricted-offer rules as the docs list them (`{{restrictionRules}}`). */
import type { DatasetSlug } from '../datasets.ts';
import { datasetsOfRule } from '../explorer/definitions.ts';
import { RESTRICTIONS } from '../explorer/restrictions.ts';

/** The rules as a Markdown table, for the docs (`{{restrictionRules}}`). */
export function restrictionsMarkdown(titles: Record<DatasetSlug, string>): string {
  const field = { entity: 'lender or issuer', product: 'product or card name' } as const;
  return [
    '| restricted to | matched on | datasets | caught in the history | why |',
    '| --- | --- | --- | --- | --- |',
    ...RESTRICTIONS.map(
      (r) =>
        `| ${r.label} | ${field[r.field]} | ${datasetsOfRule(r)
          .map((d) => titles[d].toLowerCase())
          .join(
            ', ',
          )} | ${r.catches.map((c) => `“${c.replace(/\|/g, '\\|')}”`).join(', ')} | ${r.why}${'unclear' in r && r.unclear ? ` Unclear: ${r.unclear}` : ''} |`,
    ),
  ].join('\n');
}
