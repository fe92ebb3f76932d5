/**
 * The markup every source page shares: several sections, each with its own rate table (the same id
 * repeats), a header row that says what each column is, then rows: one whose first cell names an
 * institution starts it, following rows with an empty first cell continue it.
 *
 * The reader refuses, naming the rule and the evidence, what it cannot read with certainty: a
 * page that is not the one asked for (its title), a block or challenge page, a table whose headers
 * it cannot place against the page's declared columns (page-layout.ts), a row that starts an
 * institution with no usable name. It reads in time linear in the page: top-level rate tables
 * only, each row's own cells, and a bound on how deep the markup may nest.
 */
import * as cheerio from 'cheerio';
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { cellText, entityName } from './cells.ts';
import { foldHeader, type SourcePage } from './page-layout.ts';
import { institutionName } from './page-spellings.ts';

/** A page the collector will not read, with the rule it breaks and what it found. */
export class PageRefusal extends Error {
  override name = 'PageRefusal';
  constructor(
    readonly rule: string,
    readonly evidence: string,
  ) {
    super(`${rule}: ${evidence}`);
  }
}

/** Far above any real page (a few hundred rows, markup a few dozen levels deep). */
export const PAGE_LIMITS = { rows: 5_000, depth: 256 } as const;

/** Words of a block or challenge page, in its title or heading. */
const CHALLENGE =
  /just a moment|attention required|access denied|are you (?:a )?human|captcha|verify (?:that )?you are|checking your browser|request (?:was )?blocked|too many requests|forbidden/;
/** Markup of the usual challenge pages. */
const CHALLENGE_MARKUP = '#challenge-form, #cf-challenge-running, .cf-browser-verification, .g-recaptcha, #px-captcha';

const RATE_TABLES = 'table.interest_financial_datatable, table#interest_financial_datatable';

export interface SourceRow<K extends string = string> {
  /** The institution or issuer this row belongs to: the page's label, cleaned, as the history names it (page-spellings.ts). */
  entity: string;
  /** The text of the row's cell in a column (see cellText); '' where the row has none. */
  text(column: K): string;
  /** The text of a short follow-on line (the mortgage 18-month row), when the row is one. */
  followOn?: string;
  table: number;
}

export interface SourceTables<K extends string = string> {
  tableCount: number;
  rows: SourceRow<K>[];
}

/** Title words fold like headers, with `-` and `|` as spaces ("home-loans | rates" reads as "home loans rates"). */
const foldTitle = (text: string) => foldHeader(text.replace(/[-_|–—]/g, ' '));

/** Refuses a page that is not the one asked for, or that a block or challenge stands in for. */
function checkPage($: CheerioAPI, page: SourcePage): void {
  const said = [$('title').first().text(), $('h1').first().text()].map(foldTitle);
  if (said.some((text) => CHALLENGE.test(text)) || $(CHALLENGE_MARKUP).length > 0) {
    throw new PageRefusal('a block or challenge page, not the rates page', `title "${said[0]}", heading "${said[1]}"`);
  }
  if (!said.some((text) => page.title.test(text))) {
    throw new PageRefusal(
      'not the page asked for',
      `title "${said[0]}", heading "${said[1]}"; expected either to match ${page.title}`,
    );
  }
}

/** The deepest nesting of the markup, walked without recursion. */
function depthOf(root: AnyNode): number {
  let deepest = 0;
  const stack: [AnyNode, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if ('children' in node) for (const child of node.children) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** A row's cells by column index, a cell spanning columns counted in each. */
function cellsByColumn($: CheerioAPI, row: Element, tag: 'td' | 'th' | 'td, th'): Cheerio<Element>[] {
  const cells: Cheerio<Element>[] = [];
  for (const cell of $(row).children(tag).toArray()) {
    const span = Math.min(Math.max(Number($(cell).attr('colspan')) || 1, 1), 32);
    for (let i = 0; i < span; i++) cells.push($(cell));
  }
  return cells;
}

/**
 * Each header cell's column, by what it says. Refused: a header no column recognises, one that
 * several could be, a column found twice or a required column missing; the message prints the
 * headers found and the columns expected.
 */
export function mapHeaders<K extends string>(headers: readonly string[], page: SourcePage<K>, table: number): K[] {
  const expected = page.columns.map((c) => `${c.label}${c.optional ? ' (optional)' : ''}`).join(', ');
  const found = headers.map((h) => `"${h}"`).join(' | ');
  const refuse = (what: string) =>
    new PageRefusal(
      'table headers do not match',
      `table ${table + 1}: ${what}; headers found: ${found}; expected: ${expected}`,
    );
  const keys = headers.map((header) => {
    const folded = foldHeader(header);
    const matching = page.columns.filter((c) => c.header.test(folded));
    if (matching.length === 0) throw refuse(`no column is known by "${header}"`);
    if (matching.length > 1) throw refuse(`"${header}" could be ${matching.map((c) => c.label).join(' or ')}`);
    return matching[0]!.key;
  });
  for (const column of page.columns) {
    const count = keys.filter((k) => k === column.key).length;
    if (count > 1) throw refuse(`${column.label} appears ${count} times`);
    if (count === 0 && !column.optional) throw refuse(`no ${column.label} column`);
  }
  return keys;
}

/** A table's header texts: its `thead` row, or else a first row made of `th` cells. */
function headerTexts($: CheerioAPI, table: Element): string[] | undefined {
  const head = $(table).children('thead').children('tr').first();
  const first = $(table).children('tbody').children('tr').add($(table).children('tr')).first();
  const row = head.length > 0 ? head : first.children('td').length === 0 ? first : undefined;
  if (!row || row.length === 0 || row.children('th, td').length === 0) return undefined;
  return cellsByColumn($, row[0]!, 'td, th').map(cellText);
}

export function readRateTables<K extends string>(html: string, page: SourcePage<K>): SourceTables<K> {
  const $ = cheerio.load(html);
  checkPage($, page);
  const deepest = depthOf($.root()[0]!);
  if (deepest > PAGE_LIMITS.depth) {
    throw new PageRefusal('markup nested too deep', `${deepest} levels, at most ${PAGE_LIMITS.depth}`);
  }
  const tables = $(RATE_TABLES).toArray();
  const nested = tables.filter((table) => $(table).parents('table').length > 0);
  if (nested.length > 0) throw new PageRefusal('a rate table inside a table', `${nested.length} nested rate table(s)`);

  const rows: SourceRow<K>[] = [];
  tables.forEach((table, t) => {
    const headers = headerTexts($, table);
    if (!headers) throw new PageRefusal('table headers do not match', `table ${t + 1} has no header row`);
    const keys = mapHeaders(headers, page, t);
    const first = keys[0]!;
    let current = '';
    const bodyRows = $(table).children('tbody').children('tr').add($(table).children('tr')).toArray();
    for (const tr of bodyRows) {
      const row = $(tr);
      const cells = cellsByColumn($, tr, 'td');
      if (cells.length === 0) continue; // a header row repeated in the body
      if (rows.length >= PAGE_LIMITS.rows) {
        throw new PageRefusal('too many rows', `more than ${PAGE_LIMITS.rows} rate rows`);
      }
      const special = row.children('td.special-line');
      const followOn = special.length > 0 ? cellText(special.first()) : undefined;
      // A short follow-on row (the mortgage 18-month line) repeats the product in its first
      // cells, so only a full row, or one marked primary_row, can name a new institution.
      const starts = row.hasClass('primary_row') || (followOn === undefined && cellText(cells[0]!) !== '');
      if (starts) {
        const name = institutionName(entityName(cells[0]));
        if (!name) {
          throw new PageRefusal(
            'a row starts an institution with no usable name',
            `table ${t + 1}, row "${cells.map(cellText).join(' | ')}"`,
          );
        }
        current = name;
      }
      if (!current) continue; // rows before any institution carry nothing we can attribute
      const texts = new Map<K, string>();
      keys.forEach((key, i) => {
        if (key !== first && cells[i] && !(followOn !== undefined && cells[i]!.is(special)))
          texts.set(key, cellText(cells[i]!));
      });
      rows.push({ entity: current, text: (column) => texts.get(column) ?? '', followOn, table: t });
    }
  });
  return { tableCount: tables.length, rows };
}

/** Consecutive rows of one institution in one table: what each page parser turns into one entity. */
export interface EntityRows<K extends string = string> {
  name: string;
  rows: SourceRow<K>[];
}

export function entityRuns<K extends string>(rows: readonly SourceRow<K>[]): EntityRows<K>[] {
  const runs: EntityRows<K>[] = [];
  for (const row of rows) {
    const last = runs.at(-1);
    if (last && last.name === row.entity && last.rows[0]!.table === row.table) last.rows.push(row);
    else runs.push({ name: row.entity, rows: [row] });
  }
  return runs;
}
