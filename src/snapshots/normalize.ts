/**
 * Make a dataset fit the one-object-per-id rule (issue #2, item 6): an institution or issuer
 * listed in several sections becomes one object holding all its products or plans in source
 * order, and any id still repeated gets a deterministic suffix (`-2`, `-3`, … in source order).
 */
import type { Dataset, Entity, Item } from '../datasets.ts';

export function mergeEntities(dataset: Dataset, data: readonly Entity[]): Entity[] {
  const byId = new Map<string, Entity>();
  for (const entity of data) {
    const existing = byId.get(entity.id);
    if (!existing) {
      byId.set(entity.id, { ...entity, [dataset.itemsKey]: [...(entity[dataset.itemsKey] as Item[])] });
    } else {
      (existing[dataset.itemsKey] as Item[]).push(...(entity[dataset.itemsKey] as Item[]));
    }
  }
  return [...byId.values()];
}

function claim(id: string, seen: Set<string>): string {
  let candidate = id;
  for (let n = 2; seen.has(candidate); n++) candidate = `${id}-${n}`;
  seen.add(candidate);
  return candidate;
}

export function uniquifyIds(dataset: Dataset, data: readonly Entity[]): Entity[] {
  const seen = new Set<string>();
  return data.map((entity) => {
    const entityId = claim(entity.id, seen);
    const items = (entity[dataset.itemsKey] as Item[]).map((item) => {
      const itemId = claim(item.id, seen);
      if (!Array.isArray(item.rates)) return { ...item, id: itemId };
      // A renamed product renames the product segment of its rate ids too, so they stay readable.
      const from = `rate:${item.id.slice('product:'.length)}:`;
      const to = `rate:${itemId.slice('product:'.length)}:`;
      const rates = (item.rates as Item[]).map((rate) => ({
        ...rate,
        id: claim(itemId !== item.id && rate.id.startsWith(from) ? to + rate.id.slice(from.length) : rate.id, seen),
      }));
      return { ...item, id: itemId, rates };
    });
    return { ...entity, id: entityId, [dataset.itemsKey]: items };
  });
}

export function normalizeDataset(dataset: Dataset, data: readonly Entity[]): Entity[] {
  return uniquifyIds(dataset, mergeEntities(dataset, data));
}
