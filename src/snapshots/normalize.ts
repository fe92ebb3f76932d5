/**
 * Make a dataset fit the one-object-per-id rule (ids are unique within a response; see
 * /docs/concepts#ids): an institution or issuer
 * listed in several sections becomes one object holding all its products or plans in source
 * order, and any id still repeated gets a deterministic suffix (`-2`, `-3`, … in source order).
 */
import { type Dataset, type Entity, type Item, itemsOf, withItems } from '../datasets.ts';

function mergeEntities(dataset: Dataset, data: readonly Entity[]): Entity[] {
  const byId = new Map<string, { entity: Entity; items: Item[] }>();
  for (const entity of data) {
    const existing = byId.get(entity.id);
    if (!existing) byId.set(entity.id, { entity, items: [...itemsOf(entity)] });
    else existing.items.push(...itemsOf(entity));
  }
  return [...byId.values()].map(({ entity, items }) => withItems(dataset, entity, items));
}

function claim(id: string, seen: Set<string>): string {
  let candidate = id;
  for (let n = 2; seen.has(candidate); n++) candidate = `${id}-${n}`;
  seen.add(candidate);
  return candidate;
}

function uniquifyIds(data: readonly Entity[]): Entity[] {
  const seen = new Set<string>();
  return data.map((original) => {
    // A copy whose ids are claimed in place: the entity's, then each item's and its rates', in source order.
    const entity = structuredClone(original);
    entity.id = claim(entity.id, seen);
    for (const item of itemsOf(entity)) {
      const itemId = claim(item.id, seen);
      if ('rates' in item) {
        // A renamed product renames the product segment of its rate ids too, so they stay readable.
        const from = `rate:${item.id.slice('product:'.length)}:`;
        const to = `rate:${itemId.slice('product:'.length)}:`;
        for (const rate of item.rates) {
          rate.id = claim(
            itemId !== item.id && rate.id.startsWith(from) ? to + rate.id.slice(from.length) : rate.id,
            seen,
          );
        }
      }
      item.id = itemId;
    }
    return entity;
  });
}

export function normalizeDataset(dataset: Dataset, data: readonly Entity[]): Entity[] {
  return uniquifyIds(mergeEntities(dataset, data));
}
