/**
 * The rules that hold a collection against the snapshots before it, and those snapshots: the
 * newest, the newest at least 24 hours old and the newest at least seven days old (the trusted
 * state), the oldest standing in where none is that old. Every rule holds against each, with one
 * run's limits, so no sequence of runs, across days or midnight, takes a value or the list of
 * lenders further from the state of a day or a week before than one run may. Against the older
 * two only what the page changes from the newest is judged (what the newest holds was judged when
 * it was collected, a maintainer's lifted limit included); and a page that breaks a limit of a
 * newer snapshot but comes back toward the trusted state, within one run's limits of it, is
 * accepted, so after a walk the real page is collected on its next run.
 */
import { type Entity, itemsOf, type Snapshot } from '../datasets.ts';
import { HISTORY_MOVES } from './history-moves.ts';
import {
  holds,
  type MeasureKind,
  type Measures,
  measuresOf,
  movesBetween,
  nearest,
  newIdShare,
  valuesNotKept,
} from './moves.ts';

/**
 * A limit chosen from the history's largest real move: that move times a margin, never below a
 * floor. Twice the largest fee move ($105) is still a repricing, while a page writing cents as
 * dollars moves a fee by thousands; the floor keeps a limit where the history shows no move, as for
 * interest-free periods, which move between values like 44 and 55 days (a period 100 days longer
 * is no repricing).
 */
export const FEE_MOVE = { margin: 2, floor: 100 } as const;
export const DAYS_MOVE = { margin: 2, floor: 30 } as const;
const largest = (kind: 'fee' | 'days') => Math.max(...Object.values(HISTORY_MOVES).map((w) => w[kind].value));

export const ANCHOR_LIMITS = {
  /** Of an anchor's institutions, and of its institutions and rates in number, the share a page must keep (COLLECT_MIN_RATIO). */
  minRatio: 0.5,
  /** A page may list at most this many times an anchor's institutions or rates. */
  maxGrowth: 1.5,
  /** Percentage points a rate (not a balance-transfer promotion) may be from the nearest its lender had for the measure (COLLECT_MAX_RATE_MOVE). */
  maxRateMove: 5,
  /** Dollars an annual fee may move: the history's largest real fee move times the margin, at least the floor. */
  maxFeeMove: Math.max(largest('fee') * FEE_MOVE.margin, FEE_MOVE.floor),
  /** Days an interest-free period may move: the history has no real move, so the floor stands. */
  maxDaysMove: Math.max(largest('days') * DAYS_MOVE.margin, DAYS_MOVE.floor),
  /** The share of items that may repeat another item's name within their institution, when the anchor had fewer. */
  maxRepeatedShare: 0.1,
  /** A run in which more than this share of the product, plan and rate ids of the lenders kept are new is a rename. */
  renameShare: 0.5,
};

export type AnchorRole = 'newest' | 'day' | 'week';

/** A snapshot a collection is held against; `standIn` when none was that old and the oldest stands in. */
export interface Anchor {
  snapshot: Snapshot;
  role: AnchorRole;
  standIn?: boolean;
}

const ROLES = {
  newest: { span: 'in one run', age: '' },
  day: { span: 'within 24 hours', age: '24 hours' },
  week: { span: 'within seven days', age: 'seven days' },
} as const;

/** "the newest snapshot", "the snapshot of at least 24 hours ago (2026-11-20)", "the oldest snapshot (2026-11-21), none being seven days old". */
function anchorName({ snapshot, role, standIn }: Anchor): string {
  const date = snapshot.lastUpdated.slice(0, 10);
  if (role === 'newest') return 'the newest snapshot';
  const { age } = ROLES[role];
  return standIn
    ? `the oldest snapshot (${date}), none being ${age} old`
    : `the snapshot of at least ${age} ago (${date})`;
}

const refused = (rule: string, evidence: string) => `refused (${rule}): ${evidence}`;
const percent = (share: number) => `${Math.round(share * 100)} %`;
const some = (found: readonly string[]) =>
  `${found.slice(0, 3).join('; ')}${found.length > 3 ? `; … ${found.length} in all` : ''}`;

/** What the rules read of a data set, read once. */
interface State {
  data: readonly Entity[];
  measures: Measures;
  ids: Set<string>;
  institutions: number;
  rates: number;
  items: number;
  /** Items that repeat another item's name within their institution. */
  repeated: number;
}

function stateOf(data: readonly Entity[]): State {
  const measures = measuresOf(data);
  let rates = 0;
  for (const m of measures.values()) if (m.kind === 'rate' || m.kind === 'promotion') rates += m.values.length;
  let [items, repeated] = [0, 0];
  for (const entity of data) {
    const names = itemsOf(entity).map((item) => item.name);
    items += names.length;
    repeated += names.length - new Set(names).size;
  }
  return { data, measures, ids: new Set(data.map((e) => e.id)), institutions: data.length, rates, items, repeated };
}

/** Names the page gave one id (after the alias table): only the alias table may make two names one institution. */
export function namesMadeOne(listed: readonly Entity[], previous?: Snapshot): string[] {
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

/**
 * A rule that counts: a quantity of a state measured against an anchor (`of`), the threshold the
 * page's must not pass, in which direction, and the evidence.
 */
interface CountRule {
  rule: string;
  quantity: (state: State, of: State) => number;
  worse: 'lower' | 'higher';
  threshold: (page: State, of: State, limits: Limits) => number;
  evidence: (page: State, of: State, name: string, limits: Limits, anchor: Anchor) => string;
}

const past = (rule: CountRule, value: number, threshold: number) =>
  rule.worse === 'lower' ? value < threshold : value > threshold;

const COUNT_RULES: readonly CountRule[] = (['institutions', 'rates'] as const).flatMap((what): CountRule[] => [
  {
    rule: 'shrink',
    quantity: (s) => s[what],
    worse: 'lower',
    threshold: (_, of, l) => of[what] * l.minRatio,
    evidence: (page, of, name, l) =>
      `only ${page[what]} ${what} where ${name} has ${of[what]} (below ${percent(l.minRatio)})`,
  },
  {
    rule: 'growth',
    quantity: (s) => s[what],
    worse: 'higher',
    threshold: (_, of) => of[what] * ANCHOR_LIMITS.maxGrowth,
    evidence: (page, of, name) =>
      `${page[what]} ${what} where ${name} has ${of[what]} (above ${percent(ANCHOR_LIMITS.maxGrowth)})`,
  },
]);

const KEPT_RULES: readonly CountRule[] = [
  {
    rule: 'other lenders',
    quantity: (s, of) => of.data.filter((e) => s.ids.has(e.id)).length,
    worse: 'lower',
    threshold: (_, of, l) => of.institutions * l.minRatio,
    evidence: (page, of, name, l, anchor) => {
      const kept = of.data.filter((e) => page.ids.has(e.id)).length;
      const whose =
        anchor.role === 'newest'
          ? `${name}'s ${of.institutions} institutions`
          : `the ${of.institutions} institutions of ${name}`;
      const gone = of.data.filter((e) => !page.ids.has(e.id)).map((e) => e.name);
      return `only ${kept} of ${whose} are listed (below ${percent(l.minRatio)}); missing ${some(gone)}`;
    },
  },
  {
    rule: 'repeated rows',
    quantity: (s) => s.repeated,
    worse: 'higher',
    threshold: (page, of) => Math.max(of.repeated, page.items * ANCHOR_LIMITS.maxRepeatedShare),
    evidence: (page, of, name) =>
      `${page.repeated} of ${page.items} items repeat another item's name within their institution, where ${name} had ${of.repeated}`,
  },
];

/** The limits of a run: the rate move a maintainer may lift, and the fee and period moves lifted in proportion. */
interface Limits {
  minRatio: number;
  move: Record<Exclude<MeasureKind, 'promotion'>, number>;
  lifted: boolean;
}

const MOVE_RULES = {
  rate: (limit: number, span: string) => `a rate moved more than ${limit} percentage points ${span}`,
  fee: (limit: number, span: string) => `a fee moved more than $${limit} ${span}`,
  days: (limit: number, span: string) => `an interest-free period moved more than ${limit} days ${span}`,
} as const;

/** A limit broken against one anchor, and whether the trusted state excuses it (the page comes back toward it). */
interface Break {
  rule: string;
  evidence: string;
  excused: (trusted: State) => boolean;
  /** A value's move: its rule lists every value that broke it, from the anchor named. */
  move?: true;
}

/** How far `value` is from the nearest value the state had for the measure `at`. */
const gap = (state: State, at: string, value: number) => {
  const measure = state.measures.get(at);
  const was = measure && nearest(measure, value);
  return was === undefined ? undefined : Math.abs(value - was);
};

export interface AnchoredInput {
  data: readonly Entity[];
  listed: readonly Entity[];
  /** The newest snapshot first, then the 24-hour and seven-day anchors; one snapshot in several roles is listed once, in its first. */
  anchors: readonly Anchor[];
  /** The snapshot of the trusted state (the seven-day anchor's). */
  trusted: Snapshot;
  minRatio: number;
  maxRateMove: number;
}

/** The reason to refuse `data` against its anchors, or null. */
export function anchoredRefusal({
  data,
  listed,
  anchors,
  trusted,
  minRatio,
  maxRateMove,
}: AnchoredInput): string | null {
  const scale = maxRateMove / ANCHOR_LIMITS.maxRateMove;
  const round = (n: number) => Math.round(n * 100) / 100;
  const limits: Limits = {
    minRatio,
    move: {
      rate: maxRateMove,
      fee: round(ANCHOR_LIMITS.maxFeeMove * scale),
      days: round(ANCHOR_LIMITS.maxDaysMove * scale),
    },
    lifted: maxRateMove > ANCHOR_LIMITS.maxRateMove,
  };
  const page = stateOf(data);
  const states = new Map(anchors.map((a) => [a, stateOf(a.snapshot.data)]));
  const newest = states.get(anchors[0]!)!;
  const trustedAnchor = anchors.find((a) => a.snapshot === trusted);
  const trustedState = trustedAnchor ? states.get(trustedAnchor)! : undefined;

  for (const anchor of anchors) {
    const of = states.get(anchor)!;
    const name = anchorName(anchor);
    const isTrusted = anchor.snapshot === trusted;
    const madeOne = namesMadeOne(listed, anchor.snapshot);
    if (madeOne.length > 0) return refused('two names, one id (only the alias table may join names)', some(madeOne));
    const breaks = [
      ...[...COUNT_RULES, ...KEPT_RULES].flatMap((rule) => countBreak(rule, page, of, newest, anchor, limits)),
      ...moveBreaks(page, of, newest, anchor, limits),
    ];
    // What broke here and the trusted state does not excuse: the first rule of it, with its evidence.
    const standing = isTrusted || !trustedState ? breaks : breaks.filter((b) => !b.excused(trustedState));
    const first = standing[0];
    if (first?.move) {
      const values = standing.filter((b) => b.rule === first.rule).map((b) => b.evidence);
      return refused(first.rule, `${anchor.role === 'newest' ? '' : `from ${name}: `}${some(values)}`);
    }
    if (first) return refused(first.rule, first.evidence);
    if (anchor.role === 'newest' && !limits.lifted) {
      const rename = renameRefusal(page, of);
      if (rename) return rename;
    }
  }
  return null;
}

/**
 * A count rule against `anchor`: broken when the page's quantity is past the threshold; against an
 * older anchor, only when it is also further than the newest snapshot's (what the newest holds
 * stood its judgement). Excused when the trusted state keeps the rule and the page is nearer the
 * trusted state than the anchor is.
 */
function countBreak(rule: CountRule, page: State, of: State, newest: State, anchor: Anchor, limits: Limits): Break[] {
  const broken = (against: State) => {
    const value = rule.quantity(page, against);
    if (!past(rule, value, rule.threshold(page, against, limits))) return false;
    return against === newest || past(rule, value, rule.quantity(newest, against));
  };
  if (!broken(of)) return [];
  return [
    {
      rule: rule.rule,
      evidence: rule.evidence(page, of, anchorName(anchor), limits, anchor),
      excused: (trusted) => {
        if (broken(trusted)) return false;
        const home = rule.quantity(trusted, trusted);
        return Math.abs(rule.quantity(page, trusted) - home) < Math.abs(rule.quantity(of, trusted) - home);
      },
    },
  ];
}

/**
 * The page's values further than their limit from the nearest value their lender had for the
 * measure in `anchor`; against an older anchor, only values the newest snapshot does not hold.
 * Balance-transfer rates are promotions that start and end (0 ↔ 19.95 is real): their bounds are
 * the schema's. A move is excused when the trusted state holds the measure and the value is within
 * its limit of it and nearer it than the value it moved from.
 */
function moveBreaks(page: State, of: State, newest: State, anchor: Anchor, limits: Limits): Break[] {
  const { span } = ROLES[anchor.role];
  return movesBetween(of.measures, page.measures).flatMap((m) => {
    const { kind } = m;
    if (kind === 'promotion' || m.distance <= limits.move[kind]) return [];
    const at = `${m.lender} ${m.measure}`;
    if (of !== newest && holds(newest.measures.get(at), m.to)) return [];
    return [
      {
        rule: MOVE_RULES[kind](limits.move[kind], span),
        evidence: `${m.id} ${m.key} ${m.from} → ${m.to}`,
        move: true as const,
        excused: (trusted: State) => {
          const [to, from] = [gap(trusted, at, m.to), gap(trusted, at, m.from)];
          return to !== undefined && from !== undefined && to <= limits.move[kind] && to < from;
        },
      },
    ];
  });
}

/**
 * A run in which most ids of the lenders kept are new is a rename: the page's identity of its
 * offers is gone, so it is accepted only when every lender kept lists, measure by measure, the
 * very values it had (as multisets; 0 and null alike). A maintainer who lifted the move limit
 * has read the page, and the moves are then held to that limit alone.
 */
function renameRefusal(page: State, newest: State): string | null {
  const fresh = newIdShare(newest.data, page.data);
  if (fresh.share <= ANCHOR_LIMITS.renameShare) return null;
  const kept = new Set(newest.data.filter((e) => page.ids.has(e.id)).map((e) => e.id));
  const moved = valuesNotKept(newest.measures, page.measures, kept);
  if (moved.length === 0) return null;
  return refused(
    'a rename that moves values',
    `${percent(fresh.share)} of the ${fresh.total} product, plan and rate ids of the lenders kept are new (more than ${percent(ANCHOR_LIMITS.renameShare)}: a rename, first ${some(fresh.fresh)}), and a rename keeps every value: ${some(moved)}`,
  );
}
