/**
 * The collection docs page's tables (content/docs/collection.md), made from the tables the
 * collector reads: the page layouts of the dataset table, the limits and guards, the alias and
 * spelling tables. A change to any of them changes the page.
 */
import { DATASETS } from '../datasets.ts';
import { VALUE_BOUNDS } from '../schemas/rates.ts';
import { MAX_PAGE_BYTES } from './fetch-page.ts';
import { GUARD_LIMITS } from './guards.ts';
import { INSTITUTION_ALIASES, SPELLINGS } from './page-spellings.ts';
import { PAGE_LIMITS } from './tables.ts';

const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
const code = (text: string) => `\`${text.replaceAll('|', '\\|')}\``;
const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;

export function collectionSubstitutions(): Record<string, string> {
  return {
    sourcePages: table(
      ['dataset', 'page', 'title or heading must match', 'columns, each known by its header'],
      DATASETS.map((d) => [
        d.title,
        code(d.page.path),
        code(String(d.page.title)),
        d.page.columns.map((c) => `${c.label}${c.optional ? ' (optional)' : ''} ${code(String(c.header))}`).join('; '),
      ]),
    ),
    pageLimits: table(
      ['limit', 'value'],
      [
        ['page size', `${MAX_PAGE_BYTES / 1024 / 1024} MiB (a larger page is not read)`],
        ['rate rows', PAGE_LIMITS.rows.toLocaleString('en')],
        ['markup depth', `${PAGE_LIMITS.depth} levels`],
        ['unreadable cells', `${percent(GUARD_LIMITS.maxUnreadableShare)} of a page's non-empty value cells`],
        ['rates', `${VALUE_BOUNDS.rate.min}–${VALUE_BOUNDS.rate.max} %`],
        ['annual fees', `$${VALUE_BOUNDS.annualFeeNZD.min}–${VALUE_BOUNDS.annualFeeNZD.max.toLocaleString('en')}`],
        ['interest-free periods', `${VALUE_BOUNDS.interestFreeDays.min}–${VALUE_BOUNDS.interestFreeDays.max} days`],
        [
          'institutions kept',
          `at least ${percent(GUARD_LIMITS.minRatio)} of the newest snapshot's (\`COLLECT_MIN_RATIO\`), by id and in number`,
        ],
        ['growth', `at most ${percent(GUARD_LIMITS.maxGrowth)} of the newest snapshot's institutions or rates`],
        [
          'repeated rows',
          `at most ${percent(GUARD_LIMITS.maxRepeatedShare)} of items repeating a name within their institution (when the newest snapshot had fewer)`,
        ],
        [
          'a rate’s move in one run',
          `at most ${GUARD_LIMITS.maxRateMove} percentage points (balance-transfer promotions excepted)`,
        ],
      ],
    ),
    institutionAliases: table(
      ['the page says', 'the history’s name', 'evidence'],
      INSTITUTION_ALIASES.map((a) => [`"${a.label}"`, `"${a.name}"`, a.evidence]),
    ),
    pageSpellings: table(
      ['the page writes', 'the history writes', 'in', 'evidence'],
      SPELLINGS.map((s) => [
        `"${s.page}"`,
        `"${s.history}"`,
        s.field === 'plan' ? 'card names' : 'balance-transfer periods',
        s.evidence,
      ]),
    ),
  };
}
