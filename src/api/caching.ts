/**
 * HTTP caching for the data endpoints. Data changes only when a collection commits a new
 * snapshot, which rebuilds and redeploys the site (and a new deployment starts with an empty
 * CDN cache), so the CDN may keep answers for an hour and serve a stale one while it refreshes.
 */
export const DATA_CACHE_CONTROL = 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400';
export const NO_STORE = 'no-store';

/** Does an If-None-Match header name this ETag? (`*`, lists, and weak forms compare by value.) */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** A 304 for a matching conditional GET, keeping the headers a cache needs. */
export async function notModifiedIfMatching(request: Request, response: Response): Promise<Response> {
  const etag = response.headers.get('etag');
  if (response.status !== 200 || !etag || !matchesEtag(request.headers.get('if-none-match'), etag)) return response;
  await response.body?.cancel();
  return new Response(null, { status: 304, headers: { etag } });
}

/** Cache-Control by outcome: deterministic answers are cacheable, failures and health are not. */
export function cacheControlFor(kind: 'data' | 'health', status: number): string {
  if (kind === 'health' || status >= 500 || status === 405) return NO_STORE;
  return DATA_CACHE_CONTROL;
}
