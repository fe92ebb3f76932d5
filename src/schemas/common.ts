import { z } from 'zod';

/** Every response that carries rates includes this text (its `termsOfUse` field). */
export const TERMS_OF_USE =
  'These rates are collected automatically from interest.co.nz and are provided for information only. ' +
  'They may be incorrect, incomplete or out of date. The institution that publishes a rate is the authority ' +
  'for it: confirm any rate with the institution before relying on it.';

export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

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

export const idWithPrefix = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}:`), `must begin with "${prefix}:"`);
