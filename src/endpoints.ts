/**
 * The REST endpoints, derived from the dataset table: five per dataset (the list, one entity, the
 * time series, the lowest open rates and the quote check) plus health. The API router, the OpenAPI document and
 * the MCP tools read these declarations.
 */
import { z } from 'zod';
import { filtersOf, type Dataset, type ItemFilter } from './datasets.ts';
import { API_PREFIX, LOWEST_SEGMENT, QUOTE_SEGMENT, TIME_SERIES_SEGMENT } from './paths.ts';
import { withArticle } from './lib/words.ts';
import { DateParam, EntityIdParam, MAX_QUOTED_RATE, MeasureParam, QuotedRateParam } from './schemas/params.ts';

export type EndpointKind = 'list' | 'detail' | 'timeSeries' | 'lowest' | 'quote';

export interface DataEndpoint {
  kind: EndpointKind;
  dataset: Dataset;
  /** OpenAPI-style path, e.g. `/api/v1/<slug>/{institutionId}`. */
  path: string;
  /** The path parameter's name (detail endpoints only). */
  pathParam?: string;
  /** Strict: a parameter not declared here is a client mistake (400). */
  query: z.ZodObject;
  /**
   * Accepted and ignored: not an error, no effect (the credit card time series takes
   * `institutionId` this way; /docs/concepts#snapshots-and-time-series).
   */
  ignoredQuery: readonly string[];
}

export { API_PREFIX, HEALTH_PATH, HEALTH_SEGMENT, isMcpPath, MCP_PATH, TIME_SERIES_SEGMENT } from './paths.ts';

/** What a filter does at an endpoint: where it picks a measure (the lowest rates, the quote check), its words for that. */
export const filterDescription = (filter: ItemFilter, kind: EndpointKind): string =>
  (kind === 'lowest' && filter.asMeasure?.lowest) ||
  (kind === 'quote' && filter.asMeasure?.quote) ||
  filter.description;

function filterParams(dataset: Dataset, kind: EndpointKind) {
  return Object.fromEntries(
    filtersOf(dataset, kind).map((filter) => [
      filter.name,
      filter.schema.describe(filterDescription(filter, kind)).optional(),
    ]),
  );
}

/** The id the examples name: the dataset's declared example entity (src/datasets.ts). */
export function exampleEntityId(dataset: Dataset): string {
  return dataset.exampleEntityId;
}

/** A list request to show a dataset with: its first filter set to that filter's example value, if it has one. */
export function exampleListRequest(dataset: Dataset): string {
  const filter = filtersOf(dataset, 'list')[0];
  return `${endpointsOf(dataset).list.path}${filter ? `?${filter.name}=${filter.example}` : ''}`;
}

/** The id parameter of a dataset, described for the OpenAPI document and MCP tool schemas. */
export function entityIdParam(dataset: Dataset) {
  const { kind } = dataset.entity;
  return EntityIdParam.describe(
    `The ${kind}'s id, e.g. ${exampleEntityId(dataset)} (case-insensitive; the bare slug also works). ` +
      `GET ${API_PREFIX}/${dataset.slug} lists every ${kind} with its id.`,
  );
}

const DATE_PARAMS = {
  date: DateParam.describe(
    'One snapshot: the UTC date YYYY-MM-DD. Cannot be combined with startDate or endDate.',
  ).optional(),
  startDate: DateParam.describe('First date of a range, YYYY-MM-DD, inclusive. Needs endDate.').optional(),
  endDate: DateParam.describe(
    'Last date of a range, YYYY-MM-DD, inclusive; on or after startDate. Needs startDate.',
  ).optional(),
};

const ENDPOINTS = new Map<string, Record<EndpointKind, DataEndpoint>>();

/** The endpoints of a dataset, built once (their schemas are compiled on first use). */
export function endpointsOf(dataset: Dataset): Record<EndpointKind, DataEndpoint> {
  let endpoints = ENDPOINTS.get(dataset.slug);
  if (!endpoints) ENDPOINTS.set(dataset.slug, (endpoints = buildEndpoints(dataset)));
  return endpoints;
}

function buildEndpoints(dataset: Dataset): Record<EndpointKind, DataEndpoint> {
  const base = `${API_PREFIX}/${dataset.slug}`;
  return {
    list: { kind: 'list', dataset, path: base, query: z.strictObject(filterParams(dataset, 'list')), ignoredQuery: [] },
    detail: {
      kind: 'detail',
      dataset,
      path: `${base}/{${dataset.entity.param}}`,
      pathParam: dataset.entity.param,
      query: z.strictObject(filterParams(dataset, 'detail')),
      ignoredQuery: [],
    },
    timeSeries: {
      kind: 'timeSeries',
      dataset,
      path: `${base}/${TIME_SERIES_SEGMENT}`,
      query: z.strictObject({
        ...DATE_PARAMS,
        [dataset.entity.param]: entityIdParam(dataset).optional(),
        ...filterParams(dataset, 'timeSeries'),
      }),
      ignoredQuery: dataset.ignoredTimeSeriesParams,
    },
    // Its filters (termInMonths keeps one measure) and, as on the time series, one lender.
    lowest: {
      kind: 'lowest',
      dataset,
      path: `${base}/${LOWEST_SEGMENT}`,
      query: z.strictObject({
        ...filterParams(dataset, 'lowest'),
        [dataset.entity.param]: entityIdParam(dataset).optional(),
      }),
      ignoredQuery: [],
    },
    // One measure (named as /lowest names it: src/api/alerts.ts reads it) and the rate to place
    // among its open offers; a lender adds its own offers of the measure.
    quote: {
      kind: 'quote',
      dataset,
      path: `${base}/${QUOTE_SEGMENT}`,
      query: z.strictObject({
        rate: QuotedRateParam.describe(
          `The rate to check, in percent a year (such as 6 or 5.25; from 0 to ${MAX_QUOTED_RATE}): a rate you were offered or quoted.`,
        ),
        measure: MeasureParam.describe(
          `The measure the rate is for, as GET ${base}/${LOWEST_SEGMENT} names it in \`measure\`; an unknown one is a 400 naming every measure.`,
        ).optional(),
        ...filterParams(dataset, 'quote'),
        [dataset.entity.param]: entityIdParam(dataset)
          .describe(
            `${withArticle(dataset.entity.kind).replace(/^a/, 'A')} whose own advertised offers of the measure the answer adds, open and restricted; ` +
              `the rate is still placed among every ${dataset.entity.kind}'s open offers. ${entityIdParam(dataset).description}`,
          )
          .optional(),
      }),
      ignoredQuery: [],
    },
  };
}

/**
 * `list_<slug>`, `get_<slug>_by_institution`, `get_<slug>_time_series`, `get_lowest_<slug>`,
 * `check_<slug>_quote` (the slug's `-` as `_`): MCP tool names.
 */
export function operationName(endpoint: DataEndpoint): string {
  const base = endpoint.dataset.slug.replaceAll('-', '_');
  switch (endpoint.kind) {
    case 'list':
      return `list_${base}`;
    case 'detail':
      return `get_${base}_by_${endpoint.dataset.entity.kind}`;
    case 'timeSeries':
      return `get_${base}_time_series`;
    case 'lowest':
      return `get_lowest_${base}`;
    case 'quote':
      return `check_${base}_quote`;
  }
}

/** `get<slug in PascalCase><what>` (`foo-rates`, `Changes` → `getFooRatesChanges`): the operationId of a dataset's feed or log. */
export const datasetOperationId = (dataset: Dataset, what: string) =>
  `get${dataset.slug.replace(/(^|-)(\w)/g, (_, __: string, c: string) => c.toUpperCase())}${what}`;

/** The same name in camelCase, for OpenAPI operationIds (`list_foo_rates` → `listFooRates`). */
export const operationId = (endpoint: DataEndpoint) =>
  operationName(endpoint).replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
