/**
 * The markup every source page shares: several sections, each with its own rate table (the same id
 * repeats), a header row that says what each column is, then rows: one whose first cell names an
 * institution starts it, following rows with an empty first cell continue it.
 *
 * The reader refuses, naming the rule and the evidence, what it cannot read with certainty: a
 * page that is not the one asked for, or a block or challenge page (page-identity.ts), a table
 * whose headers it cannot place against the page's declared columns (page-layout.ts), a row that
 * starts an institution with no usable name, a row that does not line up with its header, a value
 * spanning columns, a column reading what another column holds, an 18-month line among other
 * values, one lender starting two runs of rows in a table, a cell too long to be one. Rows are
 * read by their shape, as a browser lays them out (grid): a name cell starts an institution
 * whatever the row's class, a cell spanning rows is read in each, a header row anywhere is a
 * header. It reads in time linear in the page: top-level rate tables only, each cell walked once
 * however many rows it spans, its text never past its bound, and a bound on how deep the markup
 * may nest.
 */
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { quote } from '../lib/clean-text.ts';
import { cellHasContent, entityName, MAX_CELL_CHARS, nameCellLink, readCellText } from './cells.ts';
import { checkPage } from './page-identity.ts';
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

/** Far above any real page (a few hundred rows, markup a few dozen levels deep, tables of at most 9 columns). */
export const PAGE_LIMITS = { rows: 5_000, depth: 256, colspan: 100 } as const;

const RATE_TABLES = 'table.interest_financial_datatable, table#interest_financial_datatable';

/**
 * The short follow-on line the mortgage page writes under a product for its 18-month rate: a row
 * with a `td.special-line`, of at most this many cells when it does not span the table.
 */
export const FOLLOW_ON_CELLS = 3;

export interface SourceRow<K extends string = string> {
  /** The institution or issuer this row belongs to: the page's label, cleaned, as the history names it (page-spellings.ts). */
  entity: string;
  /** The text of the row's cell in a column (see cellText); '' where the row has none. */
  text(column: K): string;
  /** The text of a short follow-on line (the mortgage 18-month row), when the row is one. */
  followOn?: string;
  table: number;
  /** The row as a message names it: its table and its cells' texts, never its position among rows. */
  quoted: string;
}

export interface SourceTables<K extends string = string> {
  tableCount: number;
  rows: SourceRow<K>[];
  /** Each link of a cell naming an institution, in page order, with the name it names. */
  links: NameLink[];
}

/** A name cell's link as the page wrote it (collect/links.ts reads a website from it). */
export interface NameLink {
  entity: string;
  href: string;
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

/**
 * Each header cell's column, by what it says. Refused: a header no column recognises, one that
 * several could be, a column found twice or a required column missing; the message prints the
 * headers found and the columns expected.
 */
export function mapHeaders<K extends string>(headers: readonly string[], page: SourcePage<K>, table: number): K[] {
  const expected = page.columns.map((c) => `${c.label}${c.optional ? ' (optional)' : ''}`).join(', ');
  const found = headers.map(quote).join(' | ');
  const refuse = (what: string) =>
    new PageRefusal(
      'table headers do not match',
      `table ${table + 1}: ${what}; headers found: ${found}; expected: ${expected}`,
    );
  const keys = headers.map((header) => {
    const folded = foldHeader(header);
    const matching = page.columns.filter((c) => c.header.test(folded));
    if (matching.length === 0) throw refuse(`no column is known by ${quote(header)}`);
    if (matching.length > 1) throw refuse(`${quote(header)} could be ${matching.map((c) => c.label).join(' or ')}`);
    return matching[0]!.key;
  });
  for (const column of page.columns) {
    const count = keys.filter((k) => k === column.key).length;
    if (count > 1) throw refuse(`${column.label} appears ${count} times`);
    if (count === 0 && !column.optional) throw refuse(`no ${column.label} column`);
  }
  return keys;
}

/** One column of a row: the cell that covers it, and whether that is a copy of a cell spanning columns to its left. */
interface Slot {
  cell: Element;
  spanned: boolean;
}

/** A whole number attribute, within bounds; `fallback` when absent or not a number. */
function spanOf(value: string | undefined, fallback: number, max: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isNaN(n) || n < 1 ? fallback : Math.min(n, max);
}

/**
 * The rows of a table as a grid, column by column, as a browser lays them out: a cell spanning
 * columns covers each (its copies marked `spanned`, so its text is read once), and a cell spanning
 * rows is expanded into the rows below it (`rowspan="0"`: to the table's end). A column nothing
 * covers is a hole (undefined), which the width check refuses.
 */
function grid(rows: readonly Element[]): (Slot | undefined)[][] {
  let carried: ({ cell: Element; rows: number } | undefined)[] = [];
  return rows.map((tr, r) => {
    const slots: (Slot | undefined)[] = [];
    const below: typeof carried = [];
    let column = 0;
    const takeCarried = () => {
      while (carried[column]) slots[column] = { cell: carried[column++]!.cell, spanned: false };
    };
    for (const cell of tr.children) {
      if (cell.type !== 'tag' || (cell.name !== 'td' && cell.name !== 'th')) continue;
      takeCarried();
      const across = spanOf(cell.attribs.colspan, 1, PAGE_LIMITS.colspan);
      const left = rows.length - r;
      const down = cell.attribs.rowspan?.trim() === '0' ? left : spanOf(cell.attribs.rowspan, 1, left);
      for (let k = 0; k < across; k++) {
        slots[column + k] = { cell, spanned: k > 0 };
        if (down > 1) below[column + k] = { cell, rows: down - 1 };
      }
      column += across;
    }
    carried.forEach((c, i) => {
      if (c && !slots[i]) slots[i] = { cell: c.cell, spanned: false };
    });
    carried = carried.map((c) => (c && c.rows > 1 ? { cell: c.cell, rows: c.rows - 1 } : undefined));
    below.forEach((c, i) => {
      carried[i] = c;
    });
    return slots;
  });
}

/**
 * The text of table `t`'s cells, each read once however many columns or rows it spans, and never
 * past MAX_CELL_CHARS: a longer cell refuses its table.
 */
function textReader(t: number): (cell: Element) => string {
  const texts = new Map<Element, string>();
  return (cell) => {
    let known = texts.get(cell);
    if (known === undefined) {
      const read = readCellText(cell);
      if (!read.whole) {
        throw new PageRefusal(
          'a cell too long to read',
          `table ${t + 1}: a cell of more than ${MAX_CELL_CHARS.toLocaleString('en')} characters, starting ${quote(read.text)}`,
        );
      }
      texts.set(cell, (known = read.text));
    }
    return known;
  };
}

/** A table's header row: its `thead` row, or else a first row made of `th` cells. */
function headerRowOf($: CheerioAPI, table: Element): Element | undefined {
  const head = $(table).children('thead').children('tr').first();
  if (head.length > 0) return head[0];
  const first = $(table).children('tbody').children('tr').add($(table).children('tr')).first();
  return first.length > 0 && first.children('td').length === 0 && first.children('th').length > 0
    ? first[0]
    : undefined;
}

/** The texts of a header row, a header spanning columns named in each. */
const headerTexts = (slots: readonly (Slot | undefined)[], text: (cell: Element) => string) =>
  slots.map((slot) => (slot ? text(slot.cell) : ''));

export function readRateTables<K extends string>(html: string, page: SourcePage<K>): SourceTables<K> {
  const $ = cheerio.load(html);
  const notThePage = checkPage($, page, mapHeaders);
  if (notThePage) throw new PageRefusal(notThePage.rule, notThePage.evidence);
  const deepest = depthOf($.root()[0]!);
  if (deepest > PAGE_LIMITS.depth) {
    throw new PageRefusal('markup nested too deep', `${deepest} levels, at most ${PAGE_LIMITS.depth}`);
  }
  const tables = $(RATE_TABLES).toArray();
  const nested = tables.filter((table) => $(table).parents('table').length > 0);
  if (nested.length > 0) throw new PageRefusal('a rate table inside a table', `${nested.length} nested rate table(s)`);

  const rows: SourceRow<K>[] = [];
  const links: NameLink[] = [];
  let rowCount = 0;
  // A cell spanning many rows is walked once, not once per row it covers: work stays linear in the page.
  const once = <T>(read: (cell: Element) => T) => {
    const known = new Map<Element, T>();
    return (cell: Element): T => {
      if (!known.has(cell)) known.set(cell, read(cell));
      return known.get(cell)!;
    };
  };
  const nameOf = once((cell) => institutionName(entityName(cell)));
  const hasContent = once(cellHasContent);
  const linkOf = once(nameCellLink);
  tables.forEach((table, t) => {
    const text = textReader(t);
    const header = headerRowOf($, table);
    if (!header) throw new PageRefusal('table headers do not match', `table ${t + 1} has no header row`);
    const body = $(table)
      .children('tbody')
      .children('tr')
      .add($(table).children('tr'))
      .toArray()
      .filter((tr) => tr !== header);
    rowCount += body.length;
    if (rowCount > PAGE_LIMITS.rows) throw new PageRefusal('too many rows', `more than ${PAGE_LIMITS.rows} rate rows`);
    let keys = mapHeaders(headerTexts(grid([header])[0]!, text), page, t);
    const [first] = page.columns;
    let current = '';
    grid(body).forEach((slots, r) => {
      const tr = body[r]!;
      const cells = [...new Set(slots.flatMap((s) => (s ? [s.cell] : [])))];
      const where = () => `table ${t + 1}, row ${r + 1} (${quote(cells.map(text).join(' | '))})`;
      // The lender's column is where its header says, like every other column.
      const nameSlot = slots[keys.indexOf(first!.key)];
      // A header row anywhere in the table, in <th> or <td> cells, is a header, never a lender.
      const lead = nameSlot ? foldHeader(text(nameSlot.cell)) : '';
      if ($(tr).children('th').length > 0 || first!.header.test(lead)) {
        keys = mapHeaders(headerTexts(slots, text), page, t);
        return;
      }
      if (cells.every((cell) => !hasContent(cell))) return; // a spacer row: nothing to misread

      const special = cells.find((cell) => cell.name === 'td' && $(cell).hasClass('special-line'));
      const followOn = special ? text(special) : undefined;
      const width = slots.length;
      const holes = slots.filter((s) => !s).length;
      const shortFollowOn = special !== undefined && cells.length <= FOLLOW_ON_CELLS;
      if (special) {
        // A follow-on line among other values: which product and term it is cannot be said.
        const other = slots.find(
          (s, i) => s && s.cell !== special && keys[i] !== first!.key && keys[i] !== page.item && text(s.cell) !== '',
        );
        if (other)
          throw new PageRefusal(
            'a follow-on line inside a row of values',
            `${where()}: ${quote(followOn!)} shares its row with ${quote(text(other.cell))}`,
          );
      }
      if ((width !== keys.length || holes > 0) && !shortFollowOn) {
        throw new PageRefusal(
          'a row does not line up with its header',
          `${where()}: ${width - holes} column(s) where the header has ${keys.length}`,
        );
      }
      const spanning = slots.find((s) => s?.spanned && s.cell !== special && text(s.cell) !== '');
      if (spanning) {
        throw new PageRefusal(
          'a value spans several columns',
          `${where()}: ${quote(text(spanning.cell))} covers more than one column`,
        );
      }

      // A row starts an institution when its name cell names one, whatever its class. The short
      // follow-on line repeats the product in its first cells, so it never names one.
      if (!special) {
        const nameCell = nameSlot?.cell;
        const name = nameCell ? nameOf(nameCell) : '';
        const href = nameCell ? linkOf(nameCell) : undefined;
        if (name && href) links.push({ entity: name, href });
        if (name) current = name;
        else if ($(tr).hasClass('primary_row') || (nameCell !== undefined && hasContent(nameCell))) {
          throw new PageRefusal('a row starts an institution with no usable name', where());
        }
      }
      if (!current)
        throw new PageRefusal('a row belongs to no institution', `${where()}: no institution is named above it`);

      // A follow-on line repeats its product in the product column: that names the product it belongs to.
      const values = new Map<K, string>();
      keys.forEach((key, i) => {
        const slot = slots[i];
        if (key === first!.key || !slot || slot.spanned || slot.cell === special) return;
        if (!special || key === page.item) values.set(key, text(slot.cell));
      });
      for (const column of page.columns) {
        const value = values.get(column.key);
        const other = value ? column.never?.find((never) => never.text.test(value)) : undefined;
        if (other) {
          throw new PageRefusal(
            'columns traded places',
            `${where()}: the ${column.label} column reads ${quote(value!)}, ${other.reads}`,
          );
        }
      }
      const quoted = `table ${t + 1}, the row ${quote(cells.map(text).join(' | '))}`;
      rows.push({ entity: current, text: (column) => values.get(column) ?? '', followOn, table: t, quoted });
    });
  });
  return { tableCount: tables.length, rows, links };
}

/** Consecutive rows of one institution in one table: what each page parser turns into one entity. */
export interface EntityRows<K extends string = string> {
  name: string;
  rows: SourceRow<K>[];
}

/**
 * The runs of rows, one per institution and table. A label that starts a second run within one
 * table (ANZ, ASB, then ANZ again) is refused: which rows are whose is then the page's order
 * alone, and three lenders a reader cannot tell apart look exactly like that.
 */
export function entityRuns<K extends string>(rows: readonly SourceRow<K>[]): EntityRows<K>[] {
  const runs: EntityRows<K>[] = [];
  const started = new Map<string, SourceRow<K>>();
  for (const row of rows) {
    const last = runs.at(-1);
    if (last && last.name === row.entity && last.rows[0]!.table === row.table) {
      last.rows.push(row);
      continue;
    }
    const key = `${row.table} ${row.entity}`;
    const earlier = started.get(key);
    if (earlier) {
      throw new PageRefusal(
        'one lender starts several runs of rows in one table',
        `${quote(row.entity)} starts rows at ${earlier.quoted} and again at ${row.quoted}`,
      );
    }
    started.set(key, row);
    runs.push({ name: row.entity, rows: [row] });
  }
  return runs;
}
