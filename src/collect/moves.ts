/**
 * A value's move measured by what it is, never by its id: per lender (the entity's id) and measure
 * — a mortgage term, a loan plan, a card's purchase, cash-advance or balance-transfer rate, its
 * annual fee or its interest-free period, and a rate of neither term nor plan the lender's other
 * such rates — each value now is compared with the nearest value that
 * lender had for that measure before. A renamed product carries its move; a product a lender
 * drops or adds moves nothing as long as its values lie near the lender's others of the measure.
 */
import { type Entity, itemsOf } from '../datasets.ts';

/** What a value is, for its limit: a rate, a balance-transfer promotion (no move limit), a fee in dollars, a period in days. */
export type MeasureKind = 'rate' | 'promotion' | 'fee' | 'days';

/** The values a lender has for one measure, and whether some item left the measure empty (null). */
export interface Measure {
  lender: string;
  /** "1 year", "Variable floating", "plan Secured", "no plan", "purchaseRate", "rate", … */
  measure: string;
  kind: MeasureKind;
  values: { id: string; key: string; value: number }[];
  /** An item listed the measure as null: the history holds null where the page says 0 (src/snapshots/diff.ts). */
  hasNull: boolean;
}

/** A data set's measures, by `lender measure`. */
export type Measures = Map<string, Measure>;

const CARD_FIELDS: readonly [key: string, kind: MeasureKind][] = [
  ['purchaseRate', 'rate'],
  ['cashAdvanceRate', 'rate'],
  ['balanceTransferRate', 'promotion'],
  ['annualFeeNZD', 'fee'],
  ['interestFreeDays', 'days'],
];

/**
 * The measure of a rate within its lender's: its term, else its plan, else (a rate of neither)
 * one measure, `rate`, for all such rates of the lender. What else tells a rate apart — a loan's
 * condition, an amount it is paid from — does not join it: it is the page's text ("From", "To",
 * "$3,000 to $50,000") or a threshold, relabelled more often than a term or plan, and a relabelled
 * measure is one the lender did not have, judged by nothing; within the measure the nearest value
 * still bounds each rate.
 */
function measureOfRate(rate: { term: string } | { plan: string | null } | object): string {
  if ('term' in rate) return rate.term;
  if ('plan' in rate) return rate.plan === null ? 'no plan' : `plan ${rate.plan}`;
  return 'rate';
}

/** Every value of `data` by lender and measure (a rate's measure: measureOfRate). */
export function measuresOf(data: readonly Entity[]): Measures {
  const measures: Measures = new Map();
  const add = (lender: string, measure: string, kind: MeasureKind, id: string, key: string, value: unknown) => {
    const at = `${lender} ${measure}`;
    let found = measures.get(at);
    if (!found) measures.set(at, (found = { lender, measure, kind, values: [], hasNull: false }));
    if (typeof value === 'number') found.values.push({ id, key, value });
    else found.hasNull = true;
  };
  for (const entity of data) {
    for (const item of itemsOf(entity)) {
      if ('rates' in item) {
        for (const rate of item.rates) {
          add(entity.id, measureOfRate(rate), 'rate', rate.id, 'rate', rate.rate);
        }
      } else {
        const fields = item as unknown as Record<string, unknown>;
        for (const [key, kind] of CARD_FIELDS) add(entity.id, key, kind, item.id, key, fields[key]);
      }
    }
  }
  return measures;
}

/** Values equal to within rounding (the page gives two decimals at most). */
const same = (a: number, b: number) => Math.abs(a - b) < 1e-9;

/** The value of `before` nearest `value`: a 0 where the measure held a null is no move (the history's 0s are nulls). */
export function nearest(before: Measure, value: number): number | undefined {
  if (value === 0 && before.hasNull) return 0;
  let best: number | undefined;
  for (const { value: was } of before.values)
    if (best === undefined || Math.abs(value - was) < Math.abs(value - best)) best = was;
  return best;
}

/** Whether `measure` holds `value` (a 0 where it held a null counts). */
export function holds(measure: Measure | undefined, value: number): boolean {
  return (
    measure !== undefined && ((value === 0 && measure.hasNull) || measure.values.some((v) => same(v.value, value)))
  );
}

/** One value now, the nearest value its lender had for the measure before, and how far apart they are. */
export interface Move {
  lender: string;
  measure: string;
  kind: MeasureKind;
  /** The id holding the value now, and its field (`rate`, `annualFeeNZD`, …). */
  id: string;
  key: string;
  from: number;
  to: number;
  distance: number;
}

/** Every value of `now` that moved from the nearest value of its lender and measure in `before`; a measure `before` lacks moves nothing. */
export function movesBetween(before: Measures, now: Measures): Move[] {
  const moves: Move[] = [];
  for (const [at, measure] of now) {
    const was = before.get(at);
    if (!was) continue;
    for (const { id, key, value } of measure.values) {
      const from = nearest(was, value);
      if (from === undefined || same(from, value)) continue;
      const distance = Math.round(Math.abs(value - from) * 1e6) / 1e6;
      moves.push({
        lender: measure.lender,
        measure: measure.measure,
        kind: measure.kind,
        id,
        key,
        from,
        to: value,
        distance,
      });
    }
  }
  return moves;
}

/** A measure's values as a sorted list, 0 and null alike left out (as the change log has them: the history's 0s are nulls). */
const multiset = (measure: Measure | undefined) =>
  (measure?.values ?? [])
    .map((v) => v.value)
    .filter((v) => v !== 0)
    .sort((a, b) => a - b);

/**
 * The measures of the lenders `lenders` whose values are not the same before and now, as
 * multisets (each value as many times): `institution:anz 1 year: 5.89, 6.49 → 6.89, 7.49`.
 */
export function valuesNotKept(before: Measures, now: Measures, lenders: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const at of new Set([...before.keys(), ...now.keys()])) {
    const measure = now.get(at) ?? before.get(at)!;
    if (!lenders.has(measure.lender)) continue;
    const [was, is] = [multiset(before.get(at)), multiset(now.get(at))];
    if (was.length === is.length && was.every((v, i) => same(v, is[i]!))) continue;
    const show = (values: number[]) => (values.length === 0 ? 'none' : values.join(', '));
    found.push(`${measure.lender} ${measure.measure}: ${show(was)} → ${show(is)}`);
  }
  return found;
}

/** The product, plan and rate ids of an entity: what a rename gives new ids. */
function idsOf(entity: Entity): string[] {
  return itemsOf(entity).flatMap((item) => [item.id, ...('rates' in item ? item.rates.map((r) => r.id) : [])]);
}

/**
 * Of the ids the lenders listed both before and now list now, those new: the share, how many in
 * all, and the new ones. Lenders new or gone are other rules' business (other lenders, growth).
 */
export function newIdShare(
  before: readonly Entity[],
  now: readonly Entity[],
): { share: number; total: number; fresh: string[] } {
  const lenders = new Set(before.map((e) => e.id));
  const known = new Set(before.flatMap(idsOf));
  const listed = now.filter((e) => lenders.has(e.id)).flatMap(idsOf);
  const fresh = listed.filter((id) => !known.has(id));
  return { share: listed.length === 0 ? 0 : fresh.length / listed.length, total: listed.length, fresh };
}
