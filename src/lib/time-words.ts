/** Times as the pages say them, on the server (the status page) and in the browser (src/scripts/freshness.ts) alike. */

/** Health's times are `YYYY-MM-DD HH:MM:SS`, UTC (src/schemas/health.ts); ISO 8601 is read as it is. */
export const parseHealthTime = (time: string) => new Date(time.includes('T') ? time : `${time.replace(' ', 'T')}Z`);

/** "just now", "1 minute ago", "3 hours ago", "2 days ago", for a time `ms` milliseconds ago (rounded). */
export function timeAgo(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  const [n, unit] =
    minutes < 60
      ? [minutes, 'minute']
      : minutes < 48 * 60
        ? [Math.round(minutes / 60), 'hour']
        : [Math.round(minutes / 1440), 'day'];
  return minutes < 1 ? 'just now' : `${n} ${unit}${n === 1 ? '' : 's'} ago`;
}
