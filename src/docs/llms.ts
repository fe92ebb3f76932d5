/** /llms.txt (llmstxt.org: title, summary, sections of links) and /llms-full.txt (every page in full). */
import { type Dataset, DATASETS, datasetsInWords } from '../datasets.ts';
import { TOOLS } from '../mcp/tool-table.ts';
import { API_PREFIX, endpointsOf, HEALTH_PATH, MCP_PATH, operationId } from '../endpoints.ts';
import type { DocPage } from './pages.ts';
import { COLLECTION_WORDS } from '../lib/collection-words.ts';
import { changesLlmsLines } from './changes.ts';
import { alertsEndpointOf, alertsOperationId, exampleMeasureQuery } from '../api/alerts.ts';
import type { ExampleSet } from '../examples.ts';
import { ALERTS_FEED_FILE, FEEDS_PREFIX } from '../paths.ts';
import { API_CATALOG_PATH } from '../registry/api-catalog.ts';
import { EXPLORER, type ExplorerDefinition } from '../explorer/definitions.ts';
import { lowestFeedUrl } from '../explorer/pages.ts';
import { alertSidesOf, bestRateOf, bestWordOf } from '../explorer/best.ts';
import { breakEvenEndpointOf } from '../api/break-even.ts';
import { BREAK_EVEN_DATASETS, fixedTermBest } from '../explorer/break-even.ts';

/**
 * `examples` are the build's real answers (src/examples.ts): each dataset's alerts link is the one
 * its OpenAPI example asks, whose threshold sits above today's lowest rate, so the feed has items;
 * its quote-check link, likewise, asks of a rate half a point above that rate.
 */
export function llmsTxt(pages: DocPage[], site: string, examples: ExampleSet): string {
  const alertsQuery = (d: Dataset) =>
    examples[alertsOperationId(d)]?.find((e) => e.status === 200)?.request ??
    `${alertsEndpointOf(d).path}?${exampleMeasureQuery(d)}&below=6`;
  // A quote check of the build's real examples: a rate near the measure's best open rate today.
  const quoteQuery = (d: Dataset) =>
    examples[operationId(endpointsOf(d).quote)]?.find((e) => e.status === 200)?.request ??
    `${endpointsOf(d).quote.path}?${exampleMeasureQuery(d)}&rate=6`;
  const link = (title: string, url: string, description: string) =>
    `- [${title}](${site}${url})${description ? `: ${description}` : ''}`;
  const group = (name: DocPage['group']) =>
    pages.filter((p) => p.group === name).map((p) => link(p.title, p.mdUrl, p.description));
  return [
    '# NZ Rates API',
    '',
    `> New Zealand ${datasetsInWords()} from interest.co.nz, as a public read-only JSON API and an MCP server. ${COLLECTION_WORDS} No authentication. The data may be incorrect: the institution is the authority for its rates.`,
    '',
    `All endpoints are GET under ${API_PREFIX} and answer JSON; institution ids look like \`institution:anz\`, credit card issuer ids like \`issuer:amex\`. The docs pages below are plain Markdown.`,
    '',
    '## Docs',
    '',
    ...group('Guides'),
    '',
    '## Reference',
    '',
    ...group('Reference'),
    link('OpenAPI document', '/openapi/json', 'the OpenAPI 3.1 contract of every endpoint, with examples'),
    link(
      'API reference',
      '/openapi',
      'the same contract as a page: every operation, its parameters and responses with examples',
    ),
    link(
      'API catalog',
      API_CATALOG_PATH,
      'RFC 9727 linkset: the REST API and the MCP server, with their OpenAPI document, docs and health',
    ),
    '',
    '## API',
    '',
    ...DATASETS.flatMap((d) => [
      link(`${d.title}`, endpointsOf(d).list.path, `the newest ${d.label} of every ${d.entity.kind}`),
      link(
        `${d.title} time series`,
        endpointsOf(d).timeSeries.path,
        'earlier snapshots; without a date it lists availableDates',
      ),
      link(
        `${d.title}: ${bestWordOf(EXPLORER[d.slug])} open rates`,
        endpointsOf(d).lowest.path,
        `the ${bestWordOf(EXPLORER[d.slug])} rate open to anyone per measure (a term, a plan, a card's rate), restricted offers set apart`,
      ),
      link(
        `${d.title} quote check`,
        quoteQuery(d),
        `where a rate you were offered stands among the rates open to anyone of one measure: how many are lower, equal and higher, its percentile, the ${bestWordOf(EXPLORER[d.slug])} and the median; ${d.entity.param} adds that ${d.entity.kind}'s own offers`,
      ),
    ]),
    ...BREAK_EVEN_DATASETS.map((d) =>
      link(
        `${d.title}: break-even rates of fixed terms`,
        breakEvenEndpointOf(d)!.path,
        `for each pair of fixed terms, the rate the shorter must be refixed at for the rest of the longer to come out the same (monthly compounding), from the ${fixedTermBest(d).word} open rates; with ${d.entity.param}, within each of its products`,
      ),
    ),
    link('Health', HEALTH_PATH, 'data freshness per dataset'),
    // The endpoint itself takes POST only, so the link goes to its page; the address is in the text.
    link(
      'MCP endpoint',
      '/docs/ai.md',
      `Model Context Protocol server at POST ${site}${MCP_PATH} (Streamable HTTP, stateless), ${TOOLS.length} read-only tools`,
    ),
    '',
    '## Changes, feeds and downloads',
    '',
    ...changesLlmsLines(site),
    ...DATASETS.map((d) =>
      link(
        `${d.title} threshold alerts`,
        alertsQuery(d),
        `a JSON Feed: an item each time the ${bestWordOf(EXPLORER[d.slug])} open rate of one measure (measure=, as /lowest names it) crosses ${alertSidesOf(
          EXPLORER[d.slug],
        )
          .map((side) => `${side}=`)
          .join(' or ')} or moves past it; ` + `the same in Atom at ${FEEDS_PREFIX}/${d.slug}/${ALERTS_FEED_FILE}`,
      ),
    ),
    // The feed of each dataset's first compared measure; every compared measure has one beside its comparison page.
    ...DATASETS.flatMap((d) => {
      const definition = EXPLORER[d.slug] as ExplorerDefinition;
      const measure = definition.measures.find((m) => definition.compared.includes(m.key));
      if (!measure) return [];
      const { word } = bestRateOf(definition, measure.key);
      return [
        link(
          `${d.title}: ${word} ${definition.valueNoun(measure)}, every change`,
          lowestFeedUrl(definition, measure),
          `an Atom feed with an entry each time the ${word} open rate moves; each compared measure has one at <its comparison page>/lowest.atom`,
        ),
      ];
    }),
    '',
    '## Optional',
    '',
    link('Full documentation', '/llms-full.txt', 'every docs page in one Markdown file'),
    link(
      'Status page',
      '/status',
      'for people: when each dataset was last checked and last changed, and the recent collection runs',
    ),
    '',
  ].join('\n');
}

export function llmsFullTxt(pages: DocPage[], site: string): string {
  const header = `# NZ Rates API: full documentation\n\nEvery page of ${site}/docs, in order. Source pages: ${pages.map((p) => `${site}${p.mdUrl}`).join(', ')}.\n`;
  return [header, ...pages.map((p) => `<!-- ${site}${p.url} -->\n\n${p.markdown.trim()}\n`)].join('\n---\n\n');
}
