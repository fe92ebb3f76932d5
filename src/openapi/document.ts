/**
 * The OpenAPI 3.1 document of the REST contract, generated from the same zod schemas the API
 * validates with and the same endpoint table it routes with, with real examples from the core.
 */
// The package has no "exports" map, so Node would load its CommonJS build, which requires the
// CommonJS copy of zod: a second zod whose registry our schemas are not in. Its ESM build shares ours.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi/dist/index.mjs';
import { z } from 'zod';
import { DATASETS, datasetsInWords, filtersOf } from '../datasets.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { lowestSchemaOf } from '../explorer/lowest.ts';
import { quoteSchemaOf, quoteTypeOf } from '../explorer/quote.ts';
import { bestWordOf } from '../explorer/best.ts';
import { COLLECTION_WORDS } from '../lib/collection-words.ts';
import { spanWords, STALE_AFTER } from '../lib/stale-after.ts';
import { DEPLOY_GRACE_MS } from '../status/health.ts';
import { endpointsOf, entityIdParam, HEALTH_PATH, operationId, type DataEndpoint } from '../endpoints.ts';
import { cutWords, serverErrorKey, type Example, type ExampleSet } from '../examples.ts';
import { ErrorBody } from '../schemas/errors.ts';
import { Health } from '../schemas/health.ts';
import { StatusFigures } from '../schemas/status.ts';
import { INSTITUTIONS_PATH, STATUS_PATH } from '../paths.ts';
import { MAX_QUOTED_RATE } from '../schemas/params.ts';
import { InstitutionsResponse } from '../schemas/institutions.ts';
import { WINDOW_DAYS } from '../status/figures.ts';
import { SearchQuery, SearchResponse } from '../schemas/search.ts';
import { openToNewFields } from '../schemas/open.ts';
import { registerChangesPath } from './changes.ts';
import { registerAlertsPath } from './alerts.ts';
import { registerBreakEvenPath } from './break-even.ts';
import { breakEvenOperationId } from '../api/break-even.ts';
import { alertsOperationId } from '../api/alerts.ts';
import { changesOperationId } from '../changes/endpoint.ts';
import { MAX_TIME_SERIES_SNAPSHOTS } from '../api/time-series.ts';
import { registerMcpPaths } from './mcp.ts';
import {
  answerHeaders,
  DATA_RULES,
  errorHeaders,
  notModified,
  type PathRules,
  REFUSED,
  registerHttpComponents,
  registerPreflights,
  successHeaders,
} from './http.ts';

const JSON_TYPE = 'application/json';
const SEARCH_PATH = '/api/search';

/** Health and the status figures: request ids, never cached (they say what is true now), no ETag. */
const NOW_RULES: PathRules = { ids: true, cached: false };
/** The docs search: outside /api/v1, so no request id; cached like the data; no ETag. */
const SEARCH_RULES: PathRules = { ids: false, cached: true };

const SUMMARY: Record<DataEndpoint['kind'], (d: DataEndpoint['dataset']) => string> = {
  list: (d) => `List ${d.label}`,
  detail: (d) => `Get ${d.label} by ${d.entity.kind}`,
  timeSeries: (d) => `Get ${d.label} time series`,
  lowest: (d) => `Get the ${bestWordOf(EXPLORER[d.slug])} ${d.label}`,
  quote: (d) => `Check a rate against the ${d.label}`,
};

const DESCRIPTION: Record<DataEndpoint['kind'], (d: DataEndpoint['dataset']) => string> = {
  list: (d) => `The newest ${d.label} of every ${d.entity.kind}.`,
  detail: (d) =>
    `The newest ${d.label} of one ${d.entity.kind}. The id is matched case-insensitively; an unknown id is a 404 \`${d.entity.notFound}\`.`,
  timeSeries: (d) =>
    `Earlier ${d.label} from daily snapshots. \`date\` gives one snapshot (404 \`no_data\` when that date has none); ` +
    '`startDate` with `endDate` gives every snapshot of the inclusive range. With no date parameter the answer is 200 with an ' +
    'empty `timeSeries`, a `message` and `availableDates`. A snapshot exists only for dates when rates changed. ' +
    `One answer holds at most ${MAX_TIME_SERIES_SNAPSHOTS.toLocaleString('en')} snapshots, sent as a stream; a longer range is a 400 ` +
    '`invalid_request` whose `hint` names the first part to ask for.' +
    (d.ignoredTimeSeriesParams.length ? ` \`${d.ignoredTimeSeriesParams.join('`, `')}\` is accepted and ignored.` : ''),
  lowest: (d) => {
    const { path, measures } = EXPLORER[d.slug];
    const filters = filtersOf(d, 'lowest').map((f) => `\`${f.name}\` filters the offers as on the list. `);
    return (
      `The ${bestWordOf(EXPLORER[d.slug])} ${d.label} of the newest snapshot open to anyone, per measure (${measures.map((m) => `\`${m.key}\``).join(', ')}), ` +
      `as the rates explorer at /rates/${path} shows them: every offer that makes it, and in \`restricted\` the better offers ` +
      'that are not open to anyone, each with whom it is for (/docs/concepts#best-rates-and-restricted-offers). ' +
      `A measure no offer open to anyone has is left out. ${filters.join('')}` +
      `\`${d.entity.param}\` keeps one ${d.entity.kind}'s offers; one not in the newest snapshot is a 404 \`${d.entity.notFound}\`.`
    );
  },
  quote: (d) => {
    const { path, measures } = EXPLORER[d.slug];
    const best = bestWordOf(EXPLORER[d.slug]);
    const term = filtersOf(d, 'quote').some((f) => f.name === 'termInMonths')
      ? ' (a fixed term also by `termInMonths`)'
      : '';
    return (
      `Where \`rate\` (required, percent a year, 0 to ${MAX_QUOTED_RATE}) stands among the ${d.label} open to anyone of one measure, \`measure\`${term}: ` +
      `${measures.map((m) => `\`${m.key}\``).join(', ')}, in the newest snapshot, as the rates explorer at /rates/${path} counts them: ` +
      'how many open offers are below, equal to and above it, its `percentile` (the share of open offers no better than it, as the schema says), ' +
      `the ${best} and the median open rate, and the offers that make the ${best}, named as the lowest rates name them. ` +
      `\`${d.entity.param}\` adds that ${d.entity.kind}'s own offers of the measure, open and restricted, in \`lenderOffers\`; the rate is still placed among every ${d.entity.kind}'s. ` +
      `A missing or malformed rate, one above ${MAX_QUOTED_RATE}, or an unknown measure is a 400 \`invalid_request\`; a ${d.entity.kind} not in the newest snapshot is a 404 \`${d.entity.notFound}\`.`
    );
  },
};

/**
 * `{ name: { summary, description?, value } }` examples for one status, or nothing; an example
 * cut short says what was cut in its description, `noun` naming what its `data` lists.
 */
function examplesFor(list: Example[] | undefined, status: number, noun = 'entries') {
  const matching = (list ?? []).filter((e) => e.status === status);
  if (matching.length === 0) return {};
  return {
    examples: Object.fromEntries(
      matching.map((e, i) => {
        const body = e.body as { error?: string; message?: string };
        const name = body.error
          ? `${body.error}${matching.filter((m) => (m.body as { error?: string }).error === body.error).length > 1 ? `_${i}` : ''}`
          : i === 0
            ? 'example'
            : `example_${i}`;
        const cut = cutWords(e.cut, noun);
        const description = cut.length ? { description: `The real answer, cut: ${cut.join('; ')}.` } : {};
        return [name, { summary: `GET ${e.request}`, ...description, value: e.body }];
      }),
    ),
  };
}

/** An error answer in the error body, with the headers a path of `rules` gives it. */
const errorResponse = (description: string, list: Example[] | undefined, status: number, rules = DATA_RULES) => ({
  description,
  headers: errorHeaders(status, rules),
  content: { [JSON_TYPE]: { schema: COMPONENTS.error, ...examplesFor(list, status) } },
});

/**
 * An endpoint's query parameters as the document lists them: those it takes, and those it
 * accepts and ignores (`ignoredQuery`), described as such.
 */
function documentedQuery(endpoint: DataEndpoint): z.ZodObject {
  if (endpoint.ignoredQuery.length === 0) return endpoint.query;
  const { kind, param } = endpoint.dataset.entity;
  return endpoint.query.extend(
    Object.fromEntries(
      endpoint.ignoredQuery.map((name) => [
        name,
        z
          .string()
          .optional()
          .describe(`Accepted and ignored: data of every ${kind} is returned (to keep one ${kind}, use ${param}).`),
      ]),
    ),
  );
}

/**
 * The component schemas: the API's own zod schemas, named with zod's `.meta({ id })`. Named once
 * per process, because zod's registry refuses an id given twice. The rate answers and the error
 * body are closed; the others may gain fields and are published open (src/schemas/open.ts; the
 * lowest rates and the change log are opened where they are made).
 */
const COMPONENTS = {
  error: ErrorBody.meta({ id: 'Error' }),
  health: openToNewFields(Health).meta({ id: 'Health' }),
  status: openToNewFields(StatusFigures).meta({ id: 'StatusFigures' }),
  institutions: openToNewFields(InstitutionsResponse).meta({ id: 'Institutions' }),
  search: openToNewFields(SearchResponse).meta({ id: 'SearchResponse' }),
  datasets: Object.fromEntries(
    DATASETS.map((d) => [
      d.slug,
      {
        envelope: d.schemas.envelope.meta({ id: d.type }),
        timeSeries: d.schemas.timeSeries.meta({ id: d.timeSeriesType }),
        lowest: lowestSchemaOf(d).meta({ id: `${d.type}Lowest` }),
        quote: quoteSchemaOf(d).meta({ id: quoteTypeOf(d) }),
      },
    ]),
  ),
};

export function buildOpenApiDocument(options: { site: string; examples: ExampleSet }) {
  const { examples } = options;
  const registry = new OpenAPIRegistry();
  const error = COMPONENTS.error;
  registerHttpComponents(registry, { $ref: '#/components/schemas/Error' });

  for (const dataset of DATASETS) {
    const schemas = COMPONENTS.datasets[dataset.slug]!;
    const schemaOf = {
      list: schemas.envelope,
      detail: schemas.envelope,
      timeSeries: schemas.timeSeries,
      lowest: schemas.lowest,
      quote: schemas.quote,
    };
    for (const endpoint of Object.values(endpointsOf(dataset))) {
      const id = operationId(endpoint);
      const found = examples[id];
      registry.registerPath({
        method: 'get',
        path: endpoint.path,
        operationId: id,
        tags: [dataset.title],
        summary: SUMMARY[endpoint.kind](dataset),
        description: DESCRIPTION[endpoint.kind](dataset),
        request: {
          ...(endpoint.pathParam ? { params: z.object({ [endpoint.pathParam]: entityIdParam(dataset) }) } : {}),
          query: documentedQuery(endpoint),
        },
        responses: {
          200: {
            description: `${dataset.title}, with the terms of use.`,
            headers: successHeaders(endpoint.kind === 'timeSeries' ? { ...DATA_RULES, etag: 'maybe' } : DATA_RULES),
            content: {
              [JSON_TYPE]: { schema: schemaOf[endpoint.kind], ...examplesFor(found, 200, `${dataset.entity.kind}s`) },
            },
          },
          304: notModified('always'),
          400: errorResponse(
            endpoint.kind === 'timeSeries'
              ? '`invalid_request`: a malformed parameter, a parameter this endpoint does not use, or a date rule broken.'
              : endpoint.kind === 'quote'
                ? `\`invalid_request\`: a missing or malformed parameter, a rate above ${MAX_QUOTED_RATE}, an unknown measure, or a parameter this endpoint does not use.`
                : '`invalid_request`: a malformed parameter, or a parameter this endpoint does not use.',
            found,
            400,
          ),
          ...(endpoint.kind === 'list'
            ? {}
            : {
                404: errorResponse(
                  endpoint.kind === 'timeSeries'
                    ? `\`no_data\` or \`${dataset.entity.notFound}\``
                    : `\`${dataset.entity.notFound}\``,
                  found,
                  404,
                ),
              }),
          500: errorResponse(
            `\`server_error\`: the data could not be read; retry, and read ${HEALTH_PATH} if it persists.`,
            examples[serverErrorKey(id)],
            500,
          ),
          default: REFUSED,
        },
      });
    }
    // The change log's 500 example is its own request's answer too (registerChangesPath reads `serverError`).
    const changesServerError = examples[serverErrorKey(changesOperationId(dataset))] ?? [];
    registerChangesPath(
      registry,
      dataset,
      { ...examples, serverError: changesServerError },
      { examplesFor, errorResponse },
    );
    registerAlertsPath(
      registry,
      dataset,
      { ...examples, serverError: examples[serverErrorKey(alertsOperationId(dataset))] ?? [] },
      { examplesFor, errorResponse },
    );
    // Only a dataset whose measures are fixed terms has it.
    registerBreakEvenPath(
      registry,
      dataset,
      { ...examples, serverError: examples[serverErrorKey(breakEvenOperationId(dataset))] ?? [] },
      { examplesFor, errorResponse },
    );
  }

  const health = COMPONENTS.health;
  registry.registerPath({
    method: 'get',
    path: HEALTH_PATH,
    operationId: 'getHealth',
    tags: ['Service'],
    summary: 'Service health and data freshness',
    description:
      'Whether the snapshot store can be read, and per dataset `lastUpdated` (last change of the data), `lastChecked` (last successful collection) ' +
      `and \`stale\` (no successful collection in ${STALE_AFTER.words}). ` +
      'An old `lastUpdated` with `stale: false` means rates did not change; with `stale: true`, collection is failing. ' +
      `It also compares what the collector last found (\`lastChanged\`) with what this deployment serves (\`deployment\`: \`behind\` when a change collected over ${spanWords(DEPLOY_GRACE_MS)} ago is not served), ` +
      'reports the collection status store (`collection`), and lists in `problems` every reason the status is not `ok`.',
    responses: {
      200: {
        description: '`ok`, or `degraded` with its reasons in `problems`.',
        headers: successHeaders(NOW_RULES),
        content: { [JSON_TYPE]: { schema: health, ...examplesFor(examples.getHealth, 200) } },
      },
      400: errorResponse('`invalid_request`: health takes no query parameters.', examples.getHealth, 400, NOW_RULES),
      503: {
        description:
          "`error`: the snapshot store cannot be read. `npm start`'s server also answers 503 to a connection over its limits, before any endpoint: the error body, with `Retry-After` and no request id (/docs/limits#connections).",
        headers: answerHeaders({ cache: 'never', requestId: 'maybe', retryAfter: true }),
        content: { [JSON_TYPE]: { schema: z.union([health, error]), ...examplesFor(examples.getHealth, 503) } },
      },
      default: REFUSED,
    },
  });

  registry.registerPath({
    method: 'get',
    path: STATUS_PATH,
    operationId: 'getStatus',
    tags: ['Service'],
    summary: 'Collection reliability per dataset',
    description:
      `Each dataset's collection over the last ${WINDOW_DAYS} days of hourly runs (the run log): \`successShare\` of its runs that succeeded (\`ok\` or \`unchanged\`), ` +
      '`hoursSinceLastGood`, `longestGapHours` between two good runs, `refusals` counted by the rule they broke, and the `institutions` and `rates` ' +
      'its good runs listed (the newest, the least and the most). Every dataset is present; one no recorded run collected has `runs: 0`, null figures and a `message` ' +
      '(as on a server with no collector), never zeros read as success. Never cached: it is counted to the time of the request. /docs/deploying#reliability-figures.',
    responses: {
      200: {
        description: 'The figures, or, with no run recorded, every dataset saying so.',
        headers: successHeaders(NOW_RULES),
        content: { [JSON_TYPE]: { schema: COMPONENTS.status, ...examplesFor(examples.getStatus, 200) } },
      },
      400: errorResponse(
        '`invalid_request`: the status takes no query parameters.',
        examples.getStatus,
        400,
        NOW_RULES,
      ),
      default: REFUSED,
    },
  });

  registry.registerPath({
    method: 'get',
    path: INSTITUTIONS_PATH,
    operationId: 'listInstitutions',
    tags: ['Lenders'],
    summary: 'Every institution and issuer',
    description:
      'Every institution and card issuer any snapshot of any dataset has listed, once per lender, also those no longer listed: its newest name, ' +
      'the datasets that list it (`datasets`, by slug), the dates of the first and last snapshots that list it (`firstSeen`, `lastSeen`), ' +
      'its website as the source page links to it from its name, tracking parameters removed (`website`, `null` when none is recorded; ' +
      '/docs/collection#lenders-websites), whether it is a registered bank (`lenderType`) and the eligibility rules read on its name (`restrictions`; ' +
      '/docs/concepts#best-rates-and-restricted-offers). Its other ids and names are inside it (`aliases`, each with the datasets that answer it): ' +
      'the labels the source listed it under before, and the `issuer:<slug>` id of a lender that also issues cards, whose entry is its ' +
      '`institution:<slug>` id (/docs/concepts#ids). Cached like the rates.',
    responses: {
      200: {
        description: 'The registry, in id order.',
        headers: successHeaders(DATA_RULES),
        content: {
          [JSON_TYPE]: {
            schema: COMPONENTS.institutions,
            ...examplesFor(examples.listInstitutions, 200, 'institutions and issuers'),
          },
        },
      },
      304: notModified('always'),
      400: errorResponse('`invalid_request`: the registry takes no query parameters.', examples.listInstitutions, 400),
      500: errorResponse(
        '`server_error`: the history cannot be read.',
        examples[serverErrorKey('listInstitutions')],
        500,
      ),
      default: REFUSED,
    },
  });

  registry.registerPath({
    method: 'get',
    path: SEARCH_PATH,
    operationId: 'searchDocs',
    tags: ['Documentation'],
    summary: 'Search the documentation',
    request: { query: SearchQuery },
    responses: {
      200: {
        description: 'Matching documentation sections, best first.',
        headers: successHeaders(SEARCH_RULES),
        content: { [JSON_TYPE]: { schema: COMPONENTS.search } },
      },
      400: errorResponse(
        '`invalid_request`: an empty query, a bad limit or an unknown parameter.',
        undefined,
        400,
        SEARCH_RULES,
      ),
      500: errorResponse('`server_error`: the search index could not be read; retry.', undefined, 500, SEARCH_RULES),
      default: REFUSED,
    },
  });

  registerMcpPaths(registry, error);
  registerPreflights(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'NZ Rates API',
      version: '1.0.0',
      description:
        `New Zealand ${datasetsInWords()} from interest.co.nz, as a public read-only JSON API. ${COLLECTION_WORDS} ` +
        'No authentication. Every rate response carries the terms of use, in `termsOfUse`: see /docs/terms. ' +
        'Every path answers HEAD as it answers GET, without the body (RFC 9110), and OPTIONS with its CORS preflight; ' +
        'any method the document does not list for a path is a 405 `method_not_allowed` (MCP: a JSON-RPC error) whose `Allow` names those it takes. ' +
        'An answer with an ETag is a 304 to an `If-None-Match` naming it. Which objects may gain fields: /docs/stability#where-new-fields-may-appear.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.site, description: 'This deployment' }],
    tags: [
      ...DATASETS.map((d) => ({
        name: d.title,
        description: `${d.title}: list, one ${d.entity.kind}, the time series, the lowest rates, the quote check and the change log.`,
      })),
      { name: 'Lenders', description: 'The registry: every institution and issuer of every dataset, in one list.' },
      { name: 'Service', description: 'Health, freshness and the reliability of collection.' },
      { name: 'MCP', description: 'The Model Context Protocol endpoint for AI agents.' },
      { name: 'Documentation', description: 'Search over these docs.' },
    ],
    security: [],
  });
  return document;
}
