/**
 * CSV downloads for spreadsheets, written at build time: per dataset, the newest snapshot, the
 * newest two years of snapshots and each calendar year's snapshots (which file holds which
 * snapshots: csvSnapshots in urls.ts), in long form — one row per date × institution × product ×
 * rate (credit cards: per date × issuer × plan, a plan's fields being its values) — with the ids
 * the API gives.
 *
 * The columns come from the dataset's zod schemas: `date`, the entity's id and name, the item's id
 * and name, then the rate's fields (`rateId`, `rate`, `term`, `termInMonths` …) or the plan's.
 * Written by csv-stringify: UTF-8 with a byte order mark (so Excel reads `Kāinga Ora` right), a
 * header row, CRLF line ends and RFC 4180 quoting. A text cell beginning with = + - @ gets a
 * leading ' so that a spreadsheet never runs it as a formula. An empty cell is null.
 */
import { stringify } from 'csv-stringify/sync';
import { type Dataset, itemsOf } from '../datasets.ts';
import type { SnapshotData } from './model.ts';
import { changeKeys, recordSchemas } from './schema.ts';

type Cell = string | number | null;

/** The header row. */
export function csvColumns(dataset: Dataset): string[] {
  const keys = changeKeys(dataset);
  const { item, rate } = recordSchemas(dataset);
  const values = rate
    ? Object.keys(rate.shape).map((key) => (key === 'id' ? 'rateId' : key))
    : Object.keys(item.shape).filter((key) => key !== 'id' && key !== 'name');
  return ['date', keys.entityId, keys.entityName, keys.itemId, keys.itemName, ...values];
}

/** The named fields of a rate or plan (every field of either is a string, a number or null). */
const cells = (fields: Record<string, Cell | undefined>, keys: readonly string[]): Cell[] =>
  keys.map((key) => fields[key] ?? null);

/** The rows of one snapshot, in its order. */
function csvRows(dataset: Dataset, snapshot: SnapshotData): Cell[][] {
  const { item: itemSchema, rate } = recordSchemas(dataset);
  const rateKeys = rate ? Object.keys(rate.shape) : [];
  const itemKeys = Object.keys(itemSchema.shape).filter((key) => key !== 'id' && key !== 'name');
  const rows: Cell[][] = [];
  for (const entity of snapshot.data) {
    for (const item of itemsOf(entity)) {
      const head: Cell[] = [snapshot.date, entity.id, entity.name, item.id, item.name];
      if ('rates' in item) {
        for (const r of item.rates) rows.push([...head, ...cells(r, rateKeys)]);
      } else {
        rows.push([...head, ...cells(item, itemKeys)]);
      }
    }
  }
  return rows;
}

/** The CSV file of these snapshots (the newest; those of two years; those of one year). */
export function datasetCsv(dataset: Dataset, snapshots: readonly SnapshotData[]): string {
  return stringify(
    snapshots.flatMap((snapshot) => csvRows(dataset, snapshot)),
    {
      header: true,
      columns: csvColumns(dataset),
      bom: true,
      record_delimiter: 'windows',
      quote_record_delimiter: true,
      escape_formulas: true,
      cast: { number: (value) => String(value) },
    },
  );
}
