/**
 * A rates page as data: sections, each a table of rows of cells, every cell saying what it says
 * (a lender's name, a product's, a value of its column, nothing), rendered to the HTML a page
 * would serve and delivered as its bytes. What the page says in all, its truth, is read off the
 * model, never off the HTML: the generator knows what it wrote. A page starts as the real-style
 * fixture of a snapshot (test/fixtures/real-style-page.ts), each of its rows zipped with the
 * snapshot's item it shows; the grammar (page-grammar.ts) then edits it.
 */
import * as cheerio from 'cheerio';
import type { Element } from 'domhandler';
import { type Dataset, type Entity, itemsOf } from '../../src/datasets.ts';
import { EXPLORER } from '../../src/explorer/definitions.ts';
import { ALERTS_SEGMENT, CHANGES_SEGMENT, LOWEST_SEGMENT, TIME_SERIES_SEGMENT } from '../../src/paths.ts';
import { MORTGAGE_TERM_TABLE } from '../../src/schemas/terms.ts';
import { renderRealStylePage } from '../fixtures/real-style-page.ts';
import {
  type Holds,
  type PageLayoutKind,
  RECORDED_HEADERS,
  type Role,
  type Unit,
} from '../fixtures/recorded-headers.ts';
import { pageKindOf } from '../fixtures/source-page.ts';

export type { Role, Unit };

/** A column as its recorded header text says, and what it holds (recorded-headers.ts). */
export interface Column extends Holds {
  header: string;
}

export interface Layout {
  kind: PageLayoutKind;
  columns: Column[];
  /** A page of one rate a row (a `rate` column: the loans'), each rate told apart by its `measure` columns. */
  rateRows: boolean;
}

export const termLabel = (months: number | null) => MORTGAGE_TERM_TABLE.find((t) => t.months === months)!.label;

/** A layout as its record says: each header with what its column holds. */
function layoutOf(kind: PageLayoutKind): Layout {
  const columns = RECORDED_HEADERS[kind].map(({ text, holds }) => ({ header: text, ...holds }));
  return { kind, columns, rateRows: columns.some((c) => c.key === 'rate') };
}

const LAYOUTS = Object.fromEntries(
  (Object.keys(RECORDED_HEADERS) as PageLayoutKind[]).map((kind) => [kind, layoutOf(kind)]),
) as Record<PageLayoutKind, Layout>;

/** A dataset's layout: its source page's, as the fixtures draw it (datasets are never named here). */
export const layoutOfDataset = (dataset: Dataset): Layout => LAYOUTS[pageKindOf(dataset.slug)];

/** What a cell says. */
export type Says =
  | { is: 'empty' }
  | { is: 'name'; name: string }
  | { is: 'text'; text: string; role: Role }
  | { is: 'number'; value: number; unit: Unit }
  /** No one value: a range, a word. A reader leaves it out (an unreadable cell) or refuses the page. */
  | { is: 'unstated'; what: string }
  /** The mortgage page's short line under a product: `18 months 5.79`. */
  | { is: 'follow-on'; months: number; value: number }
  | { is: 'header'; key: string };

export type Attrs = Record<string, string>;

export interface Cell {
  tag: 'td' | 'th';
  attrs: Attrs;
  /** The markup around what the cell shows (a link, bold and an indicator image …) and what it shows, as HTML. */
  before: string;
  shown: string;
  after: string;
  says: Says;
  /** Columns the cell covers (colspan). */
  span: number;
  /** Why this cell makes the page one a reader must refuse (a logo that names no one). */
  refuse?: string;
}

export interface Row {
  kind: 'body' | 'header' | 'spacer';
  attrs: Attrs;
  cells: Cell[];
  /** Render this cell and the next, both empty, as one empty cell spanning the two. */
  mergeEmpty?: number;
}

export interface Table {
  heading: string;
  header: Cell[];
  rows: Row[];
  /** Render each lender's name once, spanning its rows (rowspan). */
  nameSpans?: boolean;
  /** Render the rate table inside a layout table. */
  wrapped?: boolean;
}

export type Framing = 'length' | 'close' | 'promised';

export interface Delivery {
  encoding: 'utf-8' | 'windows-1252';
  /** The Content-Type header's charset; null: none. */
  headerCharset: string | null;
  /** The body cut short: at a byte (`at`, taken modulo the body's length) or after a row (`afterRow`, modulo the rows). */
  cut?: { at?: number; afterRow?: number; framing: Framing };
}

export interface PageModel {
  layout: Layout;
  title: string;
  h1: string;
  meta: { charset: string; form: 'charset' | 'http-equiv' } | null;
  sections: Table[];
  /** Markup after the sections (a footer). */
  footer: string[];
  delivery: Delivery;
  /** Page-wide reasons a reader must refuse it (a neighbour page). */
  refuse: string[];
  /** Some edit may have changed what the page says (a mutation other than a benign one was applied). */
  edited: boolean;
  /** Names a lender cannot have: they are the site's own paths for this dataset (its measures, the API's segments). */
  pathNames: string[];
  /** The page of another dataset of the same layout, when there is one: a neighbour that must not pass for this one. */
  neighbour?: Pick<PageModel, 'title' | 'h1' | 'sections'>;
}

export const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A value as the page writes it: rates to two places, money as `$1,250`, days whole. */
export function written(value: number, unit: Unit): string {
  if (unit === 'rate') return value.toFixed(2);
  if (unit === 'money') return `$${value.toLocaleString('en-NZ', { maximumFractionDigits: 2 })}`;
  return String(value);
}

/** The rows the fixture renders for an item, as what each of their cells says (the shapes its comment states). */
/** What a cell of the fixture says, or how to read it off the drawn cell's text where the fixture's choice decides it. */
type Expected = Says | ((shown: string) => Says);

function itemRows(layout: Layout, entity: Entity, item: any, first: boolean): Expected[][] {
  const name: Says = first ? { is: 'name', name: entity.name } : { is: 'empty' };
  const empty: Says = { is: 'empty' };
  const number = (value: number | null | undefined, unit: Unit): Says =>
    value === null || value === undefined ? empty : { is: 'number', value, unit };
  const text = (value: string | null, role: Role): Says => (value === null ? empty : { is: 'text', text: value, role });
  if (layout.kind === 'mortgage') {
    const byLabel = new Map<string, number>(item.rates.map((r: any) => [r.term, r.rate]));
    const main = layout.columns.map((c, i) =>
      i === 0 ? name : c.role ? text(item.name, 'product') : number(byLabel.get(c.key), 'rate'),
    );
    const eighteen = byLabel.get(termLabel(18));
    const followOn: Says[] = [empty, text(item.name, 'product'), { is: 'follow-on', months: 18, value: eighteen! }];
    return eighteen === undefined ? [main] : [main, followOn];
  }
  if (layout.rateRows) {
    // A row per rate, each column the rate's field of its key. Where the fixture names the product
    // (its first row, or every row) and a text it keeps in no field (a credit rating) are read off the drawn cell.
    return item.rates.map((rate: any, k: number) =>
      layout.columns.map((c): Expected => {
        if (c.lender) return k === 0 ? name : empty;
        if (c.role === 'product') return (shown) => (shown ? text(item.name, 'product') : empty);
        if (c.role)
          return c.key in rate ? text(rate[c.key], c.role) : (shown) => (shown ? text(shown, c.role!) : empty);
        return number(rate[c.key], c.unit!);
      }),
    );
  }
  // A card's name is its plan's `name`; the other columns are the plan's fields of their key.
  return [
    layout.columns.map((c, i) =>
      i === 0
        ? name
        : c.role
          ? text(c.role === 'card' ? item.name : item[c.key], c.role)
          : number(item[c.key], c.unit!),
    ),
  ];
}

const attrsOf = (element: Element): Attrs => ({ ...element.attribs });

/** A cell of the fixture's markup, with what it says; a value cell must show the value it says, or the fixture changed. */
function cellOf($: cheerio.CheerioAPI, td: Element, says: Says, where: string): Cell {
  const html = $(td).html() ?? '';
  const cell: Cell = {
    tag: td.name === 'th' ? 'th' : 'td',
    attrs: attrsOf(td),
    before: '',
    shown: html,
    after: '',
    says,
    span: Number(td.attribs.colspan ?? 1),
  };
  if (says.is === 'number') {
    const token = written(says.value, says.unit);
    const at = html.indexOf(token);
    if ($(td).text().trim() !== token || at < 0)
      throw new Error(
        `the real-style fixture changed: ${where} reads "${$(td).text().trim()}", the model says "${token}"`,
      );
    Object.assign(cell, { before: html.slice(0, at), shown: token, after: html.slice(at + token.length) });
  }
  return cell;
}

/** Names that are the site's own paths for a dataset: its measures' labels and the API's segments after a dataset. */
function pathNamesOf(dataset: Dataset): string[] {
  const segments = [CHANGES_SEGMENT, TIME_SERIES_SEGMENT, LOWEST_SEGMENT, ALERTS_SEGMENT].map(
    (s) => `${s.charAt(0).toUpperCase()}${s.slice(1).replace('-', ' ')}`,
  );
  return [...EXPLORER[dataset.slug].measures.map((m) => m.label), ...segments];
}

/** The page's sections as the fixture renders `data`, each row zipped with what it says. */
function sectionsOf(
  dataset: Dataset,
  data: readonly Entity[],
): Pick<PageModel, 'title' | 'h1' | 'sections'> & { $: cheerio.CheerioAPI } {
  const layout = layoutOfDataset(dataset);
  const $ = cheerio.load(renderRealStylePage(dataset.slug, data));
  const expected = data.flatMap((entity) =>
    itemsOf(entity).flatMap((item, k) => itemRows(layout, entity, item, k === 0)),
  );
  let r = 0;
  const sections = $('div.panel-pane')
    .toArray()
    .map((pane): Table => {
      const table = $(pane).find('table.interest_financial_datatable');
      const header = table
        .find('thead > tr > th')
        .toArray()
        .map((th, i) => cellOf($, th, { is: 'header', key: layout.columns[i]!.key }, `header ${i + 1}`));
      const rows = table
        .find('tbody > tr')
        .toArray()
        .map((tr): Row => {
          const says = expected[r++];
          const tds = $(tr).children('td').toArray();
          if (!says || says.length !== tds.length)
            throw new Error(
              `the real-style fixture changed: row ${r} has ${tds.length} cells, the model ${says?.length}`,
            );
          return {
            kind: 'body',
            attrs: attrsOf(tr),
            cells: tds.map((td, i) => {
              const expected = says[i]!;
              const said = typeof expected === 'function' ? expected($(td).text().trim()) : expected;
              return cellOf($, td, said, `row ${r} cell ${i + 1}`);
            }),
          };
        });
      return { heading: $(pane).find('h2.pane-title').text().trim(), header, rows };
    });
  if (r !== expected.length) throw new Error(`the real-style fixture changed: ${r} rows, the model ${expected.length}`);
  return { title: $('title').text(), h1: $('h1').text(), sections, $ };
}

/** The real-style page of `data` as a model, with a neighbour dataset's page (the same layout) when there is one. */
export function basePage(
  dataset: Dataset,
  data: readonly Entity[],
  neighbour?: { dataset: Dataset; data: readonly Entity[] },
): PageModel {
  const { title, h1, sections, $ } = sectionsOf(dataset, data);
  const charset = $('meta[charset]').attr('charset');
  const other = neighbour && sectionsOf(neighbour.dataset, neighbour.data);
  return {
    layout: layoutOfDataset(dataset),
    title,
    h1,
    meta: charset ? { charset, form: 'charset' } : null,
    sections,
    footer: [],
    delivery: { encoding: 'utf-8', headerCharset: 'utf-8' },
    refuse: [],
    edited: false,
    pathNames: pathNamesOf(dataset),
    ...(other ? { neighbour: { title: other.title, h1: other.h1, sections: other.sections } } : {}),
  };
}

const attrText = (attrs: Attrs) =>
  Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');

const cellHtml = (cell: Cell) =>
  `<${cell.tag}${attrText(cell.attrs)}>${cell.before}${cell.shown}${cell.after}</${cell.tag}>`;

/** A table's rows as HTML: a lender's name spanning its rows when the table says so, two empty cells merged where a row says so. */
function rowsHtml(table: Table): string[] {
  const covered = new Set<Row>();
  const spans = new Map<Row, number>();
  if (table.nameSpans) {
    table.rows.forEach((row, r) => {
      if (row.kind !== 'body' || row.cells[0]?.says.is !== 'name') return;
      let next = r + 1;
      const follows = (other: Row | undefined) =>
        other?.kind === 'body' && other.cells[0]?.says.is === 'empty' && !other.cells[0].refuse;
      while (follows(table.rows[next])) covered.add(table.rows[next++]!);
      if (next > r + 1) spans.set(row, next - r);
    });
  }
  return table.rows.map((row) => {
    const cells = row.cells.flatMap((cell, i) => {
      if (i === 0 && covered.has(row)) return [];
      if (i === 0 && spans.has(row))
        return [cellHtml({ ...cell, attrs: { ...cell.attrs, rowspan: String(spans.get(row)) } })];
      const merge = row.mergeEmpty;
      const bothEmpty =
        merge !== undefined && row.cells[merge]?.says.is === 'empty' && row.cells[merge + 1]?.says.is === 'empty';
      if (bothEmpty && i === merge)
        return [cellHtml({ ...cell, before: '', shown: '&nbsp;', after: '', attrs: { ...cell.attrs, colspan: '2' } })];
      if (bothEmpty && i === merge + 1) return [];
      return [cellHtml(cell)];
    });
    return `<tr${attrText(row.attrs)}>${cells.join('')}</tr>`;
  });
}

function tableHtml(table: Table): string {
  const head = `<thead><tr>${table.header.map(cellHtml).join('\n    ')}</tr></thead>`;
  const rates = `<table id="interest_financial_datatable" class="interest_financial_datatable">\n${head}\n<tbody>\n${rowsHtml(table).join('\n')}\n</tbody></table>`;
  const content = table.wrapped ? `<table class="layout"><tr><td>${rates}</td></tr></table>` : rates;
  return `<div class="panel-pane pane-node"><h2 class="pane-title">\n          ${esc(table.heading)}    </h2>\n<div class="pane-content">${content}</div></div>`;
}

/** The page as HTML, in the real-style fixture's shell. */
export function renderPage(page: PageModel): string {
  const meta = !page.meta
    ? ''
    : page.meta.form === 'charset'
      ? `<meta charset="${page.meta.charset}" />\n`
      : `<meta http-equiv="Content-Type" content="text/html; charset=${page.meta.charset}" />\n`;
  const body = page.sections.map(tableHtml).join('\n');
  return `<!DOCTYPE html>\n<html>\n<head>\n${meta}<title>${esc(page.title)}</title>\n</head>\n<body>\n<div id="page">\n<h1 class="title">${esc(page.h1)}</h1>\n${body}\n${page.footer.join('\n')}</div>\n</body>\n</html>`;
}

/** Each character windows-1252 writes as one byte, with its byte (read off the platform's decoder). */
const WINDOWS_1252 = (() => {
  const decoder = new TextDecoder('windows-1252');
  const bytes = new Map<string, number>();
  for (let b = 0; b < 256; b++) bytes.set(decoder.decode(Uint8Array.of(b)), b);
  return bytes;
})();

/** Text in windows-1252: each character its byte, one it has no byte for as a character reference. */
function windows1252(text: string): Buffer {
  const out: number[] = [];
  for (const char of text) {
    const byte = WINDOWS_1252.get(char);
    if (byte !== undefined) out.push(byte);
    else for (const c of Buffer.from(`&#${char.codePointAt(0)};`, 'latin1')) out.push(c);
  }
  return Buffer.from(out);
}

export interface Delivered {
  body: Buffer;
  contentType: string;
  framing: Framing;
  /** The Content-Length promised (framing `promised`: the whole body's, though fewer bytes come). */
  promised?: number;
}

/** The page's bytes and headers as the server sends them. */
export function deliver(page: PageModel): Delivered {
  const html = renderPage(page);
  const { encoding, headerCharset, cut } = page.delivery;
  const whole = encoding === 'utf-8' ? Buffer.from(html, 'utf8') : windows1252(html);
  const contentType = headerCharset ? `text/html; charset=${headerCharset}` : 'text/html';
  if (!cut) return { body: whole, contentType, framing: 'length' };
  const ends: number[] = [];
  for (let at = whole.indexOf('</tr>'); at >= 0; at = whole.indexOf('</tr>', at + 1)) ends.push(at + '</tr>'.length);
  const at =
    cut.afterRow !== undefined && ends.length > 0 ? ends[cut.afterRow % ends.length]! : (cut.at ?? 0) % whole.length;
  return { body: whole.subarray(0, at), contentType, framing: cut.framing, promised: whole.length };
}
