/**
 * Which way a value moved and by how much, and that in words: `direction` (`up`, `down`, `new`,
 * `gone`) and, for a rate, `bps`, the move in whole basis points. The change log's JSON and its
 * filters, the Atom feeds and the collector's summary all read it, so they say a move alike:
 * "down 25 bps", "up 10 bps", "new", "gone".
 */
import type { ChangeDirection } from '../schemas/params.ts';
import type { Value } from '../schemas/corrections.ts';
import type { ValueKind } from './schema.ts';

export interface Movement {
  /** Null for text that changed (a balance-transfer period reworded): neither up nor down. */
  direction: ChangeDirection | null;
  /** Signed whole basis points, rates only; null for any other value, and for new and gone. */
  bps: number | null;
}

/**
 * to − from in percentage points × 100, rounded to a whole number (a half away from zero). Worked
 * out in ten-thousandths of a percent, so that 5.29 → 4.69 is −60, never −60.000000000000005.
 */
function bpsBetween(from: number, to: number): number {
  const hundredths = Math.round(to * 10_000) - Math.round(from * 10_000);
  return Math.sign(hundredths) * Math.round(Math.abs(hundredths) / 100) || 0;
}

/**
 * The movement of one value: absent `to` (removed) or null `to` is `gone`, absent or null `from`
 * (added, or a value the source gave none of before) is `new`; else a number went up or down.
 */
export function movementOf(kind: ValueKind, from: Value | undefined, to: Value | undefined): Movement {
  if (to === undefined) return { direction: 'gone', bps: null };
  if (from === undefined || from === null) return { direction: 'new', bps: null };
  if (to === null) return { direction: 'gone', bps: null };
  if (typeof from !== 'number' || typeof to !== 'number') return { direction: null, bps: null };
  return { direction: to > from ? 'up' : 'down', bps: kind === 'rate' ? bpsBetween(from, to) : null };
}

/** `down 25 bps`, `up 1 bp`, `up` (a fee), `new`, `gone`; nothing for text that changed. */
function movementWords({ direction, bps }: Movement): string | undefined {
  if (direction === null) return undefined;
  if (bps === null) return direction;
  const size = Math.abs(bps);
  return `${direction} ${size} ${size === 1 ? 'bp' : 'bps'}`;
}

/**
 * A change as a line reads it after its label, its values written as the reader writes them (undefined:
 * not listed): `down 60 bps, 5.29 → 4.69 %`, `new, 4.99 %`, `gone, was 5.10 %`, `six months → Six months`.
 */
export function movementLine(movement: Movement, from: string | undefined, to: string | undefined): string {
  if (from === undefined) return `new, ${to}`;
  if (to === undefined) return `gone, was ${from}`;
  const words = movementWords(movement);
  return `${words ? `${words}, ` : ''}${from} → ${to}`;
}
