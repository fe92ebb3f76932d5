/**
 * Threshold alerts over a dataset's history, for `GET /api/v1/<dataset>/alerts`: on each snapshot
 * date, the lowest open rate of one measure (the same computation as /lowest, src/explorer/lowest.ts,
 * so the two never disagree), and an event each time it crosses the threshold, either way, and
 * each time it moves while past it. Before the first snapshot the rate counts as not past, so a
 * history that starts past the threshold starts with a crossing.
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

/** The events of a history of snapshots (oldest first), oldest first. `data` filters a snapshot (one lender, a term). */
export function alertEvents(
  dataset: Dataset,
  snapshots: readonly { date: string; lastUpdated: string; data: readonly Entity[] }[],
  measure: string,
  threshold: Threshold,
  data: (entities: readonly Entity[]) => readonly Entity[],
): AlertEvent[] {
  const events: AlertEvent[] = [];
  let before: Lowest | undefined;
  for (const snapshot of snapshots) {
    const now = lowestOffers(dataset, data(snapshot.data)).find((m) => m.measure === measure);
    const [was, is] = [isPast(threshold, before?.rate), isPast(threshold, now?.rate)];
    const kind =
      was !== is ? (is ? 'crossed-in' : 'crossed-out') : is && now!.rate !== before!.rate ? 'moved' : undefined;
    if (kind) events.push({ kind, date: snapshot.date, lastUpdated: snapshot.lastUpdated, from: before, to: now });
    before = now;
  }
  return events;
}
