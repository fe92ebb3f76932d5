/**
 * The docs as one list of pages: hand-written Markdown from content/docs, and a reference page
 * per dataset generated from the dataset table. The site, the raw `.md` routes, llms.txt,
 * llms-full.txt and the search index are all made from this list.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DATASETS, type DatasetSlug } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import { FIXED_TERM_MONTHS_PROSE } from '../schemas/terms.ts';
import { countWord } from '../lib/words.ts';
import type { ExampleSet } from '../examples.ts';
import { LIMITS, mib, SUPPORTED_VERSIONS } from '../mcp/protocol.ts';
import { REST_TOOL_KINDS } from '../mcp/rest-tools.ts';
import { TOOLS } from '../mcp/tool-table.ts';
import { figuresSubstitutions, type DatasetFigures } from './figures.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { renderMarkdown, type Heading } from './markdown.ts';
import { referenceMarkdown, timeSeriesRules } from './reference.ts';
import { changesSubstitutions } from '../changes/docs.ts';
import { collectionSubstitutions } from '../collect/docs.ts';
import { MAX_TIME_SERIES_SNAPSHOTS } from '../api/time-series.ts';
import { restrictionsMarkdown } from '../explorer/restrictions.ts';
import { INSPECTOR_PACKAGE } from './tested-versions.ts';
import { STATUS_PAGE_CACHE_CONTROL } from '../http/caching.ts';
import { RUN_LOG_LENGTH, RUN_LOG_MAX_BYTES } from '../status/run-log.ts';
import { REASON_MAX_CHARS } from '../lib/clean-text.ts';
import { STATUS_RECORD_MAX_BYTES } from '../status/status-store.ts';
import { CHANGELOG_FEED, CHANGELOG_FEED_TITLE, CHANGELOG_FILE, changelogMarkdown } from './changelog.ts';

export interface DocPage {
  /** '' for the overview, 'quickstart', 'reference/<dataset slug>' … */
  slug: string;
  url: string;
  /** The raw Markdown of the page. */
  mdUrl: string;
  title: string;
  description: string;
  group: 'Guides' | 'Reference';
  order: number;
  markdown: string;
  html: string;
  headings: Heading[];
  /** An Atom feed of the page's own, announced in its head (the changelog's). */
  feed?: { href: string; title: string };
}

/** The repository's root, where the included files and CHANGELOG.md are. */
const REPOSITORY = resolve(import.meta.dirname, '../..');

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

/** A tool's arguments for the tools table: what it takes, then what it accepts and ignores. */
const toolArguments = (t: (typeof TOOLS)[number]) =>
  [
    ...Object.keys(t.input.shape).map((k) => `\`${k}\``),
    ...t.ignored.map((k) => `\`${k}\` (accepted and ignored)`),
  ].join(', ') || '—';

/** Values the hand-written pages can include, so lists that the code defines are written once. */
function substitutions(site: string): Record<string, string> {
  return {
    site,
    /** "6, 12, 18, 24, 36, 48 or 60": the mortgage terms `termInMonths` takes. */
    fixedTermMonths: FIXED_TERM_MONTHS_PROSE,
    // The MCP endpoint's limits (src/mcp/protocol.ts LIMITS), as the pages state them.
    mcpBodyLimit: kib(LIMITS.bodyBytes),
    mcpBatchMessages: String(LIMITS.batchMessages),
    /** The status page's run log: how many runs and bytes it keeps, how long a reason is, and the page's caching. */
    runLogLength: String(RUN_LOG_LENGTH),
    runLogMaxBytes: kib(RUN_LOG_MAX_BYTES),
    statusRecordMaxBytes: mib(STATUS_RECORD_MAX_BYTES),
    reasonMaxChars: REASON_MAX_CHARS.toLocaleString('en'),
    statusPageCacheControl: STATUS_PAGE_CACHE_CONTROL,
    mcpBatchToolCalls: String(LIMITS.batchToolCalls),
    mcpResponseLimit: mib(LIMITS.responseBytes),
    mcpResponseBytes: String(LIMITS.responseBytes),
    mcpResultLimit: mib(LIMITS.resultBytes),
    mcpConcurrentCalls: String(LIMITS.concurrentToolCalls),
    /** The most snapshots one time-series answer holds. */
    maxTimeSeriesSnapshots: MAX_TIME_SERIES_SNAPSHOTS.toLocaleString('en'),
    /** The explorer's restricted-offer rules, with what each caught in the history. */
    restrictionRules: restrictionsMarkdown(
      Object.fromEntries(DATASETS.map((d) => [d.slug, d.title])) as Record<DatasetSlug, string>,
    ),
    timeSeriesRules: timeSeriesRules(
      '`institutionId` (credit cards: `issuerId`)',
      '`institution_not_found` (`issuer_not_found`)',
    ),
    /** How many MCP tools there are, and per dataset, in words. */
    toolCount: countWord(TOOLS.length),
    toolsPerDataset: countWord(REST_TOOL_KINDS.length),
    /** How many MCP protocol versions the server speaks, in words. */
    protocolVersionCount: countWord(SUPPORTED_VERSIONS.length),
    /** The Inspector the docs' commands run: the version the suite tests. */
    inspectorPackage: INSPECTOR_PACKAGE,
    tools: [
      '| tool | what it returns | arguments |',
      '| --- | --- | --- |',
      ...TOOLS.map((t) => `| \`${t.name}\` | ${t.title} | ${toolArguments(t)} |`),
    ].join('\n'),
    datasets: [
      '| dataset | list | one institution or issuer | time series | reference |',
      '| --- | --- | --- | --- | --- |',
      ...DATASETS.map((d) => {
        const { list, detail, timeSeries } = endpointsOf(d);
        return `| ${d.title} | \`${list.path}\` | \`${detail.path}\` | \`${timeSeries.path}\` | [${d.title}](/docs/reference/${d.slug}) |`;
      }),
    ].join('\n'),
  };
}

/**
 * Files the pages include whole as `{{name}}`, by path in the repository: the examples the suite
 * type-checks and runs (test/typed-clients.test.ts), so a page shows exactly the code that works.
 */
export const INCLUDED_FILES = {
  typescriptExample: 'examples/typescript/rates.ts',
  pythonExample: 'examples/python/rates.py',
} as const;

async function includedFiles(): Promise<Record<string, string>> {
  const entries = Object.entries(INCLUDED_FILES).map(async ([name, path]) => {
    const text = await readFile(join(REPOSITORY, path), 'utf8');
    return [name, text.trimEnd()] as const;
  });
  return Object.fromEntries(await Promise.all(entries));
}

function page(
  slug: string,
  title: string,
  description: string,
  group: DocPage['group'],
  order: number,
  markdown: string,
): DocPage {
  const url = slug ? `/docs/${slug}` : '/docs';
  return { slug, url, mdUrl: `${url}.md`, title, description, group, order, markdown, ...renderMarkdown(markdown) };
}

export async function loadDocPages(options: {
  contentDir: string;
  site: string;
  examples: ExampleSet;
  /** The sizes the pages state, measured from the answers (src/docs/figures.ts). */
  figures: DatasetFigures[];
}): Promise<DocPage[]> {
  const values = {
    ...substitutions(options.site),
    ...figuresSubstitutions(options.figures),
    ...changesSubstitutions(options.site, options.examples),
    ...collectionSubstitutions(),
    ...(await includedFiles()),
  };
  const pages: DocPage[] = [];
  for (const name of (await readdir(options.contentDir)).filter((f) => f.endsWith('.md')).sort()) {
    const { data, body } = parseFrontmatter(await readFile(join(options.contentDir, name), 'utf8'));
    const markdown = body.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
    const slug = name === 'index.md' ? '' : name.replace(/\.md$/, '');
    pages.push(page(slug, data.title ?? slug, data.description ?? '', 'Guides', Number(data.order ?? 50), markdown));
  }
  // CHANGELOG.md at the repository root, where contributors keep it, shown among the guides.
  const changelog = await readFile(join(REPOSITORY, CHANGELOG_FILE), 'utf8');
  pages.push({
    ...page(
      'changelog',
      'Changelog',
      'What changed in each release for the people and programs that use the service, with its Atom feed.',
      'Guides',
      4.85,
      changelogMarkdown(changelog),
    ),
    feed: { href: CHANGELOG_FEED, title: CHANGELOG_FEED_TITLE },
  });
  DATASETS.forEach((dataset, i) => {
    const markdown = referenceMarkdown(dataset, options.examples, options.site);
    pages.push(
      page(
        `reference/${dataset.slug}`,
        dataset.title,
        `Endpoints, parameters, examples and fields of the ${dataset.label}.`,
        'Reference',
        100 + i,
        markdown,
      ),
    );
  });
  return pages.sort((a, b) => a.order - b.order);
}
