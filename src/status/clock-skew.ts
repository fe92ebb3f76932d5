/**
 * The status store's times are written by the collector's clock (GitHub Actions, or this machine)
 * and read against the server's. Clocks differ by seconds, not minutes: a time further ahead than
 * CLOCK_SKEW_MS comes from a wrong clock or a hand-edited record, and believing it would say
 * "just now" (fresh, not stale) until that time came. Such a record, or run, is read as absent —
 * unknown, as if nothing were recorded — and logged once.
 */

/** How far ahead of the server's clock a stored time may be and still be believed. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Is this stored time (ISO 8601) more than CLOCK_SKEW_MS ahead of `now`? */
export const isAhead = (iso: string | null | undefined, now: Date): boolean =>
  iso != null && Date.parse(iso) - now.getTime() > CLOCK_SKEW_MS;

/** What was last logged of each thing read (a dataset's record, the run log): health is read every few seconds. */
const logged = new Map<string, string>();

/** Log that `subject` holds a time ahead of the clock, once per time it holds (a new record logs again). */
export function logAheadOnce(
  log: (message: string, error: unknown) => void,
  subject: string,
  time: string,
  now: Date,
): void {
  if (logged.get(subject) === time) return;
  logged.set(subject, time);
  log(
    `${subject} is dated ahead of this server's clock, so it is read as unknown:`,
    `${time} is more than ${CLOCK_SKEW_MS / 60_000} minutes after ${now.toISOString()}`,
  );
}
