/**
 * The stale threshold: a dataset whose last successful collection is older than this is `stale`.
 * Declared once, here on the foundation floor, because everything that says it reads it: health's
 * rule and its problems (src/status/health.ts), the health schema's description (so the OpenAPI
 * schema), the OpenAPI health operation, the status page (src/status/report.ts), the browser's
 * freshness words (src/browser/freshness.ts) and the docs (`{{staleAfter}}`, src/docs/pages.ts).
 * test/stale-threshold.test.ts changes it and checks that each follows, and that no other file
 * states it.
 */
const UNITS = [
  ['day', 24 * 60 * 60 * 1000],
  ['hour', 60 * 60 * 1000],
  ['minute', 60 * 1000],
] as const;

export interface StaleThreshold {
  ms: number;
  /** In the largest unit it is a whole number of, in digits, as the pages say a time span ("not checked for 3 hours"). */
  words: string;
}

/** A span of time in the largest unit it is a whole number of ("3 hours", "30 minutes"); refused unless whole minutes. */
export function spanWords(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => ms >= size && ms % size === 0) ?? [];
  if (!unit || !size) throw new Error(`${ms} ms is no whole number of minutes`);
  const n = ms / size;
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** A threshold of `ms`, with its words. */
export const staleThreshold = (ms: number): StaleThreshold => ({ ms, words: spanWords(ms) });

export const STALE_AFTER = staleThreshold(3 * 60 * 60 * 1000);
