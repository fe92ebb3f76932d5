/**
 * Threshold alerts over a dataset's history, for `GET /api/v1/<dataset>/alerts`: on each snapshot
 * date, the lowest open rate of one measure (the same computation as /lowest, src/explorer/lowest.ts,
 * so the two never disagree), and an event each time it crosses the threshold, either way, and
 * each time it moves while past it. Before the first snapshot the rate counts as not past, so a
 * history that starts past the threshold starts with a crossing. The same lowest, compared from one
 * snapshot to the next, gives every change of it (the feed beside each comparison page).
 */
import type { Dataset, Entity } from '../datasets.ts';
import { lowestOffers } from './lowest.ts';

/** `below`: a rate paid, alert under the threshold; `above`: a rate earned, alert over it. */
export interface Threshold {
  side: 'below' | 'above';
  value: number;
}

/** One snapshot's lowest open offer of the measure, as /lowest writes it (undefined when none). */
type Lowest = ReturnType<typeof lowestOffers>[number];

export interface AlertEvent {
  kind: 'crossed-in' | 'crossed-out' | 'moved';
  date: string;
  lastUpdated: string;
  /** The measure's lowest before and now; undefined where there was none. */
  from?: Lowest;
  to?: Lowest;
}

const isPast = (threshold: Threshold, rate: number | undefined): boolean =>
  rate !== undefined && (threshold.side === 'below' ? rate < threshold.value : rate > threshold.value);

/** The measure's lowest open offer on each snapshot date (oldest first), beside the one before it. */
function lowestPairs(
  dataset: Dataset,
  snapshots: readonly { date: string; lastUpdated: string; data: readonly Entity[] }[],
  measure: string,
  data: (entities: readonly Entity[]) => readonly Entity[],
) {
  let before: Lowest | undefined;
  return snapshots.map(({ date, lastUpdated, data: entities }) => {
    const now = lowestOffers(dataset, data(entities)).find((m) => m.measure === measure);
    const pair = { date, lastUpdated, from: before, to: now };
    before = now;
    return pair;
  });
}

/** The events of a history of snapshots (oldest first), oldest first. `data` filters a snapshot (one lender, a term). */
export function alertEvents(
  dataset: Dataset,
  snapshots: readonly { date: string; lastUpdated: string; data: readonly Entity[] }[],
  measure: string,
  threshold: Threshold,
  data: (entities: readonly Entity[]) => readonly Entity[],
): AlertEvent[] {
  return lowestPairs(dataset, snapshots, measure, data).flatMap(({ from, to, ...when }) => {
    const [was, is] = [isPast(threshold, from?.rate), isPast(threshold, to?.rate)];
    const kind = was !== is ? (is ? 'crossed-in' : 'crossed-out') : is && to!.rate !== from!.rate ? 'moved' : undefined;
    return kind ? [{ kind, ...when, from, to }] : [];
  });
}

/**
 * A change of the measure's lowest open rate from one snapshot to the next; `from` or `to`
 * undefined where there was none. `first`: the lowest of the history's first snapshot, which has
 * nothing before it.
 */
export type LowestChange = Omit<AlertEvent, 'kind'> & { first?: true };

/**
 * The measure's lowest open rate through the history, oldest first: where it stood in the first
 * snapshot (when it had one), so that a feed with no change yet still says what it is now, then
 * every change between two snapshot dates: its rate moved, or it appeared or went. A new lender at
 * the same rate is no change.
 */
export function lowestChanges(
  dataset: Dataset,
  snapshots: readonly { date: string; lastUpdated: string; data: readonly Entity[] }[],
  measure: string,
): LowestChange[] {
  const [start, ...rest] = lowestPairs(dataset, snapshots, measure, (entities) => entities);
  return [
    ...(start?.to ? [{ ...start, first: true as const }] : []),
    ...rest.filter(({ from, to }) => from?.rate !== to?.rate),
  ];
}
