/**
 * The snapshot tree: `<dir>/<dataset>/<YYYY-MM-DD>.json`, one file per dataset per UTC date,
 * written one way only so that diffs show just the rates that moved.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dataset, Snapshot } from '../datasets.ts';
import { writeFileAtomic } from '../lib/atomic-write.ts';
import { isCalendarDate } from '../schemas/common.ts';
import { INVISIBLE_CHARACTERS } from '../schemas/common.ts';

export const SNAPSHOT_FILE = /^(\d{4}-\d{2}-\d{2})\.json$/;

export function snapshotPath(dir: string, dataset: Dataset, date: string): string {
  return join(dir, dataset.slug, `${date}.json`);
}

/** The dates that have a snapshot file, oldest first; an absent folder has none. */
export async function listSnapshotDates(dir: string, dataset: Dataset): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(join(dir, dataset.slug));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => SNAPSHOT_FILE.exec(name)?.[1])
    .filter((date): date is string => date !== undefined && isCalendarDate(date))
    .sort();
}

/** Validation failure of one snapshot file, naming the file and the field at fault. */
export class SnapshotFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
    this.name = 'SnapshotFileError';
  }
}

/** Zod issues as `data[3].plans[0].purchaseRate: expected number` lines. */
export function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[], value?: unknown): string[] {
  return issues.slice(0, 5).map((issue) => {
    const path = issue.path
      .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${String(part)}`))
      .join('');
    return `${path || '(file)'}${value === undefined ? '' : evidence(value, issue.path)}: ${issue.message}`;
  });
}

/** ` (rate:anz:special:1-year rate = 52.9)`: the nearest id on the path, the field and its value. */
function evidence(value: unknown, path: readonly PropertyKey[]): string {
  let node = value;
  let id: string | undefined;
  for (const part of path) {
    if (!node || typeof node !== 'object') return '';
    const record = node as Record<PropertyKey, unknown>;
    if (typeof record.id === 'string') id = record.id;
    node = record[part];
  }
  // Escaped as JSON escapes controls, so a bidi override in a name cannot reorder a log line.
  const shown = (JSON.stringify(node) ?? String(node)).replace(
    new RegExp(INVISIBLE_CHARACTERS.source, 'gu'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return id ? ` (${id} ${String(path.at(-1))} = ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown})` : '';
}

/** Validate a parsed snapshot against the dataset's strict schema and its file date. */
export function validateSnapshot(dataset: Dataset, value: unknown, file: string, date?: string): Snapshot {
  const result = dataset.schemas.snapshot.safeParse(value);
  if (!result.success) throw new SnapshotFileError(file, describeIssues(result.error.issues, value));
  const snapshot = result.data as Snapshot;
  if (date !== undefined && snapshot.lastUpdated.slice(0, 10) !== date) {
    throw new SnapshotFileError(file, [`lastUpdated: ${snapshot.lastUpdated} is not on the file's UTC date ${date}`]);
  }
  return snapshot;
}

export async function readSnapshot(dir: string, dataset: Dataset, date: string): Promise<Snapshot> {
  const file = snapshotPath(dir, dataset, date);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new SnapshotFileError(file, [`not readable JSON (${(error as Error).message})`]);
  }
  return validateSnapshot(dataset, value, file, date);
}

/** The one way a snapshot is written: schema key order, 2-space indentation, final newline. */
export function serializeSnapshot(dataset: Dataset, snapshot: Snapshot): string {
  const canonical = dataset.schemas.snapshot.parse(snapshot);
  return `${JSON.stringify(canonical, null, 2)}\n`;
}

export async function writeSnapshot(dir: string, dataset: Dataset, snapshot: Snapshot): Promise<string> {
  const file = snapshotPath(dir, dataset, snapshot.lastUpdated.slice(0, 10));
  await writeFileAtomic(file, serializeSnapshot(dataset, snapshot));
  return file;
}
