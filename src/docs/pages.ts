/**
 * The docs as one list of pages: hand-written Markdown from content/docs, and a reference page
 * per dataset generated from the dataset table. The site, the raw `.md` routes, llms.txt,
 * llms-full.txt and the search index are all made from this list.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { DATASETS, datasetsInWords, type DatasetSlug } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import { FIXED_TERM_MONTHS_PROSE } from '../schemas/terms.ts';
import { countWord, listInWords, namesInWords } from '../lib/words.ts';
import type { ExampleSet } from '../examples.ts';
import { LIMITS, mib, SUPPORTED_VERSIONS } from '../mcp/protocol.ts';
import { REST_TOOL_KINDS, type TwinKind } from '../mcp/rest-tools.ts';
import { PROMPTS } from '../mcp/prompts.ts';
import { OWN_TOOLS, TOOLS } from '../mcp/tool-table.ts';
import { BREAK_EVEN_DATASETS, breakEvenExample } from '../explorer/break-even.ts';
import { BREAK_EVEN_FORMULA } from '../schemas/break-even.ts';
import { figuresSubstitutions, type DatasetFigures } from './figures.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { renderMarkdown, type Heading } from './markdown.ts';
import { referenceMarkdown, timeSeriesRules } from './reference.ts';
import { changesSubstitutions } from './changes.ts';
import { surfaceSubstitutions } from './surface.ts';
import { KEPT_FOR_MS } from '../http/kept-answers.ts';
import { collectionSubstitutions } from '../collect/docs.ts';
import { MAX_TIME_SERIES_SNAPSHOTS } from '../api/time-series.ts';
import { restrictionsMarkdown } from './restrictions.ts';
import { INSPECTOR_PACKAGE } from './tested-versions.ts';
import { DATA_CACHE_CONTROL, STATUS_PAGE_CACHE_CONTROL, VERCEL_CDN_CACHE_CONTROL } from '../http/caching.ts';
import { DEPLOY_GRACE_MS, STATUS_CACHE_MS } from '../status/health.ts';
import { WINDOW_DAYS } from '../status/figures.ts';
import { CODING_THRESHOLD } from '../http/coding.ts';
import { PARTS_KEPT } from '../store/history-archive.ts';
import { RUN_LOG_LENGTH, RUN_LOG_MAX_BYTES } from '../status/run-log.ts';
import { REASON_MAX_CHARS } from '../lib/clean-text.ts';
import { STALE_AFTER } from '../lib/stale-after.ts';
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

const UNITS = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
] as const;

/** A duration as prose says it: "5 seconds", "5 minutes", "an hour", "a day", "2 days". */
export function durationWords(seconds: number): string {
  const [unit, size] = UNITS.find(([, size]) => seconds % size === 0 && seconds >= size) ?? UNITS.at(-1)!;
  const n = seconds / size;
  if (n === 1) return `${unit === 'hour' ? 'an' : 'a'} ${unit}`;
  return `${n.toLocaleString('en')} ${unit}s`;
}

/** A Cache-Control directive's seconds (`max-age=300` → 300). */
export function cacheSeconds(header: string, directive: string): number {
  const value = new RegExp(`(?:^|,)\\s*${directive}=(\\d+)`).exec(header)?.[1];
  if (value === undefined) throw new Error(`no ${directive} in Cache-Control "${header}"`);
  return Number(value);
}

/** The datasets whose entities are of this kind, in prose, as `datasetsInWords` writes every dataset. */
const datasetsOfKind = (kind: string) =>
  namesInWords(DATASETS.filter((d) => d.entity.kind === kind).map((d) => d.label));

interface SchemaNode {
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

/** Each field of the datasets' rate data whose values are an enum, with its values ("`term` of the … (`…`, `…`)"). */
function closedFields(): string {
  const found: string[] = [];
  const walk = (node: SchemaNode, label: string) => {
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const values = child.enum ?? child.anyOf?.find((c) => c.enum)?.enum;
      if (values) found.push(`\`${name}\` of the ${label} (${values.map((v) => `\`${String(v)}\``).join(', ')})`);
      walk(child, label);
    }
    if (node.items) walk(node.items, label);
  };
  for (const d of DATASETS) walk(z.toJSONSchema(d.entitySchema, { io: 'output' }) as SchemaNode, d.label);
  return found.length ? found.join('; ') : 'none';
}

/** A tool's arguments for the tools table: what it takes, then what it accepts and ignores. */
const toolArguments = (t: (typeof TOOLS)[number]) =>
  [
    ...Object.keys(t.input.shape).map((k) => `\`${k}\``),
    ...t.ignored.map((k) => `\`${k}\` (accepted and ignored)`),
  ].join(', ') || '—';

/** What a dataset's twin of each endpoint answers, as the AI page lists them. */
const TWIN_WORDS: Record<TwinKind, string> = {
  list: 'its list',
  detail: 'one institution or issuer',
  timeSeries: 'its time series',
  lowest: 'its best open rates',
  quote: 'its quote check',
  changes: 'its change log',
};

/**
 * The tools that are no twin of every dataset's, named: the twins of one endpoint (a `forward`
 * tool, with the request it forwards: health, the status figures, or an endpoint only some datasets
 * have), then those with a result of their own.
 */
function ownToolsWords(): string {
  type Tool = (typeof TOOLS)[number];
  const twins = OWN_TOOLS.filter((t): t is Extract<Tool, { forward: unknown }> => 'forward' in t);
  const own = OWN_TOOLS.filter((t) => !('forward' in t));
  const named = (t: Tool) => `\`${t.name}\` (${t.title.toLowerCase()})`;
  const one = own.length === 1;
  const parts = [
    ...twins.map(
      (t) =>
        `${named(t)}, the twin of \`GET ${t.forward(t.example)}\`${'dataset' in t && t.dataset ? ', which not every dataset has' : ''}`,
    ),
    ...(own.length
      ? [
          `${namesInWords(own.map(named))}, which answer${one ? 's' : ''} from several REST answers with a result of ${one ? 'its' : 'their'} own, described by ${one ? 'its' : 'their'} \`outputSchema\``,
        ]
      : []),
  ];
  return parts.length ? `, and ${listInWords(parts)}` : '';
}

/** Values the hand-written pages can include, so lists that the code defines are written once. */
function substitutions(site: string): Record<string, string> {
  return {
    site,
    /** Every dataset in one phrase, from the table (`datasetsInWords`). */
    datasetNames: datasetsInWords(),
    institutionDatasets: datasetsOfKind('institution'),
    issuerDatasets: datasetsOfKind('issuer'),
    /** The closed fields of the rate data, for the stability page. */
    closedFields: closedFields(),
    // The caching of data answers (src/http/caching.ts), as the caching and notification pages state it.
    dataCacheControl: DATA_CACHE_CONTROL,
    vercelCdnCacheControl: VERCEL_CDN_CACHE_CONTROL,
    browserCacheTime: durationWords(cacheSeconds(DATA_CACHE_CONTROL, 'max-age')),
    sharedCacheTime: durationWords(cacheSeconds(DATA_CACHE_CONTROL, 's-maxage')),
    staleWhileRevalidateTime: durationWords(cacheSeconds(DATA_CACHE_CONTROL, 'stale-while-revalidate')),
    /** How long health keeps what it read of the status store. */
    statusCacheTime: durationWords(STATUS_CACHE_MS / 1000),
    /** How long a collected change may wait for its deployment before health calls it `behind`. */
    deployGrace: durationWords(DEPLOY_GRACE_MS / 1000),
    /** How long without a successful collection before health calls a dataset `stale`. */
    staleAfter: STALE_AFTER.words,
    /** The break-even formula and its worked example, as src/explorer/break-even.ts computes them. */
    breakEvenFormula: BREAK_EVEN_FORMULA,
    breakEvenExample: BREAK_EVEN_DATASETS[0] ? breakEvenExample(BREAK_EVEN_DATASETS[0]) : '',
    /** How long a whole answer, health's included, is reused (src/http/kept-answers.ts). */
    keptFor: durationWords(KEPT_FOR_MS / 1000),
    /** The smallest answer `npm start` codes (src/http/coding.ts). */
    codingThreshold: kib(CODING_THRESHOLD),
    /** How many years of a dataset's history stay read at once (src/store/history-archive.ts). */
    historyPartsKept: countWord(PARTS_KEPT),
    /** "6, 12, 18, 24, 36, 48 or 60": the mortgage terms `termInMonths` takes. */
    fixedTermMonths: FIXED_TERM_MONTHS_PROSE,
    // The MCP endpoint's limits (src/mcp/protocol.ts LIMITS), as the pages state them.
    mcpBodyLimit: kib(LIMITS.bodyBytes),
    mcpBatchMessages: String(LIMITS.batchMessages),
    /** The status page's run log: how many runs and bytes it keeps, how long a reason is, and the page's caching. */
    runLogLength: String(RUN_LOG_LENGTH),
    runLogMaxBytes: mib(RUN_LOG_MAX_BYTES),
    /** The days the reliability figures of GET /api/v1/status cover. */
    statusWindowDays: String(WINDOW_DAYS),
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
    /** What each dataset's twins answer, in the order of the tool list. */
    twinKinds: listInWords(REST_TOOL_KINDS.map((kind) => TWIN_WORDS[kind])),
    /** The tools that are no twin of every dataset's, named, or nothing when there are none. */
    ownTools: ownToolsWords(),
    /** How many MCP protocol versions the server speaks, in words. */
    protocolVersionCount: countWord(SUPPORTED_VERSIONS.length),
    /** The Inspector the docs' commands run: the version the suite tests. */
    inspectorPackage: INSPECTOR_PACKAGE,
    tools: [
      '| tool | what it returns | arguments |',
      '| --- | --- | --- |',
      ...TOOLS.map((t) => `| \`${t.name}\` | ${t.title} | ${toolArguments(t)} |`),
    ].join('\n'),
    prompts: [
      '| prompt | what it does | arguments |',
      '| --- | --- | --- |',
      ...PROMPTS.map(
        (p) =>
          `| \`${p.name}\` | ${p.description} | ${p.arguments.map((a) => `\`${a.name}\`${a.required ? ' (required)' : ''}`).join(', ') || '—'} |`,
      ),
    ].join('\n'),
    datasets: [
      '| dataset | list | one institution or issuer | time series | best open rates | reference |',
      '| --- | --- | --- | --- | --- | --- |',
      ...DATASETS.map((d) => {
        const { list, detail, timeSeries, lowest } = endpointsOf(d);
        return `| ${d.title} | \`${list.path}\` | \`${detail.path}\` | \`${timeSeries.path}\` | \`${lowest.path}\` | [${d.title}](/docs/reference/${d.slug}) |`;
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
    ...surfaceSubstitutions(),
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
