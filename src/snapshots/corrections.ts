/**
 * Known defects of the history brought in by `npm run snapshots:import`, each with its evidence,
 * declared by its dataset's table entry (`corrections` in src/datasets.ts) and fixed as the import
 * converts a file so a re-import never undoes a fix in `snapshots/`: a fix made to the committed
 * history by hand belongs there too, or the import no longer writes what
 * `snapshots/` holds (test/snapshots-import.test.ts checks that it does).
 *
 * The earlier deployment's collector read numbers with `parseFloat(text) || null`: a figure with a
 * thousands separator lost everything after the comma ("1,250" became 1), and every 0 became
 * null. A wrong figure goes here once the page shows the right one. The nulls stay as they are:
 * a null in that history may be a 0 or a real "not offered", and nothing tells them apart, so the
 * change log treats null ↔ 0 as no change instead (sameValue in src/snapshots/diff.ts).
 */
import { DATASETS, type DatasetSlug, type Entity, itemsOf } from '../datasets.ts';
import type { HistoryCorrection, Value } from '../schemas/corrections.ts';

/** A correction with the dataset it belongs to. */
export interface Correction extends HistoryCorrection {
  dataset: DatasetSlug;
}

/** Every dataset's corrections, in table order. */
export const CORRECTIONS: readonly Correction[] = DATASETS.flatMap((d) =>
  d.corrections.map((c) => ({ dataset: d.slug, ...c })),
);

/** `<slug> · issuer:amex · plan:amex:platinum-charge-card · annualFeeNZD: 1 → 1250`. */
export const describeCorrection = (c: Correction): string =>
  `${[c.dataset, c.entityId, c.itemId, c.field].filter(Boolean).join(' · ')}: ${JSON.stringify(c.wrong)} → ${JSON.stringify(c.right)}`;

/** The object holding the corrected value and its key there, or undefined when the snapshot has no such place. */
function placeOf(data: readonly Entity[], c: Correction): { holder: object; key: string } | undefined {
  const entity = data.find((e) => e.id === c.entityId);
  if (!entity || c.itemId === undefined) return entity && { holder: entity, key: c.field };
  const item = itemsOf(entity).find((i) => i.id === c.itemId);
  if (!item || !('rates' in item)) return item && { holder: item, key: c.field };
  const rate = item.rates.find((r) => r.id === c.field);
  return rate && { holder: rate, key: 'rate' };
}

/**
 * Apply the corrections of `dataset` to `data` in place (data the caller owns, as normalizeDataset
 * returns it) and return those that matched: the entity, the item (if named) and the field exist
 * and hold the wrong value.
 */
export function applyCorrections(
  dataset: DatasetSlug,
  data: Entity[],
  corrections: readonly Correction[] = CORRECTIONS,
): Correction[] {
  const applied: Correction[] = [];
  for (const correction of corrections) {
    const place = correction.dataset === dataset ? placeOf(data, correction) : undefined;
    if (!place || !Object.hasOwn(place.holder, place.key)) continue;
    // Entities, items and rates differ per dataset: the value is read and written by name, as the table gives it.
    const holder = place.holder as Record<string, Value>;
    if (holder[place.key] === correction.wrong) {
      holder[place.key] = correction.right;
      applied.push(correction);
    }
  }
  return applied;
}
