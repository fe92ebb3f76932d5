/**
 * CHANGELOG.md names everything a client can call or follow, so that no addition reaches a release
 * unnamed: every path of the OpenAPI document, every MCP tool of the tool table, and every feed —
 * the Atom routes the site builds (each `*.atom` route file under src/pages), the feeds the API
 * answers (an operation whose answer is a feed) and the Atom twin of the alerts feeds.
 *
 * A path is named in its general form: a dataset as `<dataset>` (its slug, or its explorer path
 * under /rates), an institution or issuer as `<id>`, a compared measure as `<measure>`. A tool is
 * named as it is called.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { parseChangelog } from '../src/docs/changelog.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { buildOpenApiDocument } from '../src/openapi/document.ts';
import { ALERTS_FEED_FILE, FEEDS_PREFIX } from '../src/paths.ts';
import { ROOT, SITE } from './support/constants.ts';

/** The releases' text, Unreleased first: the preamble above them names nothing a client uses. */
const RELEASES = parseChangelog(await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8'))
  .map((r) => r.markdown)
  .join('\n');
const PAGES = join(ROOT, 'src/pages');

/** What a route file's parameter stands for, as the changelog writes it. */
const ROUTE_PARAMS: Record<string, string> = { dataset: '<dataset>', entity: '<id>', measure: '<measure>' };

/** A concrete path in its general form: datasets, institutions and issuers by their placeholders. */
function general(path: string): string {
  const slugs = new Set<string>(DATASETS.map((d) => d.slug));
  const explorerPaths = new Set(DATASETS.map((d) => EXPLORER[d.slug].path));
  const params = new Set(DATASETS.map((d) => `{${d.entity.param}}`));
  return path
    .split('/')
    .map((segment, i, all) =>
      slugs.has(segment) || (all[1] === 'rates' && i === 2 && explorerPaths.has(segment))
        ? '<dataset>'
        : params.has(segment)
          ? '<id>'
          : segment,
    )
    .join('/');
}

/** The route of a page file (`rates/[dataset]/changes.atom.ts` → `/rates/<dataset>/changes.atom`), or a reason it has none. */
function routeOf(file: string): string {
  return `/${file.replace(/\.ts$/, '')}`.replace(/\[(\w+)\]/g, (_, name: string) => {
    const placeholder = ROUTE_PARAMS[name];
    if (!placeholder) throw new Error(`${file}: no placeholder for the route parameter [${name}] in ROUTE_PARAMS`);
    return placeholder;
  });
}

const document = buildOpenApiDocument({ site: SITE, examples: {} }) as unknown as {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
};
const FEED_TYPES = ['application/feed+json', 'application/atom+xml'];
const answersFeed = (item: (typeof document.paths)[string]) =>
  Object.values(item).some((op) =>
    Object.values(op.responses ?? {}).some((r) => Object.keys(r.content ?? {}).some((t) => FEED_TYPES.includes(t))),
  );

const apiPaths = [...new Set(Object.keys(document.paths).map(general))];
const siteFeeds = (await readdir(PAGES, { recursive: true, withFileTypes: true }))
  .filter((e) => e.isFile() && e.name.endsWith('.atom.ts'))
  .map((e) => routeOf(relative(PAGES, join(e.parentPath, e.name))));
const apiFeeds = [
  ...new Set(
    Object.entries(document.paths)
      .filter(([, item]) => answersFeed(item))
      .map(([path]) => general(path)),
  ),
];
const feeds = [...siteFeeds, ...apiFeeds, `${FEEDS_PREFIX}/<dataset>/${ALERTS_FEED_FILE}`];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Named in code: `<path>`, or with its method (`GET <path>`) or a query (`<path>?…`). */
const named = (text: string) => new RegExp(`\`(?:[A-Z]+ )?${escapeRegExp(text)}(?:\\?[^\`]*)?\``);

describe('CHANGELOG.md names every endpoint, tool and feed', () => {
  it('the lists it is checked against are whole: every dataset endpoint, the MCP endpoint, the Atom routes, the feeds', () => {
    const perDataset = ['', '/<id>', '/time-series', '/lowest'].map((rest) => `/api/v1/<dataset>${rest}`);
    expect(apiPaths).toEqual(expect.arrayContaining([...perDataset, '/api/v1/mcp']));
    expect(siteFeeds).toEqual(expect.arrayContaining(['/rates/changes.atom', '/docs/changelog.atom']));
    expect(siteFeeds.length).toBeGreaterThanOrEqual(5);
    expect(apiFeeds.length).toBeGreaterThan(0);
    expect(TOOLS.length).toBeGreaterThanOrEqual(DATASETS.length * 4);
  });

  it.each(apiPaths)('names the API path %s', (path) => expect(RELEASES).toMatch(named(path)));

  it.each(TOOLS.map((t) => t.name))('names the MCP tool %s', (name) => expect(RELEASES).toMatch(named(name)));

  it.each(feeds)('names the feed %s', (feed) => expect(RELEASES).toMatch(named(feed)));

  it('the general form is what a reader substitutes: a dataset, an id, a measure', () => {
    const [first] = DATASETS;
    expect(general(`/api/v1/${first.slug}/{${first.entity.param}}`)).toBe('/api/v1/<dataset>/<id>');
    expect(general(`/rates/${EXPLORER[first.slug].path}/changes.atom`)).toBe('/rates/<dataset>/changes.atom');
    expect(routeOf('rates/[dataset]/[measure]/lowest.atom.ts')).toBe('/rates/<dataset>/<measure>/lowest.atom');
    expect(() => routeOf('rates/[colour].atom.ts')).toThrow('[colour]');
  });
});
