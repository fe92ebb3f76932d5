/**
 * Refuse a collection that looks wrong rather than save it over good data. The schema refuses
 * what the build would (every number within its bounds, clean names); these rules look at the
 * collection as a whole: a page with no table or no rates, and the page's unreadable cells (names
 * and slugs are names.ts's); and against the snapshots before it (anchors.ts): the identity of the lenders, its size, repeated rows, how far
 * a value may move, two names made one id, a rename. Those hold against the newest snapshot, the
 * newest at least 24 hours old and the newest at least seven days old. Each refusal names its
 * rule and the evidence (/docs/collection says what a maintainer does then).
 */
import type { Entity, Snapshot } from '../datasets.ts';
import { ANCHOR_LIMITS, type Anchor, anchoredRefusal, namesMadeOne } from './anchors.ts';

export const GUARD_LIMITS = {
  /** The limits held against the snapshots before (anchors.ts): minRatio, maxGrowth, the moves, repeated rows, a rename. */
  ...ANCHOR_LIMITS,
  /**
   * The most of a page's non-empty value cells that may be unreadable: one odd cell ("call us") is
   * a warning, a column whose format changed (every cell unreadable) is a refusal.
   */
  maxUnreadableShare: 0.02,
} as const;

export const MAX_UNREADABLE_SHARE = GUARD_LIMITS.maxUnreadableShare;

const refused = (rule: string, evidence: string) => `refused (${rule}): ${evidence}`;
/** A few examples of what a rule found, for its message. */
const some = (found: readonly string[]) =>
  `${found.slice(0, 3).join('; ')}${found.length > 3 ? `; … ${found.length} in all` : ''}`;

/** The reason to refuse a page for its unreadable cells, or null. */
export function unreadableRefusal(cells: { read: number; unreadable: readonly string[] }): string | null {
  const share = cells.read === 0 ? 0 : cells.unreadable.length / cells.read;
  if (share <= MAX_UNREADABLE_SHARE) return null;
  return refused(
    'too many unreadable cells',
    `${cells.unreadable.length} of ${cells.read} non-empty value cells (${(share * 100).toFixed(1)} %, at most ${MAX_UNREADABLE_SHARE * 100} %), first ${cells.unreadable.slice(0, 3).join('; ')}`,
  );
}

/** Every rate value in a dataset: `rate` fields, and credit cards' `…Rate` fields, by the id that holds them. */
export function rateValues(data: readonly Entity[]): { path: string; key: string; value: number }[] {
  const found: { path: string; key: string; value: number }[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) for (const v of value) walk(v, path);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const here = typeof record.id === 'string' ? record.id : path;
      for (const [key, child] of Object.entries(record)) {
        if ((key === 'rate' || key.endsWith('Rate')) && typeof child === 'number')
          found.push({ path: `${here} ${key}`, key, value: child });
        else if (typeof child === 'object') walk(child, here);
      }
    }
  };
  walk(data, '');
  return found;
}

export interface GuardInput {
  tableCount: number;
  /** The collection, merged and with unique ids: what would be saved. */
  data: readonly Entity[];
  /** The entities as the page listed them, before an institution listed in several sections became one. */
  listed: readonly Entity[];
  /** The newest snapshot. */
  previous?: Snapshot;
  /** The newest snapshot at least 24 hours old, and the newest at least seven days old (the trusted state); `standIn` when none was that old and the oldest stands in. */
  day?: { snapshot: Snapshot; standIn: boolean };
  week?: { snapshot: Snapshot; standIn: boolean };
  /** Refuse below this share of an anchor's institutions, by identity and in number (GUARD_LIMITS.minRatio). */
  minRatio: number;
  /** Percentage points a rate may move from each anchor (GUARD_LIMITS.maxRateMove unless a maintainer lifts it; the fee and period limits follow in proportion). */
  maxRateMove?: number;
}

/** The reason to refuse this collection, or null when it may be saved. */
export function refusalReason({
  tableCount,
  data,
  listed,
  previous,
  day,
  week,
  minRatio,
  maxRateMove = GUARD_LIMITS.maxRateMove,
}: GuardInput): string | null {
  if (tableCount === 0) return refused('no rate table', 'the layout changed, or this is not the rates page');
  const rates = rateValues(data);
  if (rates.length === 0) return refused('no rates', 'the page yielded no rates');
  if (!previous) {
    const madeOne = namesMadeOne(listed);
    return madeOne.length > 0
      ? refused('two names, one id (only the alias table may join names)', some(madeOne))
      : null;
  }
  // One snapshot in several roles is held against once, in its first: the newest, then the day's, then the week's.
  const anchors: Anchor[] = [{ snapshot: previous, role: 'newest' }];
  for (const [role, window] of [
    ['day', day],
    ['week', week],
  ] as const)
    if (window && !anchors.some((a) => a.snapshot.lastUpdated === window.snapshot.lastUpdated))
      anchors.push({ snapshot: window.snapshot, role, standIn: window.standIn });
  const trusted =
    anchors.find((a) => a.snapshot.lastUpdated === (week ?? day)?.snapshot.lastUpdated) ?? anchors.at(-1)!;
  return anchoredRefusal({ data, listed, anchors, trusted: trusted.snapshot, minRatio, maxRateMove });
}
