/**
 * Which /api/v1 endpoint a path names and how its query is read. The path's shape and the
 * parameters' formats are src/paths.ts's and src/schemas/params.ts's, which the request-id stamp
 * (src/http/request-id.ts) reads too; which datasets there are is the table's.
 */
import { z } from 'zod';
import { datasetBySlug, type Dataset } from '../datasets.ts';
import { endpointsOf, type DataEndpoint } from '../endpoints.ts';
import { changesEndpointOf, type ChangesEndpoint } from '../changes/endpoint.ts';
import {
  ALERTS_SEGMENT,
  alertsFeedSlug,
  BREAK_EVEN_SEGMENT,
  CHANGES_SEGMENT,
  endpointSegments,
  LOWEST_SEGMENT,
  QUOTE_SEGMENT,
  TIME_SERIES_SEGMENT,
} from '../paths.ts';
import { alertsEndpointOf, type AlertsEndpoint } from './alerts.ts';
import { breakEvenEndpointOf, type BreakEvenEndpoint } from './break-even.ts';
import { parseQuery } from './query.ts';

/** Health, the status figures and the institutions take no query parameters. */
const HEALTH_QUERY = z.strictObject({});

export type Route =
  | { kind: 'health' }
  | { kind: 'status' }
  | { kind: 'institutions' }
  | {
      kind: 'data';
      endpoint: DataEndpoint | ChangesEndpoint | AlertsEndpoint | BreakEvenEndpoint;
      pathValue?: string;
      atom?: true;
    };

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes simply match nothing
  }
}

/** Match `/api/v1/...` against health, the status figures, the institutions and the endpoints of each dataset (four, and the change log). */
export function matchRoute(pathname: string): Route | undefined {
  // The one path outside /api/v1: the alerts feed in Atom, for feed readers that take no JSON Feed.
  const feed = alertsFeedSlug(pathname);
  const feedDataset = feed === undefined ? undefined : datasetBySlug(feed);
  if (feedDataset) return { kind: 'data', endpoint: alertsEndpointOf(feedDataset), atom: true };
  const shape = endpointSegments(pathname);
  if (shape?.kind !== 'dataset') return shape;
  const dataset: Dataset | undefined = datasetBySlug(shape.slug);
  if (!dataset) return undefined;
  const { segment } = shape;
  const endpoints = endpointsOf(dataset);
  if (segment === undefined) return { kind: 'data', endpoint: endpoints.list };
  if (segment === TIME_SERIES_SEGMENT) return { kind: 'data', endpoint: endpoints.timeSeries };
  // Before the detail route: a bare slug `changes`, `lowest` or `quote` would name it, so the build refuses one (src/changes/endpoint.ts).
  if (segment === CHANGES_SEGMENT) return { kind: 'data', endpoint: changesEndpointOf(dataset) };
  if (segment === LOWEST_SEGMENT) return { kind: 'data', endpoint: endpoints.lowest };
  if (segment === ALERTS_SEGMENT) return { kind: 'data', endpoint: alertsEndpointOf(dataset) };
  if (segment === QUOTE_SEGMENT) return { kind: 'data', endpoint: endpoints.quote };
  if (segment === BREAK_EVEN_SEGMENT) {
    // Only a dataset whose measures are fixed terms has it; for the others the segment names no endpoint.
    const breakEven = breakEvenEndpointOf(dataset);
    return breakEven ? { kind: 'data', endpoint: breakEven } : undefined;
  }
  return { kind: 'data', endpoint: endpoints.detail, pathValue: decodeSegment(segment) };
}

/** The route's query, validated; throws the ApiError the caller gets (see parseQuery). */
export function routeQuery(route: Route, params: URLSearchParams): Record<string, string | undefined> {
  return route.kind !== 'data'
    ? parseQuery(HEALTH_QUERY, params)
    : parseQuery(route.endpoint.query, params, route.endpoint.ignoredQuery);
}
