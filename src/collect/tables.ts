/**
 * The markup all four pages share: several sections, each with its own rate table (the same id
 * repeats); a row whose first cell names an institution starts it, following rows with an
 * empty first cell continue it.
 */
import * as cheerio from 'cheerio';
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { cellText, entityName } from './cells.ts';

export interface SourceRow {
  /** The institution or issuer this row belongs to. */
  entity: string;
  /** Cell texts (see cellText), index 0 being the institution cell. */
  texts: string[];
  cells: Cheerio<AnyNode>[];
  row: Cheerio<AnyNode>;
  table: number;
}

export interface SourceTables {
  tableCount: number;
  rows: SourceRow[];
}

export function readRateTables(html: string): SourceTables {
  const $ = cheerio.load(html);
  const tables = $('table.interest_financial_datatable, table#interest_financial_datatable');
  const rows: SourceRow[] = [];
  tables.each((tableIndex, table) => {
    let current = '';
    $(table)
      .find('tr')
      .filter((_, tr) => $(tr).closest('thead').length === 0 && $(tr).children('td').length > 0)
      .each((_, tr) => {
        const row = $(tr);
        const cells = row
          .children('td')
          .toArray()
          .map((td) => $(td));
        // A short follow-on row (the mortgage 18-month line) repeats the product in its first
        // cells, so only a full row, or one marked primary_row, can name a new institution.
        const followOn = row.find('td.special-line').length > 0 || cells.length <= 3;
        const name = followOn && !row.hasClass('primary_row') ? '' : entityName(cells[0]);
        if (name) current = name;
        if (!current) return; // rows before any institution carry nothing we can attribute
        rows.push({ entity: current, texts: cells.map(cellText), cells, row, table: tableIndex });
      });
  });
  return { tableCount: tables.length, rows };
}

/** Consecutive rows of one institution in one table: what each page parser turns into one entity. */
export interface EntityRows {
  name: string;
  rows: SourceRow[];
}

export function entityRuns(rows: readonly SourceRow[]): EntityRows[] {
  const runs: EntityRows[] = [];
  for (const row of rows) {
    const last = runs.at(-1);
    if (last && last.name === row.entity && last.rows[0]!.table === row.table) last.rows.push(row);
    else runs.push({ name: row.entity, rows: [row] });
  }
  return runs;
}
