/**
 * Refuse a collection that looks wrong rather than saving it over good data: no table, no
 * rates, a large shrink against the newest snapshot, or a rate outside 0–40 %.
 */
import type { Entity, Snapshot } from '../datasets.ts';

export const RATE_RANGE = { min: 0, max: 40 } as const;

/**
 * The most of a page's non-empty value cells that may be unreadable: one odd cell ("call us") is a
 * warning, a column whose format changed (every cell unreadable) is a refusal.
 */
export const MAX_UNREADABLE_SHARE = 0.02;

/** The reason to refuse a page for its unreadable cells, or null. */
export function unreadableRefusal(cells: { read: number; unreadable: readonly string[] }): string | null {
  const share = cells.read === 0 ? 0 : cells.unreadable.length / cells.read;
  if (share <= MAX_UNREADABLE_SHARE) return null;
  return (
    `refused (too many unreadable cells): ${cells.unreadable.length} of ${cells.read} non-empty value cells ` +
    `(${(share * 100).toFixed(1)} %, at most ${MAX_UNREADABLE_SHARE * 100} %), first ${cells.unreadable.slice(0, 3).join('; ')}`
  );
}

/** Every rate value in a dataset: `rate` fields, and credit cards' `…Rate` fields. */
export function rateValues(data: readonly Entity[]): { path: string; value: number }[] {
  const found: { path: string; value: number }[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) for (const v of value) walk(v, path);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const here = typeof record.id === 'string' ? record.id : path;
      for (const [key, child] of Object.entries(record)) {
        if ((key === 'rate' || key.endsWith('Rate')) && typeof child === 'number')
          found.push({ path: `${here} ${key}`, value: child });
        else if (typeof child === 'object') walk(child, here);
      }
    }
  };
  walk(data, '');
  return found;
}

export interface GuardInput {
  tableCount: number;
  data: readonly Entity[];
  previous?: Snapshot;
  /** Refuse when institutions or rates fall below this share of the newest snapshot's. */
  minRatio: number;
}

/** The reason to refuse this collection, or null when it may be saved. */
export function refusalReason({ tableCount, data, previous, minRatio }: GuardInput): string | null {
  if (tableCount === 0) return 'the page has no rate table (layout changed, or not the rates page)';
  const rates = rateValues(data);
  if (rates.length === 0) return 'the page yielded no rates';
  const outside = rates.filter((r) => r.value < RATE_RANGE.min || r.value > RATE_RANGE.max);
  if (outside.length > 0) {
    const shown = outside
      .slice(0, 3)
      .map((r) => `${r.path} = ${r.value}`)
      .join(', ');
    return `${outside.length} rate(s) outside ${RATE_RANGE.min}–${RATE_RANGE.max} %: ${shown}`;
  }
  if (previous) {
    const before = { institutions: previous.data.length, rates: rateValues(previous.data).length };
    const now = { institutions: data.length, rates: rates.length };
    for (const what of ['institutions', 'rates'] as const) {
      if (now[what] < before[what] * minRatio) {
        return `only ${now[what]} ${what} where the newest snapshot has ${before[what]} (below ${Math.round(minRatio * 100)} %)`;
      }
    }
  }
  return null;
}
