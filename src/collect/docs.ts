/**
 * The collection docs page's tables (content/docs/collection.md), made from the tables the
 * collector reads: the page layouts of the dataset table, the limits and guards, the alias and
 * spelling tables. A change to any of them changes the page.
 */
import { DATASETS } from '../datasets.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { QUOTE_MAX_CHARS, REASON_MAX_CHARS } from '../lib/clean-text.ts';
import { VALUE_BOUNDS } from '../schemas/rates.ts';
import { FOOTNOTE_MARKS, MAX_CELL_CHARS, ZERO_WORDS } from './cells.ts';
import { PRESCAN_BYTES } from './decode.ts';
import { MAX_PAGE_BYTES, MAX_REDIRECTS } from './fetch-page.ts';
import { DAYS_MOVE, FEE_MOVE } from './anchors.ts';
import { GUARD_LIMITS } from './guards.ts';
import { type Figure, HISTORY_MOVES, HISTORY_MOVES_UNTIL, WINDOWS, type Window } from './history-moves.ts';
import { NAME_LIMITS } from './names.ts';
import { HEADER_ABBREVIATIONS } from './page-layout.ts';
import { INSTITUTION_ALIASES, SPELLINGS } from './page-spellings.ts';
import { FOLLOW_ON_CELLS, PAGE_LIMITS } from './tables.ts';

const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
const code = (text: string) => `\`${text.replaceAll('|', '\\|')}\``;
const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;
/** A value's bounds in its unit: `0–40 %`, `$0–10,000`, `0–365 days`. */
const boundsInWords = (min: number, max: number, unit: '%' | '$' | 'days') => {
  const range = `${min.toLocaleString('en')}–${max.toLocaleString('en')}`;
  return unit === '$' ? `$${range}` : `${range} ${unit}`;
};

/** The largest of a figure over the windows. */
const largest = (key: 'fee' | 'days' | 'newIds') => Math.max(...Object.values(HISTORY_MOVES).map((w) => w[key].value));

/** The history's figures, one row per measure and a column per window: the figure, then where it is. */
function historyMovesTable(): string {
  const windows = Object.keys(WINDOWS) as Window[];
  const cell = (figure: Figure, show: (v: number) => string) =>
    figure.where === null ? `${show(figure.value)} (none)` : `${show(figure.value)}: ${code(figure.where)}`;
  const rows: [string, keyof (typeof HISTORY_MOVES)[Window], (v: number) => string][] = [
    ['largest rate move', 'rate', (v) => `${v} points`],
    ['largest fee move', 'fee', (v) => `$${v}`],
    ['largest interest-free period move', 'days', (v) => `${v} days`],
    ['smallest share of lenders kept', 'kept', percent],
    ['largest growth', 'growth', percent],
    ['largest share of new ids', 'newIds', percent],
  ];
  return table(
    ['in the history', ...windows.map((w) => WINDOWS[w].words)],
    rows.map(([label, key, show]) => [label, ...windows.map((w) => cell(HISTORY_MOVES[w][key], show))]),
  );
}

export function collectionSubstitutions(): Record<string, string> {
  return {
    maxRateMove: String(GUARD_LIMITS.maxRateMove),
    maxFeeMove: `$${GUARD_LIMITS.maxFeeMove}`,
    maxDaysMove: `${GUARD_LIMITS.maxDaysMove} days`,
    feeMoveChoice: `the history's largest real fee move, $${largest('fee')}, × ${FEE_MOVE.margin}; at least $${FEE_MOVE.floor}`,
    daysMoveChoice:
      largest('days') === 0
        ? `the history has no real move, so the ${DAYS_MOVE.floor}-day floor stands`
        : `the history's largest real move, ${largest('days')} days, × ${DAYS_MOVE.margin}; at least ${DAYS_MOVE.floor} days`,
    liftedRateMove: String(2 * GUARD_LIMITS.maxRateMove),
    liftedFeeMove: `$${2 * GUARD_LIMITS.maxFeeMove}`,
    renameShare: percent(GUARD_LIMITS.renameShare),
    historyNewIds: percent(largest('newIds')),
    historyMovesUntil: HISTORY_MOVES_UNTIL,
    historyMoves: historyMovesTable(),
    maxRedirects: String(MAX_REDIRECTS),
    prescanBytes: PRESCAN_BYTES.toLocaleString('en'),
    sourcePages: table(
      ['dataset', 'page', 'title or heading names it by', 'columns, each known by its header'],
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
        ['redirects', `at most ${MAX_REDIRECTS}, each to the source's own host and port`],
        ['rate rows', PAGE_LIMITS.rows.toLocaleString('en')],
        ['markup depth', `${PAGE_LIMITS.depth} levels`],
        [
          'a cell',
          `${MAX_CELL_CHARS.toLocaleString('en')} characters (a longer one refuses its table, read no further)`,
        ],
        [
          'a cell spanning columns',
          `${PAGE_LIMITS.colspan} columns at most, and only when empty (or the 18-month line)`,
        ],
        [
          'the 18-month line',
          `a row with a \`td.special-line\`, spanning the table or of at most ${FOLLOW_ON_CELLS} cells`,
        ],
        ['unreadable cells', `${percent(GUARD_LIMITS.maxUnreadableShare)} of a page's non-empty value cells`],
        ...Object.values(VALUE_BOUNDS).map(({ min, max, what, unit }) => [what, boundsInWords(min, max, unit)]),
        [
          'institutions kept',
          `at least ${percent(GUARD_LIMITS.minRatio)} of each anchor's (\`COLLECT_MIN_RATIO\`), by id and in number`,
        ],
        ['growth', `at most ${percent(GUARD_LIMITS.maxGrowth)} of each anchor's institutions or rates`],
        [
          'repeated rows',
          `at most ${percent(GUARD_LIMITS.maxRepeatedShare)} of items repeating a name within their institution (when the anchor had fewer)`,
        ],
        [
          'a rate’s move',
          `at most ${GUARD_LIMITS.maxRateMove} percentage points from the nearest rate its lender had for the term, plan or card rate in each anchor (\`COLLECT_MAX_RATE_MOVE\`; balance-transfer promotions excepted)`,
        ],
        [
          'an annual fee’s move',
          `at most $${GUARD_LIMITS.maxFeeMove} from the nearest fee its issuer had in each anchor ($${largest('fee')}, the history's largest, × ${FEE_MOVE.margin}; at least $${FEE_MOVE.floor})`,
        ],
        [
          'an interest-free period’s move',
          `at most ${GUARD_LIMITS.maxDaysMove} days from the nearest period its issuer had in each anchor (the history's largest, ${largest('days')} days, × ${DAYS_MOVE.margin}; at least ${DAYS_MOVE.floor})`,
        ],
        [
          'a rename',
          `more than ${percent(GUARD_LIMITS.renameShare)} of the product, plan and rate ids of the lenders kept new: every lender kept lists the very values it had, measure by measure`,
        ],
        [
          'a name, plan, condition or period',
          `at most ${NAME_LIMITS.maxTextChars} characters; no Latin letters mixed with Cyrillic or Greek ones, and no letter of any other script that looks like a Latin one (its Unicode confusable skeleton is Latin)`,
        ],
        [
          'the id a name makes',
          `1 to ${NAME_LIMITS.maxIdPartChars} characters of \`a–z\`, \`0–9\`, \`_\` and \`-\` (a name with no Latin letter or digit makes none)`,
        ],
        [
          'a reason stored or printed',
          `at most ${REASON_MAX_CHARS.toLocaleString('en')} characters, page text quoted in it at most ${QUOTE_MAX_CHARS}, no control, bidi or zero-width characters`,
        ],
      ],
    ),
    footnoteMarks: [...FOOTNOTE_MARKS].map(code).join(' '),
    zeroWords: (['money', 'days'] as const)
      .map(
        (kind) =>
          `${ZERO_WORDS[kind].map((w) => code(w)).join(', ')} in the ${kind === 'money' ? 'fee' : 'days'} column`,
      )
      .join('; '),
    takenAddresses: table(
      ['dataset', 'a lender’s slug may not be', 'which is the address of'],
      DATASETS.map((d) => [
        d.title,
        EXPLORER[d.slug].measures.map((m) => code(m.slug)).join(', '),
        `the comparison pages, \`/rates/${EXPLORER[d.slug].path}/<measure>\``,
      ]),
    ),
    headerAbbreviations: table(
      ['a header word', 'is read as'],
      Object.entries(HEADER_ABBREVIATIONS).map(([word, meaning]) => [code(word), code(meaning)]),
    ),
    tradedColumns: table(
      ['dataset', 'column', 'never reads', 'pattern'],
      DATASETS.flatMap((d) =>
        d.page.columns.flatMap((c) => (c.never ?? []).map((n) => [d.title, c.label, n.reads, code(String(n.text))])),
      ),
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
