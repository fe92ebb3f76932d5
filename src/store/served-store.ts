/**
 * The served store: the compiled snapshots with the indexes requests need, built once per
 * process. Requests look things up here; nothing re-reads or re-parses the snapshot tree.
 */
import type { DatasetSlug, Entity, Snapshot } from '../datasets.ts';
import type { CompiledDataset, CompiledStore } from './compile.ts';

export class DatasetHistory {
  readonly dates: readonly string[];
  private readonly byDate = new Map<string, Snapshot>();
  private readonly entityIndex = new WeakMap<Snapshot, Map<string, Entity>>();

  constructor(compiled: CompiledDataset) {
    this.dates = compiled.dates;
    compiled.dates.forEach((date, i) => this.byDate.set(date, compiled.snapshots[i]!));
  }

  latest(): Snapshot | undefined {
    const date = this.dates.at(-1);
    return date === undefined ? undefined : this.byDate.get(date);
  }

  at(date: string): Snapshot | undefined {
    return this.byDate.get(date);
  }

  /** Snapshots from `start` to `end` inclusive, oldest first. */
  between(start: string, end: string): [string, Snapshot][] {
    return this.dates.filter((d) => d >= start && d <= end).map((d) => [d, this.byDate.get(d)!]);
  }

  /** The entity with this canonical (lower-case) id in a snapshot of this dataset. */
  find(snapshot: Snapshot, canonicalId: string): Entity | undefined {
    let index = this.entityIndex.get(snapshot);
    if (!index) {
      index = new Map(snapshot.data.map((entity) => [entity.id.toLowerCase(), entity]));
      this.entityIndex.set(snapshot, index);
    }
    return index.get(canonicalId);
  }
}

export class ServedStore {
  private readonly histories = new Map<string, DatasetHistory>();

  constructor(compiled: CompiledStore) {
    if (compiled.format !== 1) throw new Error(`unknown compiled store format ${String(compiled.format)}`);
    for (const [slug, dataset] of Object.entries(compiled.datasets)) {
      this.histories.set(slug, new DatasetHistory(dataset));
    }
  }

  history(slug: DatasetSlug): DatasetHistory {
    return this.histories.get(slug) ?? new DatasetHistory({ dates: [], snapshots: [] });
  }
}
