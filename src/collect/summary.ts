/**
 * A change summary a person can review: institutions and products added or removed, and every
 * value that moved (`ANZ · Special · 1 year: 4.79 → 4.69`). Used as the commit message body.
 */
import { type Dataset, type Entity, itemsOf } from '../datasets.ts';
import { diffSnapshots, type Value } from '../snapshots/diff.ts';

const show = (value: Value | undefined) => (value === null || value === undefined ? '—' : String(value));

export interface DatasetChanges {
  lines: string[];
  /** Values that moved, appeared or disappeared. */
  moves: number;
}

export function describeChanges(
  dataset: Dataset,
  before: readonly Entity[] | undefined,
  after: readonly Entity[],
): DatasetChanges {
  if (!before) {
    const count = after.reduce((n, e) => n + itemsOf(e).length, 0);
    return {
      lines: [`- First snapshot: ${after.length} ${dataset.entity.kind}s, ${count} ${dataset.itemsKey}.`],
      moves: 0,
    };
  }
  const diff = diffSnapshots(before, after);
  const lines: string[] = [];
  if (diff.entitiesAdded.length)
    lines.push(`- ${dataset.entity.label}s added: ${diff.entitiesAdded.map((e) => e.name).join(', ')}`);
  if (diff.entitiesRemoved.length)
    lines.push(`- ${dataset.entity.label}s removed: ${diff.entitiesRemoved.map((e) => e.name).join(', ')}`);
  // Grouped per entity as the page lists them: added and removed items, then values.
  for (const entity of after) {
    for (const { item } of diff.itemsAdded.filter((a) => a.entity === entity))
      lines.push(`- Added: ${entity.name} · ${item.name}`);
    for (const { item } of diff.itemsRemoved.filter((r) => r.entity.id === entity.id))
      lines.push(`- Removed: ${entity.name} · ${item.name}`);
    for (const move of diff.moves.filter((m) => m.entity === entity)) {
      const label = `${entity.name} · ${move.item.name || '(unnamed)'} · ${move.what}`;
      if (move.from === undefined) lines.push(`- ${label}: new, ${show(move.to)}`);
      else if (move.to === undefined) lines.push(`- ${label}: ${show(move.from)}, no longer listed`);
      else lines.push(`- ${label}: ${show(move.from)} → ${show(move.to)}`);
    }
  }
  // A 0 read where the history held null (its zeros were saved as null) is no change (src/snapshots/diff.ts).
  if (lines.length === 0) lines.push('- No value moved: only names, order, or a 0 where the history had no value.');
  return { lines, moves: diff.moves.length };
}

export interface ChangedDataset {
  dataset: Dataset;
  file: string;
  changes: DatasetChanges;
  /** Cells of the page that could not be read (left out of the snapshot): a reviewer should see them. */
  unreadable?: readonly string[];
}

/** Unreadable cells listed in a summary section; the rest are counted. */
const UNREADABLE_LISTED = 20;

function unreadableLines(cells: readonly string[] = []): string[] {
  if (cells.length === 0) return [];
  const more = cells.length > UNREADABLE_LISTED ? [`- … and ${cells.length - UNREADABLE_LISTED} more`] : [];
  return [
    '',
    `Unreadable cells (${cells.length}, left out):`,
    '',
    ...cells.slice(0, UNREADABLE_LISTED).map((cell) => `- ${cell}`),
    ...more,
  ];
}

/** The whole summary: a subject line, a blank line, then a section per changed dataset. */
export function summaryMarkdown(changed: ChangedDataset[], date: string): string {
  const subject = `Rates ${date}: ${changed.map((c) => `${c.dataset.label} (${c.changes.moves} moved)`).join(', ')}`;
  const sections = changed.map(
    (c) => `### ${c.dataset.title} — ${c.file}\n\n${[...c.changes.lines, ...unreadableLines(c.unreadable)].join('\n')}`,
  );
  return `${subject}\n\n${sections.join('\n\n')}\n`;
}
