/**
 * Docs search: the `/api/search` handler, answering from the index of page sections built at
 * build time (search-index.ts, MiniSearch).
 */
import MiniSearch from 'minisearch';
import { defaultLog, type Log } from '../lib/log.ts';
import { ALLOWED_METHODS, isAllowedMethod } from '../paths.ts';
import type { Answer } from '../http/answer.ts';
import { ApiError, errorAnswer, json } from '../api/responses.ts';
import { INVALID_REQUEST, parseQuery } from '../api/query.ts';
import { SearchQuery, type SearchResponse } from '../schemas/search.ts';
import { siteUrl } from '../site.ts';

export interface Section {
  id: string;
  title: string;
  url: string;
  section: string;
  text: string;
}

/** MiniSearch's options: the index is built with them (search-index.ts) and loaded with them. */
export const OPTIONS = {
  fields: ['title', 'section', 'text'],
  storeFields: ['title', 'url', 'section', 'text'],
  searchOptions: { boost: { section: 3, title: 2 }, prefix: true, fuzzy: 0.15, combineWith: 'AND' as const },
};

function snippet(text: string, terms: string[]): string {
  const lower = text.toLowerCase();
  const at = Math.min(...terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0), text.length);
  const start = at === text.length ? 0 : Math.max(0, at - 60);
  const cut = text.slice(start, start + 200);
  return `${start > 0 ? '…' : ''}${cut}${start + 200 < text.length ? '…' : ''}`;
}

function createSearch(indexJson: string) {
  const index = MiniSearch.loadJSON<Section>(indexJson, OPTIONS);
  return function search(query: string, limit = 10): SearchResponse {
    const results = index.search(query).slice(0, limit);
    return {
      query,
      results: results.map((r) => ({
        title: r.title as string,
        url: r.url as string,
        section: r.section as string,
        snippet: snippet(r.text as string, r.terms),
        score: Math.round(r.score * 1000) / 1000,
      })),
    };
  };
}

/**
 * GET /api/search?query=…&limit=… — `site` is the origin of `documentationUrl` in errors, never
 * the request's. Like /api/v1 (src/service.ts gives it the same way out): readable from any
 * origin, and an answer depends on the URL alone, so it is cacheable until the next deployment.
 */
export function createSearchCore(loadIndex: () => Promise<string>, site: string = siteUrl(), log: Log = defaultLog) {
  let search: Promise<ReturnType<typeof createSearch>> | undefined;
  return async function answer(method: string, url: URL): Promise<Answer> {
    try {
      if (!isAllowedMethod(method)) {
        const allow = ALLOWED_METHODS.join(', ');
        throw new ApiError('method_not_allowed', 'Method not allowed', 'Search with GET /api/search?query=…', {
          headers: { allow },
        });
      }
      const query = parseQuery(SearchQuery, url.searchParams);
      if (!query.query) throw new ApiError('invalid_request', INVALID_REQUEST, 'query must not be empty.');
      search ??= loadIndex().then(createSearch);
      return json((await search)(query.query, Number(query.limit ?? 10)));
    } catch (error) {
      const apiError =
        error instanceof ApiError
          ? error
          : new ApiError(
              'server_error',
              'An error occurred while searching the documentation',
              'Retry shortly; the docs are also at /llms-full.txt.',
            );
      if (!(error instanceof ApiError)) log('search: failed:', error);
      return errorAnswer(apiError, site);
    }
  };
}
