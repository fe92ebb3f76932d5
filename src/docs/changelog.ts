/**
 * CHANGELOG.md (Keep a Changelog) as the site shows it: the docs page /docs/changelog and its own
 * Atom feed, one entry per release. The file at the repository root is the one source; the page
 * and the feed are made from it at build time.
 */
import { generateAtomFeed } from 'feedsmith';
import { TERMS_OF_USE } from '../schemas/common.ts';
import { renderMarkdown } from './markdown.ts';

export const CHANGELOG_FILE = 'CHANGELOG.md';
const CHANGELOG_PAGE = '/docs/changelog';
export const CHANGELOG_FEED = '/docs/changelog.atom';
export const CHANGELOG_FEED_TITLE = 'NZ Rates API: changelog';

export interface Release {
  /** `1.0.0`, or `Unreleased`. */
  version: string;
  /** `YYYY-MM-DD`; null for Unreleased. */
  date: string | null;
  /** Its heading's id on the page. */
  anchor: string;
  /** The section's Markdown, its `##` heading excluded. */
  markdown: string;
}

/** `## [1.0.0] - 2026-11-26` or `## [Unreleased]` (Keep a Changelog 1.1.0). */
const RELEASE_HEADING = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?\s*$/;

/**
 * Links the file makes for GitHub (`content/docs/stability.md`), as the site's pages
 * (`/docs/stability`).
 */
const siteLinks = (markdown: string) =>
  markdown.replace(
    /\]\(content\/docs\/([\w-]+)\.md(#[\w-]+)?\)/g,
    (_, slug: string, hash = '') => `](/docs/${slug}${hash})`,
  );

/** The releases of the changelog, newest first as the file lists them. A `##` heading of another form is an error. */
export function parseChangelog(text: string): Release[] {
  const { headings } = renderMarkdown(text);
  const anchors = headings.filter((h) => h.depth === 2).map((h) => h.id);
  const releases: Release[] = [];
  let current: Release | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) {
      const match = RELEASE_HEADING.exec(line);
      if (!match)
        throw new Error(
          `${CHANGELOG_FILE}: "${line}" is not a release heading (## [1.2.3] - YYYY-MM-DD, or ## [Unreleased])`,
        );
      const [, version, date] = match;
      if (version !== 'Unreleased' && !date) throw new Error(`${CHANGELOG_FILE}: release ${version} has no date`);
      current = { version: version!, date: date ?? null, anchor: anchors[releases.length]!, markdown: '' };
      releases.push(current);
    } else if (current) {
      current.markdown += `${line}\n`;
    }
  }
  for (const release of releases) release.markdown = release.markdown.trim();
  return releases;
}

/** The page's Markdown: the file with the site's links, and where to follow the releases. */
export function changelogMarkdown(text: string): string {
  const follow = `Follow the releases with the [changelog's Atom feed](${CHANGELOG_FEED}) in any feed reader (one entry per release; the Unreleased section is not announced).`;
  const [title, ...rest] = siteLinks(text).split('\n## ');
  return [`${title!.trim()}\n\n${follow}`, ...rest].join('\n\n## ');
}

/**
 * The Atom feed: one entry per dated release, newest first; its time is the newest release's date, never the build's.
 * `hub`: the WebSub hub it names beside its own address (src/lib/websub.ts), none when unset.
 */
export function changelogFeed(text: string, site: string, hub?: string): string {
  const released = parseChangelog(text).filter((r) => r.date !== null);
  const newest = released[0];
  if (!newest) throw new Error(`${CHANGELOG_FILE} has no dated release for its feed`);
  const day = (date: string) => `${date}T00:00:00Z`;
  const host = new URL(site).hostname;
  return generateAtomFeed({
    id: `tag:${host},2026:changelog`,
    title: { value: CHANGELOG_FEED_TITLE, type: 'text' },
    subtitle: {
      value: 'What changes for the people and programs that use the service, one entry per release.',
      type: 'text',
    },
    updated: day(newest.date!),
    authors: [{ name: 'NZ Rates API', uri: `${site}/` }],
    links: [
      { href: `${site}${CHANGELOG_PAGE}`, rel: 'alternate', type: 'text/html' },
      { href: `${site}${CHANGELOG_FEED}`, rel: 'self', type: 'application/atom+xml' },
      ...(hub ? [{ href: hub, rel: 'hub' }] : []),
    ],
    rights: { value: TERMS_OF_USE, type: 'text' },
    entries: released.map((release) => ({
      id: `tag:${host},2026:changelog/${release.version}`,
      title: { value: `${release.version} (${release.date})`, type: 'text' },
      updated: day(release.date!),
      links: [{ href: `${site}${CHANGELOG_PAGE}#${release.anchor}`, rel: 'alternate', type: 'text/html' }],
      content: { value: renderMarkdown(siteLinks(release.markdown)).html, type: 'html' },
    })),
  });
}
