/**
 * A change summary a person can review: institutions and products added or removed, and every
 * value that moved, in the change log's words (`ANZ · Special · 1 year: down 10 bps, 4.79 → 4.69`,
 * `…: new, 4.99`, `…: gone, was 5.10`: src/changes/movement.ts), and a lender that looks renamed
 * (possibleRenames). Used as the commit message body.
 */
import { movementLine, movementOf } from '../changes/movement.ts';
import { valueKindOf } from '../changes/schema.ts';
import { type Dataset, type Entity, itemsOf } from '../datasets.ts';
import { listInWords } from '../lib/words.ts';
import { diffSnapshots } from '../snapshots/diff.ts';
import type { Value } from '../schemas/corrections.ts';

const show = (value: Value) => (value === null ? '—' : String(value));

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
  lines.push(...possibleRenames(dataset, diff.entitiesRemoved, diff.entitiesAdded));
  // Grouped per entity as the page lists them: added and removed items, then values.
  for (const entity of after) {
    for (const { item } of diff.itemsAdded.filter((a) => a.entity === entity))
      lines.push(`- Added: ${entity.name} · ${item.name}`);
    for (const { item } of diff.itemsRemoved.filter((r) => r.entity.id === entity.id))
      lines.push(`- Removed: ${entity.name} · ${item.name}`);
    for (const move of diff.moves.filter((m) => m.entity === entity)) {
      const label = `${entity.name} · ${move.item.name || '(unnamed)'} · ${move.what}`;
      const movement = movementOf(valueKindOf(dataset, move.id), move.from, move.to);
      const [from, to] = [move.from, move.to].map((v) => (v === undefined ? undefined : show(v)));
      lines.push(`- ${label}: ${movementLine(movement, from, to)}`);
    }
  }
  // A 0 read where the history held null (its zeros were saved as null) is no change (src/snapshots/diff.ts).
  if (lines.length === 0) lines.push('- No value moved: only names, order, or a 0 where the history had no value.');
  return { lines, moves: diff.moves.length };
}

/**
 * What an entity lists, whatever its dataset, with every id left out (ids carry the entity's slug,
 * which a rename changes): its items' names and values, items and rates in any order, and 0 the
 * same as null (as sameValue has it: the history holds null where the page says 0).
 */
function listing(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(listing).sort().join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).filter(([key]) => key !== 'id');
    return `{${fields
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, v]) => `${JSON.stringify(key)}:${listing(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value === 0 ? null : value);
}

/** Page text in a TypeScript string literal, single-quoted as page-spellings.ts writes them. */
const tsString = (text: string) =>
  `'${JSON.stringify(text).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;

/**
 * An entity gone and one new that list exactly the same items and values, at least one: possibly
 * a lender the page relabelled, which keeps its history only through an alias (page-spellings.ts).
 * Suggested only when the match is one to one; when several gone or new entities list the same,
 * they are named without a suggestion, since the values cannot tell which is which.
 */
function possibleRenames(dataset: Dataset, removed: readonly Entity[], added: readonly Entity[]): string[] {
  const byListing = new Map<string, { gone: Entity[]; new: Entity[] }>();
  const group = (entity: Entity) => {
    const key = listing(itemsOf(entity));
    let found = byListing.get(key);
    if (!found) byListing.set(key, (found = { gone: [], new: [] }));
    return found;
  };
  for (const entity of removed) if (itemsOf(entity).length) group(entity).gone.push(entity);
  for (const entity of added) if (itemsOf(entity).length) group(entity).new.push(entity);
  const lines: string[] = [];
  for (const { gone, new: appeared } of byListing.values()) {
    if (!gone.length || !appeared.length) continue;
    const count = itemsOf(gone[0]!).length;
    const items = `${count} ${count === 1 ? dataset.itemsKey.slice(0, -1) : dataset.itemsKey}`;
    const names = (entities: Entity[]) => listInWords(entities.map((e) => JSON.stringify(e.name)));
    if (gone.length > 1 || appeared.length > 1) {
      lines.push(
        `- Possible renames, none suggested: ${names(gone)} gone and ${names(appeared)} new each list the same ${items} with the same values, so the values cannot tell which is which.`,
      );
      continue;
    }
    const [old, now] = [gone[0]!, appeared[0]!];
    const evidence = `${dataset.label} page label; listed the same ${items} and values as the history's "${old.name}"`;
    lines.push(
      `- Possible rename: ${names([old])} is gone and ${names([now])} is new, listing the same ${items} with the same values. ` +
        `If it is the same ${dataset.entity.kind}, this line in src/collect/page-spellings.ts (INSTITUTION_ALIASES) joins them: ` +
        `{ label: ${tsString(now.name)}, name: ${tsString(old.name)}, evidence: ${tsString(evidence)} },`,
    );
  }
  return lines;
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

/** A dataset whose links file recorded new or moved websites (collect/links.ts): no rate moved for them. */
export interface LinkedDataset {
  dataset: Dataset;
  ids: readonly string[];
}

/**
 * The whole summary: a subject line, a blank line, then a section per changed dataset, and one
 * for websites recorded. A run that moved only websites says so in its subject, never "Rates".
 */
export function summaryMarkdown(changed: ChangedDataset[], date: string, linked: LinkedDataset[] = []): string {
  const subject =
    changed.length > 0
      ? `Rates ${date}: ${changed.map((c) => `${c.dataset.label} (${c.changes.moves} moved)`).join(', ')}`
      : `Lender websites ${date}: ${linked.map((l) => `${l.dataset.label} (${l.ids.length})`).join(', ')}; no rate moved`;
  const sections = changed.map(
    (c) => `### ${c.dataset.title} — ${c.file}\n\n${[...c.changes.lines, ...unreadableLines(c.unreadable)].join('\n')}`,
  );
  if (linked.length > 0)
    sections.push(
      `### Websites recorded (links.json, not a rate change)\n\n${linked.map((l) => `- ${l.dataset.title}: ${l.ids.join(', ')}`).join('\n')}`,
    );
  return `${subject}\n\n${sections.join('\n\n')}\n`;
}
