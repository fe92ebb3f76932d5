/**
 * The REST endpoints, derived from the dataset table: three per dataset plus health. The API
 * router, and later the OpenAPI document and the MCP tools, read these declarations.
 */
import { z } from 'zod';
import { DATASETS, type Dataset } from './datasets.ts';
import { DateParam, EntityIdParam } from './schemas/params.ts';

export type EndpointKind = 'list' | 'detail' | 'timeSeries';

export interface DataEndpoint {
  kind: EndpointKind;
  dataset: Dataset;
  /** OpenAPI-style path, e.g. `/api/v1/mortgage-rates/{institutionId}`. */
  path: string;
  /** The path parameter's name (detail endpoints only). */
  pathParam?: string;
  /** Strict: a parameter not declared here is a client mistake (400). */
  query: z.ZodObject;
  /** Accepted and ignored (spec §4.4). */
  ignoredQuery: readonly string[];
}

export const API_PREFIX = '/api/v1';

function filterParams(dataset: Dataset) {
  return Object.fromEntries(dataset.filters.map((filter) => [filter.name, filter.schema.optional()]));
}

export function endpointsOf(dataset: Dataset): Record<EndpointKind, DataEndpoint> {
  const base = `${API_PREFIX}/${dataset.slug}`;
  const filters = filterParams(dataset);
  return {
    list: { kind: 'list', dataset, path: base, query: z.strictObject(filters), ignoredQuery: [] },
    detail: {
      kind: 'detail',
      dataset,
      path: `${base}/{${dataset.entity.param}}`,
      pathParam: dataset.entity.param,
      query: z.strictObject(filters),
      ignoredQuery: [],
    },
    timeSeries: {
      kind: 'timeSeries',
      dataset,
      path: `${base}/time-series`,
      query: z.strictObject({
        date: DateParam.optional(),
        startDate: DateParam.optional(),
        endDate: DateParam.optional(),
        [dataset.entity.param]: EntityIdParam.optional(),
        ...filters,
      }),
      ignoredQuery: dataset.ignoredTimeSeriesParams,
    },
  };
}

export const DATA_ENDPOINTS: DataEndpoint[] = DATASETS.flatMap((dataset) => Object.values(endpointsOf(dataset)));

export const HEALTH_PATH = `${API_PREFIX}/health`;
