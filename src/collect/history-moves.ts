/**
 * The history's own largest real moves, the figures the guards' limits are chosen from
 * (guards.ts) and the collection docs page prints: between one snapshot and the next, and within
 * 24 hours and seven days, measured as the guards measure them (moves.ts). Computed from the
 * repository's snapshots up to HISTORY_MOVES_UNTIL by historyFigures; test/collect-moves.test.ts
 * computes them again from the test history and holds HISTORY_MOVES to them.
 */
import type { Entity, Snapshot } from '../datasets.ts';
import { type MeasureKind, measuresOf, movesBetween, newIdShare } from './moves.ts';

/** The pairs of snapshots a figure is the largest over: each with the next, or any two at most a day or a week apart. */
export const WINDOWS = {
  consecutive: { words: 'between one snapshot and the next', ms: Number.POSITIVE_INFINITY },
  day: { words: 'within 24 hours', ms: 24 * 3600_000 },
  week: { words: 'within seven days', ms: 7 * 24 * 3600_000 },
} as const;
export type Window = keyof typeof WINDOWS;

/** A figure and where the history shows it (`rate:… rate 3.75 → 6.7, 2024-08-30 → 2024-09-02`), or null where it shows nothing. */
export interface Figure {
  value: number;
  where: string | null;
}

export interface WindowFigures {
  /** The largest move of a rate (balance-transfer promotions aside), in percentage points. */
  rate: Figure;
  /** The largest move of an annual fee, in dollars. */
  fee: Figure;
  /** The largest move of an interest-free period, in days. */
  days: Figure;
  /** The smallest share of an earlier snapshot's lenders (by id) a later one kept. */
  kept: Figure;
  /** The largest ratio of a later snapshot's institutions or rates to an earlier one's. */
  growth: Figure;
  /** The largest share of new product, plan and rate ids among the lenders both list. */
  newIds: Figure;
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const date = (s: Snapshot) => s.lastUpdated.slice(0, 10);
/** How many rates a data set lists (each mortgage or loan rate, each card rate), as the growth guard counts them. */
const rates = (data: readonly Entity[]) =>
  [...measuresOf(data).values()].reduce(
    (n, m) => n + (m.kind === 'rate' || m.kind === 'promotion' ? m.values.length : 0),
    0,
  );

/** Each window's figures over the datasets' histories (each dataset's snapshots, any order). */
export function historyFigures(histories: Record<string, readonly Snapshot[]>): Record<Window, WindowFigures> {
  const figures = {} as Record<Window, WindowFigures>;
  for (const [window, { ms }] of Object.entries(WINDOWS) as [Window, (typeof WINDOWS)[Window]][]) {
    const none = (value: number): Figure => ({ value, where: null });
    const found: WindowFigures = {
      rate: none(0),
      fee: none(0),
      days: none(0),
      kept: none(1),
      growth: none(1),
      newIds: none(0),
    };
    const larger = (key: keyof WindowFigures, value: number, where: string, smaller = false) => {
      if (smaller ? value < found[key].value : value > found[key].value) found[key] = { value: round(value), where };
    };
    for (const history of Object.values(histories)) {
      const sorted = [...history].sort((a, b) => a.lastUpdated.localeCompare(b.lastUpdated));
      sorted.forEach((after, j) => {
        for (let i = j - 1; i >= 0; i--) {
          const before = sorted[i]!;
          const apart = Date.parse(after.lastUpdated) - Date.parse(before.lastUpdated);
          if (window === 'consecutive' ? i < j - 1 : apart > ms) break;
          const dates = `${date(before)} → ${date(after)}`;
          const moves = movesBetween(measuresOf(before.data), measuresOf(after.data));
          for (const kind of ['rate', 'fee', 'days'] as const satisfies readonly MeasureKind[])
            for (const m of moves.filter((m) => m.kind === kind))
              larger(kind, m.distance, `${m.id} ${m.key} ${m.from} → ${m.to}, ${dates}`);
          const ids = new Set(after.data.map((e) => e.id));
          const kept = before.data.filter((e) => ids.has(e.id)).length;
          larger('kept', kept / before.data.length, `${kept} of ${before.data.length} lenders, ${dates}`, true);
          for (const [what, count] of [
            ['institutions', (d: readonly Entity[]) => d.length],
            ['rates', rates],
          ] as const) {
            const [was, is] = [count(before.data), count(after.data)];
            larger('growth', is / was, `${was} → ${is} ${what}, ${dates}`);
          }
          const fresh = newIdShare(before.data, after.data);
          larger('newIds', fresh.share, `${fresh.fresh.length} of ${fresh.total} ids, ${dates}`);
        }
      });
    }
    figures[window] = found;
  }
  return figures;
}

/** The last date of the history HISTORY_MOVES is computed from (the tests' history, HISTORY_UNTIL). */
export const HISTORY_MOVES_UNTIL = '2025-03-05';

/** historyFigures of the repository's snapshots up to HISTORY_MOVES_UNTIL. */
export const HISTORY_MOVES: Record<Window, WindowFigures> = {
  consecutive: {
    rate: { value: 6.7, where: 'plan:the-warehouse:purple-visa purchaseRate 19.95 → 26.65, 2024-03-03 → 2024-03-13' },
    fee: { value: 105, where: 'plan:westpac:hotpoints-world annualFeeNZD 390 → 285, 2024-06-11 → 2024-07-08' },
    days: { value: 0, where: null },
    kept: { value: 0.912, where: '31 of 34 lenders, 2024-12-09 → 2024-12-11' },
    growth: { value: 1.073, where: '96 → 103 rates, 2024-12-11 → 2024-12-12' },
    newIds: { value: 0.051, where: '16 of 311 ids, 2024-02-23 → 2024-02-25' },
  },
  day: {
    rate: {
      value: 1.25,
      where: 'rate:first-mortgage-trust:residential-from:variable-floating rate 8 → 9.25, 2024-07-21 → 2024-07-22',
    },
    fee: { value: 0, where: null },
    days: { value: 0, where: null },
    kept: { value: 0.971, where: '33 of 34 lenders, 2025-01-06 → 2025-01-07' },
    growth: { value: 1.03, where: '33 → 34 institutions, 2024-09-01 → 2024-09-02' },
    newIds: { value: 0.03, where: '9 of 305 ids, 2024-08-19 → 2024-08-20' },
  },
  week: {
    rate: {
      value: 5.26,
      where: 'rate:finance-direct:personal-loan:secured:from rate 6.69 → 11.95, 2024-08-20 → 2024-08-26',
    },
    fee: { value: 0, where: null },
    days: { value: 0, where: null },
    kept: { value: 0.909, where: '30 of 33 lenders, 2024-12-08 → 2024-12-11' },
    growth: { value: 1.073, where: '96 → 103 rates, 2024-12-11 → 2024-12-12' },
    newIds: { value: 0.059, where: '18 of 303 ids, 2024-08-18 → 2024-08-23' },
  },
};
