/**
 * What every history answers from its dates alone: a dataset's newest snapshot, one year of its
 * history (src/store/dataset-history.ts) and the whole history's index (src/store/history-archive.ts).
 * A snapshot's number is its place in `dates`, which are oldest first.
 */
export class DatedSnapshots {
  private readonly dateIndex: Map<string, number>;
  private datesJson?: string;

  constructor(
    /** The dataset's content hash: part of every ETag, so it changes when the data does. */
    readonly version: string,
    readonly dates: readonly string[],
    private readonly collected: readonly string[],
  ) {
    this.dateIndex = new Map(dates.map((d, i) => [d, i]));
  }

  get size(): number {
    return this.dates.length;
  }

  /** Number of the newest snapshot (-1 when there is none). */
  get latest(): number {
    return this.dates.length - 1;
  }

  /** `availableDates` as JSON. */
  get availableDatesJson(): string {
    this.datesJson ??= JSON.stringify(this.dates);
    return this.datesJson;
  }

  indexOf(date: string): number | undefined {
    return this.dateIndex.get(date);
  }

  /** Snapshot numbers from `start` to `end` inclusive, oldest first. */
  between(start: string, end: string): number[] {
    const found: number[] = [];
    this.dates.forEach((date, i) => {
      if (date >= start && date <= end) found.push(i);
    });
    return found;
  }

  /** When a snapshot was collected. */
  lastUpdated(snapshot: number): string {
    return this.collected[snapshot]!;
  }
}
