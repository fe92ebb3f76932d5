/**
 * How real pages change, as a table of named mutations of a page model (page-model.ts). Each is a
 * small function that edits the model, and so what the page says (page-truth.ts reads the truth off
 * the model): a cell moved takes its statement with it, a header text traded takes the column's
 * meaning, a name relabelled says the new name, and what no reader may trust carries its reason
 * (`refuse`). A mutation marked `benign` writes the same statements differently: a page made of
 * those alone says what the newest snapshot says, and must be collected as it was.
 *
 * A mutation picks its targets with the generated numbers it is given (Picker: each call takes the
 * next, modulo the choices), so fast-check shrinks a failure towards the first choices, and towards
 * fewer mutations and fewer lenders.
 */
import fc from 'fast-check';
import type { PageLayoutKind } from '../fixtures/recorded-headers.ts';
import {
  type Cell,
  esc,
  type Framing,
  type Layout,
  type PageModel,
  type Role,
  type Row,
  type Table,
  type Unit,
  written,
} from './page-model.ts';
import { lookAlikesOf, SITE_NAMES } from './page-truth.ts';

/** Picks targets from the generated numbers: each call takes the next (0 once they run out). */
export class Picker {
  private next = 0;
  constructor(private readonly picks: readonly number[]) {}
  int(n: number): number {
    return n <= 1 ? 0 : (this.picks[this.next++] ?? 0) % n;
  }
  one<T>(list: readonly T[]): T | undefined {
    return list.length === 0 ? undefined : list[this.int(list.length)];
  }
}

export type Family =
  | 'cells'
  | 'columns'
  | 'rows'
  | 'sections'
  | 'labels'
  | 'values'
  | 'body'
  | 'charset'
  | 'spans'
  | 'follow-on'
  | 'noise'
  | 'page';

export interface Mutation {
  name: string;
  family: Family;
  /** Says what the page said, written differently. */
  benign?: true;
  /** The layouts it applies to (all when absent). */
  layouts?: readonly PageLayoutKind[];
  /** Edit the page; false when it has nothing this applies to. */
  apply(page: PageModel, pick: Picker): boolean;
}

// ——— Where things are ———

interface RowAt {
  table: Table;
  row: Row;
  r: number;
}
const rowsOf = (page: PageModel): RowAt[] =>
  page.sections.flatMap((table) => table.rows.flatMap((row, r) => (row.kind === 'body' ? [{ table, row, r }] : [])));
const isLine = (row: Row) => row.cells.some((c) => c.says.is === 'follow-on');
/** A body row as wide as its header, cell for column: what column edits may touch. */
const square = ({ table, row }: RowAt) =>
  !isLine(row) && row.cells.length === table.header.length && row.cells.every((c) => c.span === 1);
const keyAt = (table: Table, i: number) => {
  const says = table.header[i]?.says;
  return says?.is === 'header' ? says.key : undefined;
};
const columnAt = (page: PageModel, table: Table, i: number) =>
  page.layout.columns.find((c) => c.key === keyAt(table, i));
const indexOf = (table: Table, key: string) =>
  table.header.findIndex((h) => h.says.is === 'header' && h.says.key === key);
/** The column of a table holding items' names: the product, or the card. */
const itemIndex = (page: PageModel, table: Table) =>
  table.header.findIndex((_, i) => ['product', 'card'].includes(columnAt(page, table, i)?.role ?? ''));

interface CellAt extends RowAt {
  cell: Cell;
  c: number;
}
const cellsOf = (page: PageModel, keep: (cell: Cell, at: RowAt, c: number) => boolean): CellAt[] =>
  rowsOf(page).flatMap((at) => at.row.cells.flatMap((cell, c) => (keep(cell, at, c) ? [{ ...at, cell, c }] : [])));
const valueCells = (page: PageModel, unit?: Unit) =>
  cellsOf(page, (cell) => cell.says.is === 'number' && (!unit || cell.says.unit === unit));
const nameCells = (page: PageModel) => cellsOf(page, (cell, _, c) => c === 0 && cell.says.is === 'name');

/** A lender's rows in a table: from a row naming it to before the next row naming a lender. */
interface Block {
  start: number;
  end: number;
}
function blocksOf(table: Table): Block[] {
  const starts = table.rows.flatMap((row, r) => (row.kind === 'body' && row.cells[0]?.says.is === 'name' ? [r] : []));
  return starts.map((start, i) => ({ start, end: starts[i + 1] ?? table.rows.length }));
}
/** The rows of each item within a block: a row naming an item starts one; lines, spacers and continuation rows join it. */
function groupsOf(page: PageModel, table: Table, block: Block): number[][] {
  const at = itemIndex(page, table);
  const groups: number[][] = [];
  for (let r = block.start; r < block.end; r++) {
    const row = table.rows[r]!;
    const starts =
      r === block.start ||
      (row.kind === 'body' && !isLine(row) && (page.layout.kind === 'card' || row.cells[at]?.says.is === 'text'));
    if (starts) groups.push([r]);
    else groups.at(-1)!.push(r);
  }
  return groups;
}

/** A list reordered by one pick: rotated by one or more places, or reversed. */
function reorder<T>(list: readonly T[], pick: Picker): T[] {
  const k = pick.int(list.length);
  return k === 0 ? [...list].reverse() : [...list.slice(k), ...list.slice(0, k)];
}

const emptyCell = (like?: Cell): Cell => ({
  tag: 'td',
  attrs: like ? { ...like.attrs } : {},
  before: '',
  shown: '',
  after: '',
  says: { is: 'empty' },
  span: 1,
});
const setEmpty = (cell: Cell, shown = '&nbsp;') =>
  Object.assign(cell, { before: '', shown, after: '', says: { is: 'empty' } });
/** A value cell showing `value` as the page writes it (or `shown`), and saying the value as written. */
const setNumber = (cell: Cell, value: number, unit: Unit, shown = written(value, unit)) =>
  Object.assign(cell, {
    shown,
    says: { is: 'number', value: Number(written(value, unit).replace(/[$,]/g, '')), unit },
  });
const setText = (cell: Cell, text: string, role: Role) =>
  Object.assign(cell, { before: '', shown: esc(text), after: '', says: { is: 'text', text, role } });
const round2 = (n: number) => Math.round(n * 100) / 100;

/** A name cell showing `label`, in the cell's own style: a link, or a logo whose `alt` names it. */
function nameShown(cell: Cell, label: string): string {
  if (cell.shown.includes('<img')) return cell.shown.replace(/alt="[^"]*"/, `alt="${esc(label)}"`);
  return cell.shown.replace(/title="[^"]*"/, `title="${esc(label)}"`).replace(/>[^<]*<\/a>/, `>${esc(label)}</a>`);
}
/** Every name cell of a lender renamed. */
function rename(page: PageModel, from: string, to: string): boolean {
  const cells = nameCells(page).filter(({ cell }) => cell.says.is === 'name' && cell.says.name === from);
  for (const { cell } of cells) Object.assign(cell, { shown: nameShown(cell, to), says: { is: 'name', name: to } });
  return cells.length > 0;
}
const lenderNames = (page: PageModel) => [
  ...new Set(nameCells(page).flatMap(({ cell }) => (cell.says.is === 'name' ? [cell.says.name] : []))),
];
/** A logo naming nobody: its `alt` and titles say `alt`. */
function logoOnly(cell: Cell, alt: string, why: string) {
  Object.assign(cell, {
    before: '',
    shown: `<a href="/go/logo" title="${esc(alt)}"><img src="/logo/campaign.png" alt="${esc(alt)}" title="${esc(alt)}"></a>`,
    after: '',
    says: { is: 'empty' },
    refuse: why,
  });
}

/** Scope of a value edit: one value, a row's, a column's in one table, or a lender's in one table. */
function valuesInScope(page: PageModel, pick: Picker, unit?: Unit): CellAt[] {
  const all = valueCells(page, unit);
  const one = pick.one(all);
  if (!one) return [];
  switch (pick.int(4)) {
    case 0:
      return [one];
    case 1:
      return all.filter((v) => v.row === one.row);
    case 2:
      return all.filter((v) => v.table === one.table && v.c === one.c);
    default: {
      const block = blocksOf(one.table).find((b) => one.r >= b.start && one.r < b.end);
      return all.filter((v) => v.table === one.table && block !== undefined && v.r >= block.start && v.r < block.end);
    }
  }
}

/** Footnote marks as pages write them: superscript digits (NFKC folds them into digits), `<sup>`, asterisks, daggers. */
const MARKS = ['¹', '²', '³', '<sup>1</sup>', '<sup>2</sup>', '<sup>*</sup>', '*', '**', '†', '‡', '#'];
/** A value's unit written after it, by kind. */
const UNITS: Record<Unit, string[]> = {
  rate: ['%', ' %', '% p.a.', ' p.a.', '%p.a.', ' % p.a.'],
  money: ['.00'],
  days: [' days'],
};
/** Slogans seen in logos' `title` (the records of the live page): no name of anyone. */
const SLOGANS = [
  'Invest in Heartland to invest in New Zealand',
  'Home Loans – Apply now or find out more',
  'click to contact us',
  ' - creating futures.',
];
/** Lenders' names in letters windows-1252 has and ASCII has not (’ is one of its 0x80–0x9F bytes). */
const ACCENTED = ['Société Générale', 'Crédit Agricole', 'Caisse d’Épargne', 'Banque Française'];
const LATIN_1_LABELS = ['windows-1252', 'iso-8859-1', 'latin1', 'cp1252'];
const FRAMINGS: Framing[] = ['length', 'close', 'promised'];
const CAPTCHA_FOOTER =
  '<footer id="footer"><form class="newsletter" action="/subscribe"><input name="email"><div class="g-recaptcha" data-sitekey="6Lc-newsletter"></div><button>Subscribe</button></form><p>This form is protected by reCAPTCHA.</p></footer>';

/** A lender's name spelled another way. */
function respelled(name: string, pick: Picker): string {
  const letters = [...name].flatMap((c, i) => (/\p{L}/u.test(c) ? [i] : []));
  const at = pick.one(letters) ?? 0;
  const ways = [
    () => name.toUpperCase(),
    () => name.replace(/\p{L}+/gu, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()),
    () => `${name} ${pick.one(['Bank', 'NZ', 'Limited'])}`,
    () => (letters.length > 2 ? name.slice(0, at) + name.slice(at + 1) : `${name}s`),
    () => name.slice(0, at + 1) + name.slice(at),
  ];
  const spelled = ways[pick.int(ways.length)]!().trim();
  return spelled === name ? `${name} Group` : spelled;
}

/** The item named by a row in the item column, and the rows of the same block naming the same (its 18-month lines). */
function sameItem(page: PageModel, table: Table, r: number): Cell[] {
  const at = itemIndex(page, table);
  const named = table.rows[r]?.cells[at]?.says;
  if (named?.is !== 'text') return [];
  const block = blocksOf(table).find((b) => r >= b.start && r < b.end) ?? { start: r, end: r + 1 };
  if (page.layout.kind === 'card') return [table.rows[r]!.cells[at]!];
  return table.rows.slice(block.start, block.end).flatMap((row) => {
    const cell = row.cells[at];
    return cell?.says.is === 'text' && cell.says.text === named.text ? [cell] : [];
  });
}

const textOf = (cell: Cell | undefined) => (cell?.says.is === 'text' ? cell.says.text : undefined);

/** The 18-month lines, each with the nearest row above it in its table that names its product (-1: none). */
function lines(page: PageModel) {
  return rowsOf(page).flatMap(({ table, row, r }) => {
    if (!isLine(row)) return [];
    const p = indexOf(table, 'product');
    const named = textOf(row.cells[p]);
    const main =
      named === undefined
        ? -1
        : table.rows.findLastIndex((other, m) => m < r && !isLine(other) && textOf(other.cells[p]) === named);
    return [{ table, row, r, main }];
  });
}

const moveRow = (table: Table, from: number, to: number) => {
  const [row] = table.rows.splice(from, 1);
  table.rows.splice(to, 0, row!);
};

export const MUTATIONS: readonly Mutation[] = [
  // ——— Cells ———
  {
    name: 'drop a value cell',
    family: 'cells',
    apply(page, pick) {
      const at = pick.one(rowsOf(page).filter(square));
      if (!at) return false;
      at.row.cells.splice(1 + pick.int(at.row.cells.length - 1), 1);
      return true;
    },
  },
  {
    name: 'add a value cell',
    family: 'cells',
    apply(page, pick) {
      const at = pick.one(valueCells(page));
      if (!at) return false;
      at.row.cells.splice(1 + pick.int(at.row.cells.length), 0, structuredClone(at.cell));
      return true;
    },
  },
  {
    name: 'trade two values in a row',
    family: 'cells',
    apply(page, pick) {
      const at = pick.one(rowsOf(page).filter(square));
      if (!at) return false;
      const units = at.row.cells.map((_, i) => columnAt(page, at.table, i)?.unit);
      const pairs = units.flatMap((u, i) => units.flatMap((v, j) => (u && i < j && u === v ? [[i, j] as const] : [])));
      const pair = pick.one(pairs);
      if (!pair) return false;
      const [i, j] = pair;
      [at.row.cells[i], at.row.cells[j]] = [at.row.cells[j]!, at.row.cells[i]!];
      return true;
    },
  },
  {
    name: 'empty a value',
    family: 'cells',
    apply(page, pick) {
      const at = pick.one(valueCells(page));
      if (!at) return false;
      setEmpty(at.cell, pick.one(['&nbsp;', '', '-', 'n/a']));
      return true;
    },
  },
  {
    name: 'fill an empty value cell',
    family: 'cells',
    apply(page, pick) {
      const at = pick.one(
        cellsOf(page, (cell, at, c) => cell.says.is === 'empty' && square(at) && !!columnAt(page, at.table, c)?.unit),
      );
      if (!at) return false;
      const unit = columnAt(page, at.table, at.c)!.unit!;
      const value = { rate: 3 + pick.int(2000) / 100, money: 10 * pick.int(50), days: 20 + pick.int(40) }[unit];
      setNumber(at.cell, value, unit);
      return true;
    },
  },

  // ——— Columns ———
  {
    name: 'move a column with its header',
    family: 'columns',
    benign: true,
    apply(page, pick) {
      const table = pick.one(page.sections);
      // The lender stays first, and the mortgage product second (its 18-month lines name it there).
      const first = page.layout.kind === 'mortgage' ? 2 : 1;
      if (!table || table.header.length - first < 2) return false;
      const from = first + pick.int(table.header.length - first);
      const to = first + pick.int(table.header.length - first);
      if (from === to) return false;
      const width = table.header.length;
      for (const cells of [
        table.header,
        ...table.rows.filter((row) => row.cells.length === width && !isLine(row)).map((row) => row.cells),
      ]) {
        const [cell] = cells.splice(from, 1);
        cells.splice(to, 0, cell!);
      }
      return true;
    },
  },
  {
    name: 'trade two header texts',
    family: 'columns',
    apply(page, pick) {
      const table = pick.one(page.sections);
      if (!table) return false;
      const columns = table.header.map((_, i) => columnAt(page, table, i));
      const kind = (i: number) => columns[i]?.unit ?? (columns[i]?.role ? 'text' : undefined);
      const pairs = columns.flatMap((_, i) =>
        columns.flatMap((__, j) => (i > 0 && i < j && kind(i) && kind(i) === kind(j) ? [[i, j] as const] : [])),
      );
      const pair = pick.one(pairs);
      if (!pair) return false;
      const [i, j] = pair;
      [table.header[i], table.header[j]] = [table.header[j]!, table.header[i]!];
      return true;
    },
  },
  {
    name: 'drop a column',
    family: 'columns',
    apply(page, pick) {
      const table = pick.one(page.sections);
      if (!table) return false;
      const values = table.header.flatMap((_, i) => (columnAt(page, table, i)?.unit ? [i] : []));
      const i = pick.one(values);
      if (i === undefined) return false;
      const width = table.header.length;
      for (const row of table.rows) if (row.cells.length === width && !isLine(row)) row.cells.splice(i, 1);
      table.header.splice(i, 1);
      return true;
    },
  },
  {
    name: 'repeat a column',
    family: 'columns',
    apply(page, pick) {
      const table = pick.one(page.sections);
      if (!table) return false;
      const i = pick.one(table.header.flatMap((_, i) => (columnAt(page, table, i)?.unit ? [i] : [])));
      if (i === undefined) return false;
      const width = table.header.length;
      for (const cells of [
        table.header,
        ...table.rows.filter((row) => row.cells.length === width && !isLine(row)).map((row) => row.cells),
      ])
        cells.splice(i + 1, 0, structuredClone(cells[i]!));
      return true;
    },
  },
  {
    name: 'header texts broken at every space',
    family: 'noise',
    benign: true,
    apply(page, pick) {
      const tables = pick.int(2) === 0 ? page.sections : [pick.one(page.sections)!].filter(Boolean);
      const brk = pick.one(['<br>', '<br/>', ' <br> ', '<br />'])!;
      // The spaces of the text, not those inside a tag (`<br />`).
      for (const table of tables)
        for (const cell of [...table.header, ...table.rows.filter((r) => r.kind === 'header').flatMap((r) => r.cells)])
          cell.shown = `${cell.shown.replace(/ (?![^<>]*>)/g, brk)}${pick.int(2) ? '<br>' : ''}`;
      return tables.length > 0;
    },
  },
  {
    name: 'the header row repeated between lenders',
    family: 'noise',
    benign: true,
    apply(page, pick) {
      const table = pick.one(page.sections);
      const block = table && pick.one(blocksOf(table));
      if (!table || !block) return false;
      const tag = pick.one(['th', 'td'] as const)!;
      const cells = structuredClone(table.header).map((cell) => ({ ...cell, tag }));
      table.rows.splice(block.start, 0, { kind: 'header', attrs: {}, cells });
      return true;
    },
  },

  // ——— Rows ———
  {
    name: 'repeat a row',
    family: 'rows',
    apply(page, pick) {
      const at = pick.one(rowsOf(page));
      if (!at) return false;
      at.table.rows.splice(at.r + 1, 0, structuredClone(at.row));
      return true;
    },
  },
  {
    name: 'move a row within its table',
    family: 'rows',
    apply(page, pick) {
      const at = pick.one(rowsOf(page));
      if (!at || at.table.rows.length < 2) return false;
      moveRow(at.table, at.r, pick.int(at.table.rows.length));
      return true;
    },
  },
  {
    name: 'move a row to another table',
    family: 'rows',
    apply(page, pick) {
      const at = pick.one(rowsOf(page));
      const to = pick.one(page.sections.filter((t) => t !== at?.table));
      if (!at || !to) return false;
      at.table.rows.splice(at.r, 1);
      to.rows.splice(pick.int(to.rows.length + 1), 0, at.row);
      return true;
    },
  },
  {
    name: 'drop a row',
    family: 'rows',
    apply(page, pick) {
      const at = pick.one(rowsOf(page));
      if (!at) return false;
      at.table.rows.splice(at.r, 1);
      return true;
    },
  },
  {
    name: "reorder a lender's products",
    family: 'rows',
    benign: true,
    apply(page, pick) {
      const found = page.sections.flatMap((table) =>
        blocksOf(table).flatMap((block) => {
          const groups = groupsOf(page, table, block);
          return groups.length > 1 ? [{ table, block, groups }] : [];
        }),
      );
      const at = pick.one(found);
      if (!at) return false;
      const { table, block, groups } = at;
      const lead = table.rows[block.start]!;
      const rows = reorder(groups, pick).flatMap((g) => g.map((r) => table.rows[r]!));
      // The lender's name, and the lead row's class, stay on its first row.
      const first = rows[0]!;
      if (first !== lead) {
        [first.cells[0], lead.cells[0]] = [lead.cells[0]!, first.cells[0]!];
        [first.attrs, lead.attrs] = [lead.attrs, first.attrs];
      }
      table.rows.splice(block.start, rows.length, ...rows);
      return true;
    },
  },
  {
    name: 'reorder the lenders of a table',
    family: 'rows',
    benign: true,
    apply(page, pick) {
      const table = pick.one(page.sections.filter((t) => blocksOf(t).length > 1));
      if (!table) return false;
      const blocks = blocksOf(table);
      const start = blocks[0]!.start;
      const rows = reorder(blocks, pick).flatMap((b) => table.rows.slice(b.start, b.end));
      table.rows.splice(start, rows.length, ...rows);
      return true;
    },
  },
  {
    name: 'a lender started again later in its table',
    family: 'rows',
    apply(page, pick) {
      const found = page.sections.flatMap((table) => {
        const blocks = blocksOf(table);
        return blocks.flatMap((block, b) => {
          const groups = groupsOf(page, table, block);
          return groups.length > 1 && blocks[b + 1]
            ? [{ table, block, next: blocks[b + 1]!, last: groups.at(-1)! }]
            : [];
        });
      });
      const at = pick.one(found);
      if (!at) return false;
      const { table, block, next, last } = at;
      const moved = table.rows.slice(last[0], last.at(-1)! + 1).map((row) => structuredClone(row));
      moved[0]!.cells[0] = structuredClone(table.rows[block.start]!.cells[0]!);
      table.rows.splice(next.end, 0, ...moved);
      table.rows.splice(last[0]!, moved.length);
      return true;
    },
  },

  // ——— Sections and tables ———
  {
    name: 'reorder the sections',
    family: 'sections',
    benign: true,
    apply(page, pick) {
      if (page.sections.length < 2) return false;
      page.sections = reorder(page.sections, pick);
      return true;
    },
  },
  {
    name: 'repeat a section',
    family: 'sections',
    apply(page, pick) {
      const t = pick.int(page.sections.length);
      if (!page.sections[t]) return false;
      page.sections.splice(t + 1, 0, structuredClone(page.sections[t]!));
      return true;
    },
  },
  {
    name: 'a featured table on top repeating some products',
    family: 'sections',
    apply(page, pick) {
      const source = pick.one(page.sections.filter((t) => blocksOf(t).length > 0));
      if (!source) return false;
      const rows: Row[] = [];
      for (let n = 1 + pick.int(3); n > 0; n--) {
        const block = pick.one(blocksOf(source))!;
        const group = pick.one(groupsOf(page, source, block))!;
        const copied = group.map((r) => structuredClone(source.rows[r]!)).filter((row) => row.kind === 'body');
        if (copied.length === 0) continue;
        copied.forEach((row, i) => {
          row.cells[0] = i === 0 ? structuredClone(source.rows[block.start]!.cells[0]!) : emptyCell(row.cells[0]);
        });
        rows.push(...copied);
      }
      if (pick.int(2) === 1)
        for (const cell of rows.flatMap((row) => row.cells))
          if (cell.says.is === 'number' && cell.says.unit === 'rate')
            setNumber(cell, round2(Math.max(0, cell.says.value - 0.25)), 'rate');
      const heading = pick.one(['Featured', 'Our best rates', 'Special offers'])!;
      page.sections.unshift({ heading, header: structuredClone(source.header), rows });
      return rows.length > 0;
    },
  },
  {
    name: 'split a table in two',
    family: 'sections',
    apply(page, pick) {
      const t = pick.int(page.sections.length);
      const table = page.sections[t];
      if (!table || table.rows.length < 2) return false;
      const rows = table.rows.splice(1 + pick.int(table.rows.length - 1));
      page.sections.splice(t + 1, 0, {
        heading: `${table.heading} (continued)`,
        header: structuredClone(table.header),
        rows,
      });
      return true;
    },
  },
  {
    name: 'merge two sections',
    family: 'sections',
    apply(page, pick) {
      const t = pick.int(page.sections.length - 1);
      const [a, b] = [page.sections[t], page.sections[t + 1]];
      if (!a || !b || JSON.stringify(a.header.map((h) => h.says)) !== JSON.stringify(b.header.map((h) => h.says)))
        return false;
      a.rows.push(...b.rows);
      page.sections.splice(t + 1, 1);
      return true;
    },
  },

  // ——— Labels ———
  {
    name: 'a lender respelled',
    family: 'labels',
    apply(page, pick) {
      const name = pick.one(lenderNames(page));
      return name !== undefined && rename(page, name, respelled(name, pick));
    },
  },
  {
    name: 'a lender in look-alike letters',
    family: 'labels',
    apply(page, pick) {
      const name = pick.one(lenderNames(page).filter((n) => [...n].some((c) => lookAlikesOf(c).length > 0)));
      if (!name) return false;
      const chars = [...name];
      const i = pick.one(chars.flatMap((c, i) => (lookAlikesOf(c).length > 0 ? [i] : [])))!;
      chars[i] = pick.one(lookAlikesOf(chars[i]!))!;
      return rename(page, name, chars.join(''));
    },
  },
  {
    name: "a logo's alt a slogan",
    family: 'labels',
    apply(page, pick) {
      const at = pick.one(nameCells(page));
      if (!at) return false;
      const slogan = pick.one(SLOGANS)!;
      logoOnly(at.cell, slogan, `a logo whose alt is a slogan ("${slogan.trim()}") names no lender`);
      return true;
    },
  },
  {
    name: 'logos whose alt says "logo"',
    family: 'labels',
    apply(page, pick) {
      const cells = nameCells(page);
      if (cells.length === 0) return false;
      const alt = pick.one(['logo', 'Logo', 'logo.png'])!;
      for (let n = 1 + pick.int(3); n > 0; n--) {
        const at = pick.one(cells)!;
        if (at.cell.says.is === 'name') logoOnly(at.cell, alt, `a logo whose alt says "${alt}" names no lender`);
      }
      return true;
    },
  },
  {
    name: 'a lender named as the site',
    family: 'labels',
    apply(page, pick) {
      const name = pick.one(lenderNames(page));
      return name !== undefined && rename(page, name, pick.one(SITE_NAMES)!);
    },
  },
  {
    name: 'a lender named like a path of the site',
    family: 'labels',
    apply(page, pick) {
      const name = pick.one(lenderNames(page));
      return name !== undefined && rename(page, name, pick.one(page.pathNames)!);
    },
  },
  {
    name: 'a product renamed',
    family: 'labels',
    apply(page, pick) {
      const at = pick.one(cellsOf(page, (cell, at, c) => c === itemIndex(page, at.table) && cell.says.is === 'text'));
      if (at?.cell.says.is !== 'text') return false;
      const { text, role } = at.cell.says;
      // Card names keep a capital first letter (the reader gives them one, as the history has them),
      // and a mortgage "Special" its case: every way of writing "Special" is the lender's Special.
      const cased = role === 'card' || /^special\b/i.test(text) ? [] : [text.toUpperCase()];
      const ways = [`${text} Plus`, `${text} (new)`, `${text} 2`, ...cased];
      const renamed = pick.one(ways.filter((w) => w !== text))!;
      for (const cell of sameItem(page, at.table, at.r)) setText(cell, renamed, role);
      return true;
    },
  },
  {
    name: 'a loan product cell reading as a plan',
    family: 'labels',
    layouts: ['loan'],
    apply(page, pick) {
      const at = pick.one(
        cellsOf(page, (cell, at, c) => c === indexOf(at.table, 'product') && cell.says.is === 'text'),
      );
      if (!at) return false;
      setText(at.cell, pick.one(['Secured', 'Unsecured', 'Secured by car'])!, 'plan');
      return true;
    },
  },
  ...(
    [
      ['product', 'plan'],
      ['plan', 'condition'],
    ] as const
  ).map(
    ([a, b]): Mutation => ({
      name: `a loan row's ${a} and ${b} traded`,
      family: 'labels',
      layouts: ['loan'],
      apply(page, pick) {
        const at = pick.one(
          rowsOf(page).filter(
            (at) => square(at) && [a, b].some((k) => at.row.cells[indexOf(at.table, k)]?.says.is === 'text'),
          ),
        );
        if (!at) return false;
        const [i, j] = [indexOf(at.table, a), indexOf(at.table, b)];
        [at.row.cells[i], at.row.cells[j]] = [at.row.cells[j]!, at.row.cells[i]!];
        return true;
      },
    }),
  ),

  // ——— Values ———
  {
    name: 'footnote marks after values',
    family: 'values',
    benign: true,
    apply(page, pick) {
      const cells = valuesInScope(page, pick);
      const mark = pick.one(MARKS)!;
      for (const { cell } of cells) cell.shown += mark;
      return cells.length > 0;
    },
  },
  {
    name: 'values written with their unit',
    family: 'values',
    benign: true,
    apply(page, pick) {
      const cells = valuesInScope(page, pick);
      const k = pick.int(6);
      for (const { cell } of cells) {
        const units = UNITS[(cell.says as { unit: Unit }).unit];
        // The value with one unit: a unit written before is rewritten, never stacked ("11.95 p.a.%" is no way to write it).
        const unit = units[k % units.length]!;
        cell.shown = cell.shown.replace(/^(\$?\d[\d,]*(\.\d+)?)(?: ?%)?(?: ?p\.a\.)?(?: days)?/, (_, n, decimals) =>
          unit === '.00' && decimals ? n : `${n}${unit}`,
        );
      }
      return cells.length > 0;
    },
  },
  {
    name: 'a range for a value',
    family: 'values',
    apply(page, pick) {
      const at = pick.one(valueCells(page, 'rate'));
      if (at?.cell.says.is !== 'number') return false;
      const [from, to] = [written(at.cell.says.value, 'rate'), written(at.cell.says.value + 0.3, 'rate')];
      at.cell.shown = pick.one([`${from} - ${to}`, `${from}–${to}`, `${from} to ${to}`, `from ${from}`])!;
      at.cell.says = { is: 'unstated', what: 'a range' };
      return true;
    },
  },
  {
    name: 'a fee written "Nil", "None" or "Free"',
    family: 'values',
    layouts: ['card'],
    apply(page, pick) {
      const at = pick.one(
        cellsOf(
          page,
          (cell, at, c) => square(at) && keyAt(at.table, c) === 'annualFeeNZD' && cell.says.is !== 'unstated',
        ),
      );
      if (!at) return false;
      Object.assign(at.cell, { before: '', after: '' });
      setNumber(at.cell, 0, 'money', pick.one(['Nil', 'None', 'Free', 'nil', 'FREE']));
      return true;
    },
  },
  {
    name: 'values scaled',
    family: 'values',
    apply(page, pick) {
      const unit = pick.one(['rate', 'money'] as const)!;
      const cells = valuesInScope(page, pick, unit);
      const up = pick.int(2) === 0;
      for (const { cell } of cells)
        if (cell.says.is === 'number')
          setNumber(cell, round2(up ? cell.says.value * 100 : cell.says.value / 100), unit);
      return cells.length > 0;
    },
  },
  {
    name: 'values shifted',
    family: 'values',
    apply(page, pick) {
      const unit = pick.one(['rate', 'money', 'days'] as const)!;
      const cells = valuesInScope(page, pick, unit);
      const by = { rate: 20, money: 1000, days: 100 }[unit];
      for (const { cell } of cells) if (cell.says.is === 'number') setNumber(cell, round2(cell.says.value + by), unit);
      return cells.length > 0;
    },
  },

  // ——— The body ———
  {
    name: 'the body cut at a byte',
    family: 'body',
    apply(page, pick) {
      page.delivery.cut = { at: pick.int(1_000_000_000), framing: pick.one(FRAMINGS)! };
      return true;
    },
  },
  {
    name: 'the body cut after a row',
    family: 'body',
    apply(page, pick) {
      page.delivery.cut = { afterRow: pick.int(1_000_000), framing: pick.one(FRAMINGS)! };
      return true;
    },
  },

  // ——— Charsets ———
  {
    name: 'a windows-1252 page',
    family: 'charset',
    apply(page, pick) {
      const name = pick.one(lenderNames(page));
      if (name === undefined) return false;
      rename(page, name, pick.one(ACCENTED)!);
      const label = pick.one(LATIN_1_LABELS)!;
      page.delivery.encoding = 'windows-1252';
      const declared = [
        { header: label, meta: page.meta }, // the header's charset wins over the meta's
        { header: label, meta: null },
        { header: null, meta: { charset: label, form: 'charset' } as const },
        { header: null, meta: { charset: label, form: 'http-equiv' } as const },
        { header: 'utf-8', meta: page.meta }, // a lie
        { header: null, meta: null }, // unsaid
      ][pick.int(6)]!;
      page.delivery.headerCharset = declared.header;
      page.meta = declared.meta;
      return true;
    },
  },
  {
    name: 'the charset declared in a meta only',
    family: 'charset',
    benign: true,
    apply(page) {
      page.delivery.headerCharset = null;
      page.meta = { charset: 'utf-8', form: 'charset' };
      return true;
    },
  },

  // ——— Spans and nesting ———
  {
    name: "a lender's name spanning its rows",
    family: 'spans',
    benign: true,
    apply(page, pick) {
      const tables = pick.int(2) === 0 ? page.sections : [pick.one(page.sections)!].filter(Boolean);
      for (const table of tables) table.nameSpans = true;
      return tables.length > 0;
    },
  },
  {
    name: 'an empty cell spanning two columns',
    family: 'spans',
    benign: true,
    apply(page, pick) {
      const found = rowsOf(page)
        .filter(square)
        .flatMap((at) =>
          at.row.cells.flatMap((cell, i) =>
            i > 0 && cell.says.is === 'empty' && at.row.cells[i + 1]?.says.is === 'empty' ? [{ at, i }] : [],
          ),
        );
      const one = pick.one(found);
      if (!one) return false;
      one.at.row.mergeEmpty = one.i;
      return true;
    },
  },
  {
    name: 'a value spanning two columns',
    family: 'spans',
    apply(page, pick) {
      const at = pick.one(valueCells(page).filter((v) => square(v) && v.c + 1 < v.row.cells.length));
      if (!at) return false;
      at.row.cells.splice(at.c + 1, 1);
      Object.assign(at.cell, { span: 2, attrs: { ...at.cell.attrs, colspan: '2' } });
      return true;
    },
  },
  {
    name: 'values nested in markup',
    family: 'spans',
    benign: true,
    apply(page, pick) {
      const cells = valuesInScope(page, pick);
      const tag = pick.one(['span', 'div', 'b', 'em', 'strong'])!;
      const depth = 1 + pick.int(20);
      for (const { cell } of cells) {
        cell.before += `<${tag}>`.repeat(depth);
        cell.after = `</${tag}>`.repeat(depth) + cell.after;
      }
      return cells.length > 0;
    },
  },
  {
    name: 'a rate table inside a layout table',
    family: 'spans',
    apply(page, pick) {
      const table = pick.one(page.sections);
      if (!table) return false;
      table.wrapped = true;
      return true;
    },
  },

  // ——— The mortgage page's 18-month line ———
  {
    name: 'the 18-month line above its product',
    family: 'follow-on',
    layouts: ['mortgage'],
    apply(page, pick) {
      const found = lines(page).filter((l) => l.main >= 0);
      // Within its lender where the page allows: above a product that is not the lender's first.
      const within = found.filter((l) => l.table.rows[l.main]!.cells[0]?.says.is !== 'name');
      const line = pick.one(within.length > 0 ? within : found);
      if (!line) return false;
      moveRow(line.table, line.r, line.main);
      return true;
    },
  },
  {
    name: 'the 18-month line moved',
    family: 'follow-on',
    layouts: ['mortgage'],
    apply(page, pick) {
      const line = pick.one(lines(page));
      if (!line) return false;
      moveRow(line.table, line.r, pick.int(line.table.rows.length));
      return true;
    },
  },
  {
    name: "the 18-month line inlined into its product's row",
    family: 'follow-on',
    layouts: ['mortgage'],
    apply(page, pick) {
      const line = pick.one(lines(page).filter((l) => l.main >= 0));
      if (!line) return false;
      const main = line.table.rows[line.main]!;
      const special = line.row.cells.find((c) => c.says.is === 'follow-on')!;
      const terms = main.cells.flatMap((_, i) => (columnAt(page, line.table, i)?.unit ? [i] : []));
      const empty = terms.filter((i) => main.cells[i]!.says.is === 'empty');
      const i = pick.one(empty.length > 0 ? empty : terms)!;
      main.cells[i] = { ...special, span: 1, attrs: { class: 'special-line' } };
      line.table.rows.splice(line.r, 1);
      return true;
    },
  },
  {
    name: 'the 18-month line naming no product',
    family: 'follow-on',
    layouts: ['mortgage'],
    apply(page, pick) {
      const line = pick.one(lines(page));
      const cell = line?.row.cells[indexOf(line.table, 'product')];
      if (!cell) return false;
      setEmpty(cell, '');
      return true;
    },
  },

  // ——— Noise: the same statements, written differently ———
  {
    name: 'row classes dropped',
    family: 'noise',
    benign: true,
    apply(page) {
      for (const row of page.sections.flatMap((t) => t.rows)) delete row.attrs.class;
      return true;
    },
  },
  {
    name: 'spacer rows',
    family: 'noise',
    benign: true,
    apply(page, pick) {
      const table = pick.one(page.sections);
      if (!table) return false;
      const width = table.header.length;
      for (let n = 1 + pick.int(3); n > 0; n--) {
        const cells = [
          [{ ...emptyCell(), shown: '&nbsp;', span: width, attrs: { colspan: String(width) } }],
          Array.from({ length: width }, () => emptyCell()),
          [],
        ][pick.int(3)]!;
        table.rows.splice(pick.int(table.rows.length + 1), 0, { kind: 'spacer', attrs: { class: 'spacer' }, cells });
      }
      return true;
    },
  },
  {
    name: 'white space around cells',
    family: 'noise',
    benign: true,
    apply(page, pick) {
      const tables = pick.int(2) === 0 ? page.sections : [pick.one(page.sections)!].filter(Boolean);
      for (const cell of tables.flatMap((t) => [...t.header, ...t.rows.flatMap((r) => r.cells)])) {
        cell.before = `\n        ${cell.before}`;
        cell.after = `${cell.after}\n      `;
      }
      return tables.length > 0;
    },
  },
  {
    name: 'attribute noise',
    family: 'noise',
    benign: true,
    apply(page, pick) {
      const table = pick.one(page.sections);
      if (!table) return false;
      table.rows.forEach((row, r) => {
        Object.assign(row.attrs, { 'data-row': String(r), style: 'background: #fafafa' });
        row.cells.forEach((cell, c) => {
          Object.assign(cell.attrs, { 'data-col': String(c), nowrap: 'nowrap' });
        });
      });
      return true;
    },
  },
  {
    name: 'a captcha widget in the footer',
    family: 'noise',
    benign: true,
    apply(page) {
      page.footer.push(CAPTCHA_FOOTER);
      return true;
    },
  },

  // ——— The page ———
  {
    name: 'a neighbour page titled as this one too',
    family: 'page',
    apply(page) {
      const other = page.neighbour;
      if (!other) return false;
      page.sections = structuredClone(other.sections);
      page.title = `${other.h1} and ${page.h1.toLowerCase()} | interest.co.nz`;
      page.refuse.push(`the page is the "${other.h1}" page, titled as this one too`);
      page.h1 = other.h1;
      return true;
    },
  },
];

export const MUTATION_NAMES = new Map(MUTATIONS.map((m) => [m.name, m]));

/** One mutation as generated: its name and the numbers that pick its targets. */
export interface MutationSpec {
  name: string;
  picks: number[];
}

/** A generated page: the lenders of the newest snapshot it is built from (their indices), and its mutations in order. */
export interface PageSpec {
  lenders: number[];
  mutations: MutationSpec[];
}

/** Apply mutations in order: the names of those that applied (a mutation with nothing to touch is passed over). */
export function applyMutations(page: PageModel, specs: readonly MutationSpec[]): string[] {
  const applied: string[] = [];
  for (const spec of specs) {
    const mutation = MUTATION_NAMES.get(spec.name);
    if (!mutation) throw new Error(`no mutation is named "${spec.name}"`);
    if (mutation.layouts && !mutation.layouts.includes(page.layout.kind)) continue;
    if (!mutation.apply(page, new Picker(spec.picks))) continue;
    applied.push(mutation.name);
    if (!mutation.benign) page.edited = true;
  }
  return applied;
}

/** Numbers each mutation is given to pick its targets with. */
const PICKS = 6;

/**
 * Every lender of the newest snapshot, shrinking to fewer: the page and the snapshot it is checked
 * against are both built from the lenders kept, so a failure shrinks to a small page.
 */
class Lenders extends fc.Arbitrary<number[]> {
  constructor(private readonly count: number) {
    super();
  }
  generate(): fc.Value<number[]> {
    return new fc.Value([...Array(this.count).keys()], undefined);
  }
  canShrinkWithoutContext(value: unknown): value is number[] {
    return Array.isArray(value) && value.every((v) => Number.isInteger(v));
  }
  shrink(value: number[]): fc.Stream<fc.Value<number[]>> {
    return fc.stream(fewer(value)).map((v) => new fc.Value(v, undefined));
  }
}
function* fewer(value: number[]): IterableIterator<number[]> {
  if (value.length <= 1) return;
  const half = Math.ceil(value.length / 2);
  yield value.slice(0, half);
  yield value.slice(half);
  for (let i = 0; i < value.length; i++) yield [...value.slice(0, i), ...value.slice(i + 1)];
}

/** Generated pages of a layout over `lenders` lenders: 1 to 4 mutations (only benign ones when asked). */
export function pageSpecs(layout: Layout, lenders: number, { benign = false } = {}): fc.Arbitrary<PageSpec> {
  const names = MUTATIONS.filter((m) => (!m.layouts || m.layouts.includes(layout.kind)) && (!benign || m.benign)).map(
    (m) => m.name,
  );
  const mutation = fc.record({
    name: fc.constantFrom(...names),
    picks: fc.array(fc.nat({ max: 1_000_000 }), { minLength: PICKS, maxLength: PICKS }),
  });
  return fc.record({ mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }), lenders: new Lenders(lenders) });
}
