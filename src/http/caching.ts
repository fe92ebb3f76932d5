/**
 * HTTP caching for /api/v1. Data changes only with a new deployment (a collection that changes
 * data commits a snapshot, which rebuilds and redeploys), and each Vercel deployment has its own
 * CDN cache, so Vercel's CDN keeps an answer for the life of the deployment. Browsers and other
 * shared caches (a self-hoster's proxy) get the shorter Cache-Control and revalidate with the ETag.
 * No answer varies on anything but method and URL: `x-request-id` is stamped outside the cache
 * (request-id.ts), never part of what is cached.
 */
export const DATA_CACHE_CONTROL = 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400';
/** Read by Vercel's CDN alone, before Cache-Control: a year, the most it allows; a new deployment starts empty. */
export const VERCEL_CDN_CACHE_CONTROL = 'max-age=31536000';
export const NO_STORE = 'no-store';
/**
 * The status page (/status): on Vercel's CDN and any shared cache for at most a minute, never in
 * the browser. It says what is true now, and a minute is far below the hourly runs it reports.
 */
export const STATUS_PAGE_CACHE_CONTROL = 'public, max-age=0, s-maxage=60';

/** Does an If-None-Match header name this ETag? (`*`, lists, and weak forms compare by value.) */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** Cache-Control by outcome: deterministic answers are cacheable, failures, 405 and health are not. */
export function cacheControlFor(kind: 'data' | 'health', status: number): string {
  if (kind === 'health' || status >= 500 || status === 405) return NO_STORE;
  return DATA_CACHE_CONTROL;
}
