/**
 * One reference page per dataset, written from the dataset table, the endpoint parameter
 * schemas and real examples, so the docs cannot drift from what the API does.
 */
import { z } from 'zod';
import { filtersOf, type Dataset } from '../datasets.ts';
import { endpointsOf, entityIdParam, operationId, type DataEndpoint } from '../endpoints.ts';
import { cutWords, type Example, type ExampleSet } from '../examples.ts';
import { MAX_TIME_SERIES_SNAPSHOTS, NO_DATES_MESSAGE } from '../api/time-series.ts';
import { COLLECTION_WORDS } from '../lib/collection-words.ts';
import { withArticle } from '../lib/words.ts';
import { alertsEndpointOf, alertsOperationId } from '../api/alerts.ts';
import { changesEndpointOf, changesOperationId, DEFAULT_DAYS } from '../changes/endpoint.ts';
import { restToolsOf } from '../mcp/rest-tools.ts';
import { ALERTS_FEED_FILE, FEEDS_PREFIX } from '../paths.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { bestRatesOf, bestWordOf } from '../explorer/best.ts';
import { breakEvenEndpointOf, breakEvenOperationId } from '../api/break-even.ts';
import { fixedTermBest } from '../explorer/break-even.ts';
import { BREAK_EVEN_FORMULA } from '../schemas/break-even.ts';

type JsonSchema = {
  type?: string | string[];
  pattern?: string;
  description?: string;
  enum?: string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  required?: string[];
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function jsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

function typeOf(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (s.enum) return s.enum.map((v) => `\`${v}\``).join(', ');
  const types = Array.isArray(s.type) ? s.type : [s.type ?? 'any'];
  return types
    .map((t) => (t === 'array' && s.items ? `array of ${s.items.type === 'object' ? 'objects' : typeOf(s.items)}` : t))
    .join(' or ');
}

function parameterTable(endpoint: Pick<DataEndpoint, 'dataset' | 'pathParam' | 'query' | 'ignoredQuery'>): string {
  const rows: string[] = [];
  if (endpoint.pathParam) {
    const s = jsonSchema(entityIdParam(endpoint.dataset));
    rows.push(`| \`${endpoint.pathParam}\` | path | yes | string | ${cell(s.description ?? '')} |`);
  }
  for (const [name, field] of Object.entries(endpoint.query.shape)) {
    const s = jsonSchema(field as z.ZodType);
    const format = s.pattern ? `string, \`${s.pattern}\`` : 'string';
    // Every parameter is optional but the quote check's rate.
    const required = (field as z.ZodType).safeParse(undefined).success ? 'no' : 'yes';
    rows.push(`| \`${name}\` | query | ${required} | ${cell(format)} | ${cell(s.description ?? '')} |`);
  }
  for (const name of endpoint.ignoredQuery)
    rows.push(
      `| \`${name}\` | query | no | string | Accepted and ignored: data of every ${endpoint.dataset.entity.kind} is returned. |`,
    );
  if (rows.length === 0) return 'No parameters. Any query parameter is a `400 invalid_request`.';
  const table = ['| name | in | required | format | meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
  return `${table}\n\nAny other query parameter is a \`400 invalid_request\`.`;
}

function fieldTables(dataset: Dataset): string {
  const sections: string[] = [];
  const walk = (title: string, s: JsonSchema) => {
    if (!s.properties) return;
    const rows = Object.entries(s.properties).map(
      ([name, f]) => `| \`${name}\` | ${cell(typeOf(f))} | ${cell(f.description ?? '')} |`,
    );
    sections.push(`### ${title}\n\n| field | type | meaning |\n| --- | --- | --- |\n${rows.join('\n')}`);
    for (const [name, f] of Object.entries(s.properties)) {
      if (f.items?.properties)
        walk(name === 'rates' ? 'Rate' : name === 'plans' ? 'Plan' : name === 'products' ? 'Product' : name, f.items);
    }
  };
  walk(dataset.entity.label, jsonSchema(dataset.entitySchema));
  return sections.join('\n\n');
}

function exampleBlock(example: Example | undefined, site: string, kind: string): string {
  if (!example) return '_No snapshot has been collected yet, so there is no example response._';
  const body = JSON.stringify(example.body, null, 2);
  const cut = cutWords(example.cut, `${kind}s`);
  return `\`\`\`sh\ncurl '${site}${example.request}'\n\`\`\`\n\nResponse \`${example.status}\` (real data${
    cut.length ? `; ${cut.join('; ')}` : ''
  }):\n\n\`\`\`json\n${body}\n\`\`\``;
}

const firstWith = (list: Example[] | undefined, status: number) => list?.find((e) => e.status === status);

function errorRows(list: Example[] | undefined): string {
  const errors = (list ?? []).filter((e) => e.status >= 400);
  if (errors.length === 0) return '';
  const rows = errors.map((e) => {
    const b = e.body as { error: string; message: string };
    return `| \`${cell(e.request)}\` | ${e.status} | [\`${b.error}\`](/docs/errors#${b.error}) | ${cell(b.message)} |`;
  });
  return `\n\n**Errors**, as this deployment answers them:\n\n| request | status | error | message |\n| --- | --- | --- | --- |\n${rows.join('\n')}`;
}

/** The break-even section of a dataset whose measures are fixed terms, or nothing. */
function breakEvenSection(dataset: Dataset, examples: ExampleSet, site: string): string {
  const endpoint = breakEvenEndpointOf(dataset);
  if (!endpoint) return '';
  const id = breakEvenOperationId(dataset);
  const found = examples[id];
  const { param, kind, notFound } = dataset.entity;
  const best = fixedTermBest(dataset);
  return `## Break-even rates

\`GET ${endpoint.path}\` · operation \`${id}\`

Fix for how long: for each pair of fixed terms, a shorter of a months at r_a and a longer of b months at r_b, \`breakEvenRate\` is the rate x the shorter must be refixed at for the remaining b − a months to come out the same as fixing for b: refixing ${best.side} it, the shorter comes out better. The formula: ${BREAK_EVEN_FORMULA} ([break-even rates](/docs/concepts#break-even-rates)). Without \`${param}\`, the two rates are the ${best.word} open rates of their terms, as \`/lowest\` answers them (\`basis\` \`lowest\`: an entry per pair of terms that both have one, shorter term first); with it, each product of that ${kind} that offers both terms is paired within itself (\`basis\` \`product\`), a product not open to anyone saying whom it is for (\`for\`); one not in the newest snapshot is a \`404 ${notFound}\`. Each entry's \`text\` says it in a sentence, as the comparison pages do.

### Parameters

${parameterTable(endpoint)}

### Example

${exampleBlock(firstWith(found, 200), site, 'pair')}${errorRows(found)}`;
}

/** The time-series date rules as a table: on every reference page and on the concepts page. */
export function timeSeriesRules(idParam: string, notFound: string): string {
  return `| request | result |
| --- | --- |
| \`date\` only | that date's snapshot; \`404 no_data\` when the date has none |
| \`startDate\` and \`endDate\` | every snapshot of the inclusive range; \`404 no_data\` when there is none |
| a range of more than ${MAX_TIME_SERIES_SNAPSHOTS.toLocaleString('en')} snapshots | \`400 invalid_request\`; the \`hint\` names the first part to ask for (the answers are streamed; ask a long history in parts, or take the yearly CSV downloads) |
| no date | \`200\`, empty \`timeSeries\`, \`availableDates\` and the \`message\` "${NO_DATES_MESSAGE}" |
| \`startDate\` without \`endDate\`, or the reverse | \`400 invalid_request\` |
| \`date\` with \`startDate\` or \`endDate\` | \`400 invalid_request\` |
| \`startDate\` after \`endDate\` | \`400 invalid_request\`, message "Start date cannot be after end date" |
| a date not written \`YYYY-MM-DD\` | \`400 invalid_request\` |
| ${idParam} present on no date asked for | \`404\` ${notFound} |`;
}

export function referenceMarkdown(dataset: Dataset, examples: ExampleSet, site: string): string {
  const endpoints = endpointsOf(dataset);
  const { entity } = dataset;
  const section = (endpoint: DataEndpoint, heading: string, intro: string) => {
    const found = examples[operationId(endpoint)];
    return `## ${heading}\n\n\`GET ${endpoint.path}\` · operation \`${operationId(endpoint)}\`\n\n${intro}\n\n### Parameters\n\n${parameterTable(endpoint)}\n\n### Example\n\n${exampleBlock(firstWith(found, 200), site, endpoint.dataset.entity.kind)}${errorRows(found)}`;
  };
  const filters = filtersOf(dataset, 'list')
    .map((f) => `\`${f.name}\``)
    .join(', ');
  const definition = EXPLORER[dataset.slug];
  const lowestFilters = filtersOf(dataset, 'lowest');
  const quoteFilters = filtersOf(dataset, 'quote');
  // The quote check's percentile counts the offers better than the rate: below it for a rate paid, above it for a rate earned.
  const betterWords = bestRatesOf(definition)
    .map(
      (r) =>
        `an offer is better ${r.paid ? 'below the rate, as for a rate paid' : 'above the rate, as for a rate earned'}`,
    )
    .join('; ');
  const alerts = alertsEndpointOf(dataset);
  const changes = changesEndpointOf(dataset);
  const alertsAtom = `${FEEDS_PREFIX}/${dataset.slug}/${ALERTS_FEED_FILE}`;
  const alertsExample = firstWith(examples[alertsOperationId(dataset)], 200)?.request ?? alerts.path;
  const breakEven = breakEvenEndpointOf(dataset);
  const measureName = definition.measureName.toLowerCase();
  // The best rate as the dataset declares it (src/explorer/best.ts): its word and the alerts' threshold.
  const best = bestWordOf(definition);
  const sides = bestRatesOf(definition)
    .map((r) => `\`${r.side}\``)
    .join(' or ');
  const better = bestRatesOf(definition)
    .map((r) => r.side)
    .join(' or ');
  // Institutions that only lend are lenders; where a rate is earned from them, they are institutions.
  const others = bestRatesOf(definition).every((r) => r.paid) ? 'lenders' : 'institutions';
  const aMeasure = withArticle(measureName);
  return `# ${dataset.title}

${dataset.title} of New Zealand ${entity.kind === 'issuer' ? 'card issuers' : `banks, building societies, credit unions and other ${others}`}. ${COLLECTION_WORDS} Responses have \`type\` \`${dataset.type}\` (time series: \`${dataset.timeSeriesType}\`); each ${entity.kind} holds its ${dataset.itemsKey}. Every list, detail, time-series, lowest-rates and quote-check answer carries the terms of use (\`termsOfUse\`): the data may be incorrect, and the ${entity.kind} is the authority for its rates.

| method | path | what |
| --- | --- | --- |
| GET | \`${endpoints.list.path}\` | every ${entity.kind}, newest data |
| GET | \`${endpoints.detail.path}\` | one ${entity.kind} |
| GET | \`${endpoints.timeSeries.path}\` | earlier snapshots |
| GET | \`${endpoints.lowest.path}\` | the ${best} rates open to anyone, per ${measureName} |
| GET | \`${endpoints.quote.path}\` | where a rate stands among the rates open to anyone of one ${measureName} |
| GET | \`${changes.path}\` | per snapshot date, each value that changed, with which way and by how many basis points |
| GET | \`${alerts.path}\` | an item each time one ${measureName}'s ${best} open rate crosses a threshold (JSON Feed; Atom at \`${alertsAtom}\`) |
${breakEven ? `| GET | \`${breakEven.path}\` | the break-even rate of each pair of fixed terms |\n` : ''}
${section(endpoints.list, 'List', `The newest ${dataset.label} of every ${entity.kind}.${filters ? ` Filter with ${filters} (see the parameters).` : ''}`)}

${section(endpoints.detail, `One ${entity.kind}`, `The newest ${dataset.label} of one ${entity.kind}: \`data\` holds that ${entity.kind} alone. Ids look like \`${entity.prefix}:<slug>\` and are matched case-insensitively; an unknown id is a \`404 ${entity.notFound}\`.`)}

${section(
  endpoints.timeSeries,
  'Time series',
  `Earlier ${dataset.label}, from daily snapshots. A snapshot exists only for a date on which rates changed; on other dates the rates equal the nearest earlier snapshot.

${timeSeriesRules(`\`${entity.param}\``, `\`${entity.notFound}\``)}

With \`${entity.param}\`, each snapshot holds only that ${entity.kind} (an empty \`data\` on dates it was not listed).${dataset.ignoredTimeSeriesParams.length ? ` \`${dataset.ignoredTimeSeriesParams.join('`, `')}\` is accepted and ignored.` : ''}`,
)}

${section(
  endpoints.lowest,
  `${best[0]!.toUpperCase()}${best.slice(1)} rates`,
  `The ${best} ${dataset.label} of the newest snapshot open to anyone, one item of \`data\` per ${measureName} (${definition.measures.map((m) => `\`${m.key}\` ${m.label.toLowerCase()}`).join(', ')}), as the [rates explorer](/rates/${definition.path}) shows them: \`rate\`, every offer that makes it in \`offers\`, and in \`restricted\` the offers ${better} it that are not open to anyone, each with whom it is for (\`for\`; [best rates and restricted offers](/docs/concepts#best-rates-and-restricted-offers)). ${aMeasure[0]!.toUpperCase()}${aMeasure.slice(1)} no offer open to anyone has is left out.${lowestFilters.map((f) => ` \`${f.name}\` filters the offers as on the list.`).join('')} \`${entity.param}\` keeps one ${entity.kind}'s offers; one not in the newest snapshot is a \`404 ${entity.notFound}\`.`,
)}

${section(
  endpoints.quote,
  'Quote check',
  `Where a rate someone was offered stands: \`rate\` (required) placed among the ${dataset.label} open to anyone of one ${measureName} in the newest snapshot, the ${measureName} named as \`/lowest\` names it (\`measure\`${quoteFilters.map((f) => `, or \`${f.name}\``).join('')}), counted as the [rates explorer](/rates/${definition.path}) counts offers: \`count\` open offers, how many are \`lower\`, \`equal\` and \`higher\`, \`percentile\` — the share of them no better than the rate, in percent (${betterWords}), so 100 when no open offer beats it — \`lowest\` (the ${best} open rate, what \`/lowest\` answers; the name stays whichever end is best) and \`median\`, and in \`lowestOffers\` the offers that make \`lowest\`, named as \`/lowest\` names them. With \`${entity.param}\`, \`lenderOffers\` adds that ${entity.kind}'s own offers of the ${measureName}, open and restricted (\`open\`, and \`for\` whom a restricted one is); the rate is still placed among every ${entity.kind}'s offers. ${withArticle(entity.kind).replace(/^a/, 'A')} not in the newest snapshot is a \`404 ${entity.notFound}\`. Each comparison page of the explorer asks for a rate and answers the same.`,
)}

## Threshold alerts

\`GET ${alerts.path}\` · operation \`${alertsOperationId(dataset)}\`

A feed, not a list: an item each time the ${best} rate open to anyone of one ${measureName} (chosen as \`/lowest\` names it${lowestFilters.length > 0 ? `, \`${lowestFilters[0]!.name}\` for a term` : ', with `measure`'}) crosses a threshold (${sides}) or moves while past it, optionally for one ${entity.kind} (\`${entity.param}\`), newest first. It answers \`application/feed+json\` (JSON Feed 1.1), and the same feed in Atom at \`${alertsAtom}\` with the same parameters. Today's working query: [\`${alertsExample}\`](${alertsExample}). How to follow it in a feed reader or by email: [Getting notified](/docs/notifications#when-a-rate-crosses-a-threshold); its parameters and errors are in the [OpenAPI reference](/openapi).
${breakEven ? `\n${breakEvenSection(dataset, examples, site)}\n` : ''}

## Change log

\`GET ${changes.path}\` · operation \`${changesOperationId(dataset)}\`

Per snapshot date from \`since\` to \`until\` (default: the ${DEFAULT_DAYS} days up to the newest snapshot), each value that changed, was added or was removed compared with the snapshot before, with its \`direction\` (\`up\`, \`down\`, \`new\`, \`gone\`) and, for a rate, \`bps\`, the move in signed whole basis points. \`direction\` keeps some directions (\`down,new\`), \`minBps\` the rate moves of at least that many basis points either way, \`${entity.param}\` one ${entity.kind}. The same JSON from the MCP tool \`${restToolsOf(dataset, ['changes'])[0]!.name}\`. What counts as a change, the feeds of the same changes and the errors: [Changes, feeds and downloads](/docs/changes#the-change-log).

## Fields

${fieldTables(dataset)}
`;
}
