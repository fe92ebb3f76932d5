/**
 * A docs page asked for as Markdown is answered from its `.md` twin (/docs/ai#llmstxt): `/docs`
 * from `/docs.md`, `/docs/<slug>` from `/docs/<slug>.md`, and both answers vary with Accept. One
 * rule for both deployments: npm start's page server (src/server/page-requests.ts) and Vercel's
 * routing middleware (src/server/vercel-middleware.ts), which runs on DOCS_PAGE_MATCHERS, the same
 * rule in the path syntax Vercel's router reads. Kept free of the project's other modules so the
 * middleware bundle stays small; `negotiator` is a package, which Vercel ships beside it.
 */
import Negotiator from 'negotiator';

/** The header both answers of a docs page name in `Vary`, so no cache serves one for the other. */
export const DOCS_PAGE_VARY = 'Accept';

/**
 * Vercel's `config.matcher` form of docsPageOf (path-to-regexp, a trailing slash allowed): `/docs`,
 * and any path under it whose last segment has no dot — never a file such as `<page>.md` itself.
 */
export const DOCS_PAGE_MATCHERS = ['/docs', '/docs/:page((?:[^/]+/)*[^/.]+)'];

/**
 * A docs page's path without its trailing slash (`/docs`, `/docs/<slug>`), whose Markdown is at
 * `<page>.md`; undefined for any other path (a file under /docs has a dot in its name).
 */
function docsPageOf(path: string): string | undefined {
  const page = path.replace(/\/$/, '');
  if (page !== '/docs' && !page.startsWith('/docs/')) return undefined;
  return page.slice(page.lastIndexOf('/')).includes('.') ? undefined : page;
}

/** Markdown over HTML when the client weighs it higher, or alike and names it first (negotiator's order). */
const prefersMarkdown = (accept: string | null | undefined) =>
  new Negotiator({ headers: { accept: accept ?? undefined } }).mediaType(['text/html', 'text/markdown']) ===
  'text/markdown';

/**
 * Undefined when `path` (no query) is no docs page; else the path of its `.md` twin when the
 * request's Accept prefers Markdown to HTML, or undefined `markdown` for the HTML page itself.
 */
export function negotiateDocsPage(
  path: string,
  accept: string | null | undefined,
): { markdown: string | undefined } | undefined {
  const page = docsPageOf(path);
  if (page === undefined) return undefined;
  return { markdown: prefersMarkdown(accept) ? `${page}.md` : undefined };
}
