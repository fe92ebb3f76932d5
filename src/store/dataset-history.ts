/**
 * A compiled history (a dataset's newest snapshot, or one year of its history) with what requests
 * need: responses are assembled from the stored JSON strings — nothing is re-parsed or
 * re-stringified per request — and what is asked again (the newest list, an institution, a
 * filter) is kept, within bounds.
 */
import { type Dataset, filterItem, filterKey, type Item } from '../datasets.ts';
import type { CompiledDataset } from './compile.ts';
import { DatedSnapshots } from './dated-snapshots.ts';

/** Filter values from the query, by filter name (e.g. `{ termInMonths: '12' }`). */
export type FilterValues = Record<string, string | undefined>;

/** A Map that forgets its oldest entry past a size, so unusual queries cannot grow memory. */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }
  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

const quote = (text: string) => JSON.stringify(text);

export class DatasetHistory extends DatedSnapshots {
  private readonly entityHead: string[];
  private readonly entityJsonCache = new Map<number, string>();
  /** Per filter key: each item's filtered JSON (null: the filter drops it). */
  private readonly filteredItems = new BoundedMap<string, Map<number, string | null>>(64);
  private readonly filteredEntities = new BoundedMap<string, Map<number, string>>(64);
  private idIndex?: Map<string, Map<number, number>>;
  private latestDataJson?: string;

  constructor(
    readonly dataset: Dataset,
    readonly compiled: CompiledDataset,
  ) {
    super(compiled.version, compiled.dates, compiled.lastUpdated);
    this.entityHead = compiled.entities.map(
      ([id, name]) => `{"id":${quote(id)},"name":${quote(name)},"${dataset.itemsKey}":[`,
    );
  }

  /** The entity with this canonical (lower-case) id in a snapshot, by number. */
  entityIn(snapshot: number, canonicalId: string): number | undefined {
    if (!this.idIndex) {
      // One pass over the history, on first use: id → (snapshot → entity number).
      this.idIndex = new Map();
      const ids = this.compiled.entities.map(([id]) => id.toLowerCase());
      this.compiled.snapshots.forEach((entities, s) => {
        for (const e of entities) {
          let bySnapshot = this.idIndex!.get(ids[e]!);
          if (!bySnapshot) this.idIndex!.set(ids[e]!, (bySnapshot = new Map()));
          bySnapshot.set(s, e);
        }
      });
    }
    return this.idIndex.get(canonicalId)?.get(snapshot);
  }

  private itemJson(item: number, key: string, filters: FilterValues): string | null {
    if (!key) return this.compiled.items[item]!;
    let cache = this.filteredItems.get(key);
    if (!cache) this.filteredItems.set(key, (cache = new Map()));
    let json = cache.get(item);
    if (json === undefined) {
      const kept = filterItem(this.dataset, JSON.parse(this.compiled.items[item]!) as Item, filters);
      json = kept ? JSON.stringify(kept) : null;
      cache.set(item, json);
    }
    return json;
  }

  /** One entity's JSON, with the filters applied to its items. */
  entityJson(entity: number, filters: FilterValues = {}): string {
    const key = filterKey(this.dataset, filters);
    let cache = key ? this.filteredEntities.get(key) : this.entityJsonCache;
    if (!cache) this.filteredEntities.set(key, (cache = new Map()));
    let json = cache.get(entity);
    if (json === undefined) {
      const items = this.compiled.entities[entity]![2].map((i) => this.itemJson(i, key, filters)).filter(
        (j) => j !== null,
      );
      json = `${this.entityHead[entity]}${items.join(',')}]}`;
      cache.set(entity, json);
    }
    return json;
  }

  /** The `data` array of a snapshot (optionally only some entities), filtered, as JSON. */
  dataJson(snapshot: number, filters: FilterValues = {}, only?: readonly number[]): string {
    const unfilteredLatest = !only && snapshot === this.latest && !filterKey(this.dataset, filters);
    if (unfilteredLatest && this.latestDataJson !== undefined) return this.latestDataJson;
    const entities = only ?? this.compiled.snapshots[snapshot]!;
    const json = `[${entities.map((e) => this.entityJson(e, filters)).join(',')}]`;
    if (unfilteredLatest) this.latestDataJson = json;
    return json;
  }
}
