/**
 * Times as the pages say them, on the server (the status page) and in the browser (src/browser/freshness.ts)
 * alike: every date and time in New Zealand time, and how long ago or how old in one set of words.
 */

/** Health's times are `YYYY-MM-DD HH:MM:SS`, UTC (src/schemas/health.ts); ISO 8601 is read as it is. */
export const parseHealthTime = (time: string) => new Date(time.includes('T') ? time : `${time.replace(' ', 'T')}Z`);

/** The zone every page states its dates and times in, and whose calendar counts months and years. */
export const NZ_TIME_ZONE = 'Pacific/Auckland';

const NZ_TIME = new Intl.DateTimeFormat('en-NZ', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZone: NZ_TIME_ZONE,
  timeZoneName: 'short',
});
const NZ_DATE = new Intl.DateTimeFormat('en-NZ', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: NZ_TIME_ZONE,
});

/** "26 Nov 2026, 11:16 pm NZDT": a time in New Zealand time, its zone named. */
export const nzTime = (at: Date) => NZ_TIME.format(at);
/** "26 Nov 2026": the date in New Zealand of a time. */
export const nzDate = (at: Date) => NZ_DATE.format(at);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const WALL_CLOCK = new Intl.DateTimeFormat('en-NZ', {
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
  timeZone: NZ_TIME_ZONE,
});
const FIELDS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;

/** Year, month, day, hour, minute and second of `at` on a New Zealand clock. */
function wallClock(at: Date): number[] {
  const parts = WALL_CLOCK.formatToParts(at);
  return FIELDS.map((field) => Number(parts.find((p) => p.type === field)?.value));
}

/** Whole calendar months from `from` to `to` on New Zealand's calendar: 5 Mar to 5 Apr is one, 31 Jan to 28 Feb none. */
function wholeMonths(from: Date, to: Date): number {
  const [fy, fm, ...fRest] = wallClock(from) as [number, number, ...number[]];
  const [ty, tm, ...tRest] = wallClock(to) as [number, number, ...number[]];
  const months = (ty - fy) * 12 + (tm - fm);
  // Short of the day and time of the month it started on: one month fewer.
  const i = tRest.findIndex((t, k) => t !== fRest[k]);
  return i >= 0 && tRest[i]! < fRest[i]! ? months - 1 : months;
}

/**
 * How long from `from` to `to`, in the largest unit of which a whole one has passed, counted down
 * (never rounded up): "1 minute", "59 minutes", "1 hour", "23 hours", "1 day", "30 days", "1 month",
 * "23 months", "2 years". Days until a calendar month has passed, months until two years have.
 * Undefined for less than a minute, or when `to` is not after `from`.
 */
export function elapsed(from: Date, to: Date): string | undefined {
  const ms = to.getTime() - from.getTime();
  if (!(ms >= MINUTE)) return undefined;
  const months = ms >= 28 * DAY ? wholeMonths(from, to) : 0;
  const [n, unit] =
    months >= 24
      ? [Math.floor(months / 12), 'year']
      : months >= 1
        ? [months, 'month']
        : ms >= DAY
          ? [Math.floor(ms / DAY), 'day']
          : ms >= HOUR
            ? [Math.floor(ms / HOUR), 'hour']
            : [Math.floor(ms / MINUTE), 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** "just now", "1 minute ago", "3 hours ago", "2 days ago", "20 months ago": how long before `now` the time `at` was. */
export function timeAgo(at: Date, now: Date): string {
  const span = elapsed(at, now);
  return span ? `${span} ago` : 'just now';
}

/**
 * "1 day old", "3 days old", "20 months old": how old something dated `at` (rates, when they last
 * changed) is at `now`; undefined when less than a day old, where its date and time say enough.
 */
export function age(at: Date, now: Date): string | undefined {
  return now.getTime() - at.getTime() >= DAY ? `${elapsed(at, now)} old` : undefined;
}
