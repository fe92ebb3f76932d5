/**
 * Refuse a collection that looks wrong rather than save it over good data. The schema refuses
 * what the build would (every number within its bounds, clean names); these rules look at the
 * collection as a whole: a page with no table or no rates and the page's unreadable cells (names
 * are names.ts's); and against the
 * snapshots before it: the identity of the lenders, its size, repeated rows, how far a value may
 * move, two names made one id. Those are checked against the newest snapshot and also against the
 * newest snapshot of an earlier UTC date, which no run of today can move: several runs in a day
 * go no further than one. Each refusal names its rule and the evidence (/docs/collection says
 * what a maintainer does then).
 */
import { type Entity, itemsOf, type Snapshot } from '../datasets.ts';

export const GUARD_LIMITS = {
  /** Of the newest snapshot's institutions, and of its institutions and rates in number, the share a page must keep (COLLECT_MIN_RATIO). */
  minRatio: 0.5,
  /** A page may list at most this many times the newest snapshot's institutions or rates. */
  maxGrowth: 1.5,
  /** Percentage points a rate (not a balance-transfer promotion) may move in one run, and in one day (from the newest snapshot of an earlier date). */
  maxRateMove: 5,
  /** The share of items that may repeat another item's name within their institution, when the newest snapshot had fewer. */
  maxRepeatedShare: 0.1,
  /**
   * The most of a page's non-empty value cells that may be unreadable: one odd cell ("call us") is
   * a warning, a column whose format changed (every cell unreadable) is a refusal.
   */
  maxUnreadableShare: 0.02,
} as const;

export const MAX_UNREADABLE_SHARE = GUARD_LIMITS.maxUnreadableShare;

const refused = (rule: string, evidence: string) => `refused (${rule}): ${evidence}`;
const percent = (share: number) => `${Math.round(share * 100)} %`;
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

/** Names the page gave one id (after the alias table): only the alias table may make two names one institution. */
function namesMadeOne(listed: readonly Entity[], previous?: Snapshot): string[] {
  const names = new Map<string, Set<string>>();
  for (const entity of [...(previous?.data ?? []), ...listed]) {
    let seen = names.get(entity.id);
    if (!seen) names.set(entity.id, (seen = new Set()));
    seen.add(entity.name);
  }
  return [...names]
    .filter(([, seen]) => seen.size > 1)
    .map(([id, seen]) => `${id}: ${[...seen].map((n) => `"${n}"`).join(' and ')}`);
}

/** Items that repeat another item's name within their institution. */
function repeatedItems(data: readonly Entity[]): number {
  let repeated = 0;
  for (const entity of data) {
    const names = itemsOf(entity).map((item) => item.name);
    repeated += names.length - new Set(names).size;
  }
  return repeated;
}

/**
 * Rates both snapshots hold (by id) that moved further than a run allows. How many move is not
 * limited: after an official cash rate decision most lenders reprice within hours.
 */
function farMoves(data: readonly Entity[], previous: Snapshot, maxRateMove: number): string[] {
  const before = new Map(rateValues(previous.data).map((r) => [r.path, r.value]));
  return rateValues(data).flatMap((r) => {
    const was = before.get(r.path);
    // Balance-transfer rates are promotions that start and end (0 ↔ 19.95 is real): their bounds are the schema's.
    if (was === undefined || r.key === 'balanceTransferRate' || Math.abs(r.value - was) <= maxRateMove) return [];
    return [`${r.path} ${was} → ${r.value}`];
  });
}

export interface GuardInput {
  tableCount: number;
  /** The collection, merged and with unique ids: what would be saved. */
  data: readonly Entity[];
  /** The entities as the page listed them, before an institution listed in several sections became one. */
  listed: readonly Entity[];
  /** The newest snapshot. */
  previous?: Snapshot;
  /**
   * The newest snapshot of a UTC date before this run's, when the newest is of this run's date:
   * the state today's runs cannot move, checked as the newest is.
   */
  earlier?: Snapshot;
  /** Refuse below this share of the newest snapshot's institutions, by identity and in number (GUARD_LIMITS.minRatio). */
  minRatio: number;
  /** Percentage points a rate may move in a run or a day (GUARD_LIMITS.maxRateMove unless a maintainer lifts it). */
  maxRateMove?: number;
}

/** The reason to refuse this collection, or null when it may be saved. */
export function refusalReason({
  tableCount,
  data,
  listed,
  previous,
  earlier,
  minRatio,
  maxRateMove = GUARD_LIMITS.maxRateMove,
}: GuardInput): string | null {
  if (tableCount === 0) return refused('no rate table', 'the layout changed, or this is not the rates page');
  const rates = rateValues(data);
  if (rates.length === 0) return refused('no rates', 'the page yielded no rates');
  const baselines: Baseline[] = [];
  if (previous) baselines.push({ snapshot: previous, name: 'the newest snapshot', span: 'run' });
  if (earlier && earlier !== previous)
    baselines.push({ snapshot: earlier, name: `the ${earlier.lastUpdated.slice(0, 10)} snapshot`, span: 'day' });
  if (baselines.length === 0) {
    const madeOne = namesMadeOne(listed);
    return madeOne.length > 0
      ? refused('two names, one id (only the alias table may join names)', some(madeOne))
      : null;
  }
  for (const baseline of baselines) {
    const reason = againstBaseline({ data, listed, rates, minRatio, maxRateMove }, baseline);
    if (reason) return reason;
  }
  return null;
}

/** A snapshot a collection is compared with: its words in messages, and what a move from it spans. */
interface Baseline {
  snapshot: Snapshot;
  /** "the newest snapshot", or "the 2026-11-20 snapshot" (the newest of an earlier day). */
  name: string;
  span: 'run' | 'day';
}

/** The rules that compare a collection with a snapshot before it. */
function againstBaseline(
  {
    data,
    listed,
    rates,
    minRatio,
    maxRateMove,
  }: Pick<GuardInput, 'data' | 'listed' | 'minRatio'> & { rates: unknown[]; maxRateMove: number },
  { snapshot: previous, name, span }: Baseline,
): string | null {
  const label = span === 'run' ? name : `${name} (the newest of an earlier day)`;
  const madeOne = namesMadeOne(listed, previous);
  if (madeOne.length > 0) return refused('two names, one id (only the alias table may join names)', some(madeOne));
  const before = { institutions: previous.data.length, rates: rateValues(previous.data).length };
  const now = { institutions: data.length, rates: rates.length };
  for (const what of ['institutions', 'rates'] as const) {
    if (now[what] < before[what] * minRatio) {
      return refused(
        'shrink',
        `only ${now[what]} ${what} where ${label} has ${before[what]} (below ${percent(minRatio)})`,
      );
    }
    if (now[what] > before[what] * GUARD_LIMITS.maxGrowth) {
      return refused(
        'growth',
        `${now[what]} ${what} where ${label} has ${before[what]} (above ${percent(GUARD_LIMITS.maxGrowth)})`,
      );
    }
  }
  const ids = new Set(data.map((e) => e.id));
  const kept = previous.data.filter((e) => ids.has(e.id));
  if (kept.length < before.institutions * minRatio) {
    const gone = previous.data.filter((e) => !ids.has(e.id)).map((e) => e.name);
    return refused(
      'other lenders',
      `only ${kept.length} of ${name}'s ${before.institutions} institutions are listed (below ${percent(minRatio)}); missing ${some(gone)}`,
    );
  }
  const [repeatedNow, repeatedBefore] = [repeatedItems(data), repeatedItems(previous.data)];
  const items = data.reduce((n, e) => n + itemsOf(e).length, 0);
  if (repeatedNow > repeatedBefore && repeatedNow > items * GUARD_LIMITS.maxRepeatedShare) {
    return refused(
      'repeated rows',
      `${repeatedNow} of ${items} items repeat another item's name within their institution, where ${label} had ${repeatedBefore}`,
    );
  }
  const far = farMoves(data, previous, maxRateMove);
  if (far.length > 0) {
    const evidence = span === 'run' ? some(far) : `from ${label}: ${some(far)}`;
    return refused(`a rate moved more than ${maxRateMove} percentage points in one ${span}`, evidence);
  }
  return null;
}
