/**
 * The words the pages use for times (src/lib/time-words.ts), shared by the rates pages' script and
 * the status page: how long ago and how old, in the largest whole unit, counted down, months and
 * years by New Zealand's calendar; and dates and times in New Zealand time.
 */
import { describe, expect, it } from 'vitest';
import { age, elapsed, nzDate, nzTime, timeAgo } from '../src/lib/time-words.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 5 Mar 2025, 1:00 pm NZDT: the test history's newest date. */
const START = new Date('2025-03-05T00:00:00Z');
const later = (ms: number) => new Date(START.getTime() + ms);

describe('elapsed: the largest unit of which a whole one has passed', () => {
  it.each([
    [0, undefined],
    [59 * SECOND, undefined],
    [MINUTE, '1 minute'],
    [2 * MINUTE - 1, '1 minute'],
    [2 * MINUTE, '2 minutes'],
    [HOUR - 1, '59 minutes'],
    [HOUR, '1 hour'],
    [2 * HOUR - 1, '1 hour'],
    [2 * HOUR, '2 hours'],
    [DAY - 1, '23 hours'],
    [DAY, '1 day'],
    [2 * DAY - 1, '1 day'],
    [2 * DAY, '2 days'],
    [30 * DAY, '30 days'],
  ])('%i ms is %s', (ms, words) => {
    expect(elapsed(START, later(ms))).toBe(words);
  });

  it('is undefined when `to` is before `from` (a clock behind)', () => {
    expect(elapsed(START, later(-DAY))).toBeUndefined();
  });

  it.each([
    // Days until a calendar month has passed on New Zealand's calendar, then months.
    ['2025-04-04T23:59:59Z', '30 days'], // 5 Apr, 12:59 pm NZDT
    ['2025-04-05T00:00:00Z', '1 month'], // 5 Apr, 1:00 pm NZDT
    ['2025-05-05T01:00:00Z', '2 months'], // 5 May, 1:00 pm NZST
    // The page: as of 5 Mar 2025 with the clock in November 2026.
    ['2026-11-04T23:59:00Z', '19 months'], // 5 Nov 2026, 12:59 pm NZDT
    ['2026-11-05T00:00:00Z', '20 months'],
    ['2026-11-27T21:00:00Z', '20 months'],
    // Months until two years have passed, then years.
    ['2027-03-04T23:59:00Z', '23 months'],
    ['2027-03-05T00:00:00Z', '2 years'],
    ['2030-03-05T00:00:00Z', '5 years'],
  ])('from 5 Mar 2025, 1:00 pm NZDT to %s is %s', (to, words) => {
    expect(elapsed(START, new Date(to))).toBe(words);
  });

  it('counts a month from a day of the month to the same day, a short month too', () => {
    // 31 Jan to 28 Feb is not a month; to 1 Mar it is (New Zealand dates).
    const from = new Date('2025-01-30T21:00:00Z'); // 31 Jan, 10:00 am NZDT
    expect(elapsed(from, new Date('2025-02-27T21:00:00Z'))).toBe('28 days');
    expect(elapsed(from, new Date('2025-02-28T21:00:00Z'))).toBe('1 month');
  });

  it('counts months on New Zealand’s calendar, not UTC’s', () => {
    // 1 Mar, 12:30 am NZDT (28 Feb in UTC) to 1 Apr, 12:00 am NZDT (31 Mar in UTC): a month in UTC, not yet in New Zealand.
    expect(elapsed(new Date('2025-02-28T11:30:00Z'), new Date('2025-03-31T11:00:00Z'))).toBe('30 days');
  });
});

describe('timeAgo', () => {
  it('says "just now" under a minute (or ahead of the clock), else the elapsed time and "ago"', () => {
    expect(timeAgo(START, later(30 * SECOND))).toBe('just now');
    expect(timeAgo(START, later(-MINUTE))).toBe('just now');
    expect(timeAgo(START, later(MINUTE))).toBe('1 minute ago');
    expect(timeAgo(START, later(12 * MINUTE + 40 * SECOND))).toBe('12 minutes ago');
    expect(timeAgo(START, later(2 * DAY + HOUR))).toBe('2 days ago');
    expect(timeAgo(START, new Date('2026-11-27T21:00:00Z'))).toBe('20 months ago');
  });
});

describe('age: how old rates are, beside their date', () => {
  it('says nothing under a day: the date and time say enough', () => {
    expect(age(START, START)).toBeUndefined();
    expect(age(START, later(DAY - 1))).toBeUndefined();
  });

  it('says "n <unit> old" from a day on, singular and plural', () => {
    expect(age(START, later(DAY))).toBe('1 day old');
    expect(age(START, later(3 * DAY + 5 * HOUR))).toBe('3 days old');
    expect(age(START, new Date('2025-04-05T00:00:00Z'))).toBe('1 month old');
    expect(age(START, new Date('2026-11-27T21:00:00Z'))).toBe('20 months old');
    expect(age(START, new Date('2027-03-05T00:00:00Z'))).toBe('2 years old');
  });
});

describe('New Zealand time', () => {
  it('names the zone, daylight time and standard time', () => {
    expect(nzTime(START)).toBe('5 Mar 2025, 1:00 pm NZDT');
    expect(nzTime(new Date('2025-06-30T23:30:00Z'))).toBe('1 Jul 2025, 11:30 am NZST');
  });

  it('dates a time by New Zealand’s calendar', () => {
    expect(nzDate(new Date('2025-03-04T11:30:00Z'))).toBe('5 Mar 2025');
  });
});
