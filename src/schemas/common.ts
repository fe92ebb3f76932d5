import { z } from 'zod';

/** Every response that carries rates includes this text (its `termsOfUse` field). */
export const TERMS_OF_USE =
  'These rates are collected automatically from interest.co.nz and are provided for information only. ' +
  'They may be incorrect, incomplete or out of date. The institution that publishes a rate is the authority ' +
  'for it: confirm any rate with the institution before relying on it.';

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written YYYY-MM-DD (rejects 2024-02-30). */
export function isCalendarDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

export const SnapshotDate = z
  .string()
  .regex(DATE_PATTERN, 'must be a date written YYYY-MM-DD')
  .refine(isCalendarDate, 'must be a real calendar date');

export const IsoDateTime = z.iso.datetime();

/**
 * Characters no name or label carries: controls (ANSI escapes start with one), bidirectional
 * overrides and isolates, zero-width characters and the byte-order mark. The collector removes
 * them (src/collect/cells.ts); the schema refuses them, so the build refuses a snapshot with one.
 */
export const INVISIBLE_CHARACTERS = /[\p{Cc}\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

/** Text as names and labels are kept: Unicode NFC, no invisible or control characters. */
export const CleanText = z
  .string()
  .refine((text) => !INVISIBLE_CHARACTERS.test(text), 'must not hold control, bidi or zero-width characters')
  .refine((text) => text === text.normalize('NFC'), 'must be in Unicode NFC');

export const idWithPrefix = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}:`), `must begin with "${prefix}:"`);
