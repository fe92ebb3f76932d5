import { z } from 'zod';
import { cut } from '../lib/clean-text.ts';
import { SnapshotDate } from './common.ts';

/** Query and path parameters. Every value is a string, as on the wire and in MCP tool arguments. */
export const TermInMonthsParam = z.string().regex(/^\d+$/, 'must be a whole number of months written in digits');
export const DateParam = SnapshotDate;
export const EntityIdParam = z.string().min(1, 'must not be empty');
const RATE_PATTERN = /^\d+(?:\.\d+)?$/;
const RATE_FORMAT = 'must be a rate in percent written as a decimal number, such as 6 or 5.25';
/** A rate threshold in percent a year: `6`, `5.25` (never negative, never an exponent). */
export const RateParam = z.string().regex(RATE_PATTERN, RATE_FORMAT);
/** The most a rate in percent a year can be that the quote check takes (`rate=100`). */
export const MAX_QUOTED_RATE = 100;
/**
 * A rate someone was offered, in percent a year, from 0 to MAX_QUOTED_RATE: its format is
 * RateParam's (PARAMETER_FORMATS), its bounds and its absence said here.
 */
export const QuotedRateParam = z
  .string({
    error: (issue) =>
      issue.input === undefined ? 'is required: the rate in percent a year, such as 6 or 5.25' : undefined,
  })
  .regex(RATE_PATTERN, RATE_FORMAT)
  .refine((value) => Number(value) <= MAX_QUOTED_RATE, `must be at most ${MAX_QUOTED_RATE}, a rate in percent a year`);
/** A measure as /lowest names it in `measure`: `12`, `floating`, `secured`, `purchase`. */
export const MeasureParam = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a measure key in lower case, such as 12 or purchase');

/** Which way a value of the change log moved: a number `up` or `down`, a value `new` (none before) or `gone` (none now). */
export const CHANGE_DIRECTIONS = ['up', 'down', 'new', 'gone'] as const;
export type ChangeDirection = (typeof CHANGE_DIRECTIONS)[number];
const direction = `(?:${CHANGE_DIRECTIONS.join('|')})`;
/** One direction or several, separated by commas: `down`, `down,new`. */
export const DirectionParam = z
  .string()
  .regex(
    new RegExp(`^${direction}(?:,${direction})*$`),
    `must be ${CHANGE_DIRECTIONS.slice(0, -1).join(', ')} or ${CHANGE_DIRECTIONS.at(-1)}, or several of them separated by commas such as down,new`,
  );
/** A size of a rate move in whole basis points (25 = 0.25 percentage points), never negative. */
export const MinBpsParam = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of basis points written in digits, such as 25');

/**
 * The format of every query parameter an endpoint takes, by name, whichever endpoint it is sent to.
 * A value not of its format is a 400 of the wrong format, which carries no `x-request-id`
 * (/docs/concepts#x-request-id): the core and the request-id stamp both decide that here, from the
 * query alone. A new parameter with a format joins this table (test/request-id.test.ts checks).
 */
export const PARAMETER_FORMATS: Readonly<Record<string, z.ZodType<string>>> = {
  date: DateParam,
  startDate: DateParam,
  endDate: DateParam,
  since: DateParam,
  until: DateParam,
  institutionId: EntityIdParam,
  issuerId: EntityIdParam,
  termInMonths: TermInMonthsParam,
  below: RateParam,
  above: RateParam,
  rate: RateParam,
  measure: MeasureParam,
  direction: DirectionParam,
  minBps: MinBpsParam,
};

/** The most characters of a caller's value or name a hint quotes (an ellipsis marks a cut). */
export const QUOTED_MAX_CHARS = 60;

/** A caller's value quoted for a hint, cut short so a huge value cannot bloat the answer. */
export function quote(value: string): string {
  return JSON.stringify(cut(value, QUOTED_MAX_CHARS + 1));
}

/** What is wrong with the query's format: a parameter given twice, or a value not of its name's format. */
export function formatProblem(params: URLSearchParams): string | undefined {
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (seen.has(key)) return `Parameter ${quote(key)} was given more than once; give it once.`;
    seen.add(key);
    const format = Object.hasOwn(PARAMETER_FORMATS, key) ? PARAMETER_FORMATS[key] : undefined;
    const issue = format?.safeParse(value).error?.issues[0];
    if (issue) return `${key} ${issue.message} (got ${quote(value)}).`;
  }
  return undefined;
}
