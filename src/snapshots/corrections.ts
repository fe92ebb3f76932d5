/**
 * Known defects of the history brought in by `npm run snapshots:import`, each with its evidence,
 * fixed as the import converts a file so a re-import never undoes a fix in `snapshots/`.
 *
 * The earlier deployment's collector read numbers with `parseFloat(text) || null`: a figure with a
 * thousands separator lost everything after the comma ("1,250" became 1), and every 0 became
 * null. A wrong figure goes here once the page shows the right one. The nulls stay as they are:
 * a null in that history may be a 0 or a real "not offered", and nothing tells them apart.
 */
import { type DatasetSlug, type Entity, itemsOf } from '../datasets.ts';
import type { Value } from './diff.ts';

export interface Correction {
  dataset: DatasetSlug;
  /** The institution or issuer id (`issuer:amex`). */
  entityId: string;
  /** The product or plan id (`plan:amex:platinum-charge-card`). */
  itemId: string;
  /** A plan's field (credit cards: `annualFeeNZD`), or the id of the rate whose `rate` is wrong (other datasets). */
  field: string;
  /** The value the history holds; a file with any other value there is left alone. */
  wrong: Value;
  right: Value;
  /** Why the right value is right, in one line. */
  evidence: string;
}

export const CORRECTIONS: readonly Correction[] = [
  {
    dataset: 'credit-card-rates',
    entityId: 'issuer:amex',
    itemId: 'plan:amex:platinum-charge-card',
    field: 'annualFeeNZD',
    wrong: 1,
    right: 1250,
    evidence:
      'interest.co.nz lists the annual fee as $1,250 (public scrapers of the page, 2024–2026); the earlier collector read "1,250" with parseFloat, as 1',
  },
];

/** `credit-card-rates · issuer:amex · plan:amex:platinum-charge-card · annualFeeNZD: 1 → 1250`. */
export const describeCorrection = (c: Correction): string =>
  `${c.dataset} · ${c.entityId} · ${c.itemId} · ${c.field}: ${JSON.stringify(c.wrong)} → ${JSON.stringify(c.right)}`;

/**
 * Apply the corrections of `dataset` to `data` in place (data the caller owns, as normalizeDataset
 * returns it) and return those that matched: the entity, the item and the field exist and hold
 * the wrong value.
 */
export function applyCorrections(
  dataset: DatasetSlug,
  data: Entity[],
  corrections: readonly Correction[] = CORRECTIONS,
): Correction[] {
  const applied: Correction[] = [];
  for (const correction of corrections) {
    if (correction.dataset !== dataset) continue;
    const entity = data.find((e) => e.id === correction.entityId);
    const item = entity && itemsOf(entity).find((i) => i.id === correction.itemId);
    if (!item) continue;
    // Item types differ per dataset; the value is read and written by name, as the table gives it.
    const holder = ('rates' in item ? item.rates.find((r) => r.id === correction.field) : item) as
      | Record<string, Value>
      | undefined;
    const key = 'rates' in item ? 'rate' : correction.field;
    if (holder && Object.hasOwn(holder, key) && holder[key] === correction.wrong) {
      holder[key] = correction.right;
      applied.push(correction);
    }
  }
  return applied;
}
