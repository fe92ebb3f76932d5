/**
 * A change summary a person can review: institutions and products added or removed, and every
 * value that moved (`ANZ · Special · 1 year: 4.79 → 4.69`). Used as the commit message body.
 */
import type { Dataset, Entity } from '../datasets.ts';

type Value = number | string | null;
interface Point {
  label: string;
  value: Value;
}
type Item = { id: string; name: string } & Record<string, unknown>;

const humanize = (field: string) => field.replace(/NZD$/, '').replace(/([A-Z])/g, ' $1').toLowerCase().trim();

/** Every value of an item, keyed by a stable id: its rates, or (credit cards) its fields. */
function pointsOf(entity: Entity, item: Item): Map<string, Point> {
  const points = new Map<string, Point>();
  const prefix = `${entity.name} · ${item.name || '(unnamed)'}`;
  if (Array.isArray(item.rates)) {
    for (const rate of item.rates as Record<string, Value>[]) {
      const what = (rate.term as string | undefined) ?? ([rate.plan, rate.condition].filter(Boolean).join(' ') || 'rate');
      points.set(String(rate.id), { label: `${prefix} · ${what}`, value: rate.rate ?? null });
    }
  } else {
    for (const [field, value] of Object.entries(item)) {
      if (field !== 'id' && field !== 'name') points.set(`${item.id}#${field}`, { label: `${prefix} · ${humanize(field)}`, value: value as Value });
    }
  }
  return points;
}

const show = (value: Value) => (value === null ? '—' : String(value));

export interface DatasetChanges {
  lines: string[];
  /** Values that moved, appeared or disappeared. */
  moves: number;
}

export function describeChanges(dataset: Dataset, before: readonly Entity[] | undefined, after: readonly Entity[]): DatasetChanges {
  const items = (e: Entity) => e[dataset.itemsKey] as Item[];
  if (!before) {
    const count = after.reduce((n, e) => n + items(e).length, 0);
    return { lines: [`- First snapshot: ${after.length} ${dataset.entity.kind}s, ${count} ${dataset.itemsKey}.`], moves: 0 };
  }
  const lines: string[] = [];
  let moves = 0;
  const old = new Map(before.map((e) => [e.id, e]));
  const now = new Map(after.map((e) => [e.id, e]));
  const added = after.filter((e) => !old.has(e.id)).map((e) => e.name);
  const removed = before.filter((e) => !now.has(e.id)).map((e) => e.name);
  if (added.length) lines.push(`- ${dataset.entity.label}s added: ${added.join(', ')}`);
  if (removed.length) lines.push(`- ${dataset.entity.label}s removed: ${removed.join(', ')}`);

  for (const entity of after) {
    const previous = old.get(entity.id);
    if (!previous) continue;
    const oldItems = new Map(items(previous).map((i) => [i.id, i]));
    const newItems = new Map(items(entity).map((i) => [i.id, i]));
    for (const item of items(entity)) if (!oldItems.has(item.id)) lines.push(`- Added: ${entity.name} · ${item.name}`);
    for (const item of items(previous)) if (!newItems.has(item.id)) lines.push(`- Removed: ${entity.name} · ${item.name}`);
    for (const item of items(entity)) {
      const was = oldItems.get(item.id);
      if (!was) continue;
      const a = pointsOf(previous, was);
      const b = pointsOf(entity, item);
      for (const [key, point] of b) {
        const prior = a.get(key);
        if (!prior) {
          lines.push(`- ${point.label}: new, ${show(point.value)}`);
          moves++;
        } else if (prior.value !== point.value) {
          lines.push(`- ${point.label}: ${show(prior.value)} → ${show(point.value)}`);
          moves++;
        }
      }
      for (const [key, point] of a) {
        if (!b.has(key)) {
          lines.push(`- ${point.label}: ${show(point.value)}, no longer listed`);
          moves++;
        }
      }
    }
  }
  if (lines.length === 0) lines.push('- Names or order changed; no value moved.');
  return { lines, moves };
}

export interface ChangedDataset {
  dataset: Dataset;
  file: string;
  changes: DatasetChanges;
}

/** The whole summary: a subject line, a blank line, then a section per changed dataset. */
export function summaryMarkdown(changed: ChangedDataset[], date: string): string {
  const subject = `Rates ${date}: ${changed.map((c) => `${c.dataset.label} (${c.changes.moves} moved)`).join(', ')}`;
  const sections = changed.map((c) => `### ${c.dataset.title} — ${c.file}\n\n${c.changes.lines.join('\n')}`);
  return `${subject}\n\n${sections.join('\n\n')}\n`;
}
