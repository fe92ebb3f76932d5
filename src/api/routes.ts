/**
 * Which /api/v1 endpoint a path names and how its query is read. The core answers by these
 * rules, and the request-id stamp (request-id.ts) applies the same ones to decide, from the
 * request alone, whether the answer carries `x-request-id`.
 */
import { z } from 'zod';
import { datasetBySlug, type Dataset } from '../datasets.ts';
import { API_PREFIX, endpointsOf, HEALTH_SEGMENT, TIME_SERIES_SEGMENT, type DataEndpoint } from '../endpoints.ts';
import { CHANGES_SEGMENT, changesEndpointOf, type ChangesEndpoint } from '../changes/endpoint.ts';
import { parseQuery } from './query.ts';

export const ALLOWED_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;
/** Health takes no query parameters. */
const HEALTH_QUERY = z.strictObject({});

export type Route = { kind: 'health' } | { kind: 'data'; endpoint: DataEndpoint | ChangesEndpoint; pathValue?: string };

export function isAllowedMethod(method: string): boolean {
  return (ALLOWED_METHODS as readonly string[]).includes(method);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes simply match nothing
  }
}

/** Match `/api/v1/...` against health and the endpoints of each dataset (three, and the change log). */
export function matchRoute(pathname: string): Route | undefined {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const segments = pathname
    .slice(API_PREFIX.length + 1)
    .replace(/\/$/, '')
    .split('/');
  const [first = '', second, ...rest] = segments;
  if (rest.length > 0) return undefined;
  if (first === HEALTH_SEGMENT && second === undefined) return { kind: 'health' };
  const dataset: Dataset | undefined = datasetBySlug(first);
  if (!dataset) return undefined;
  const endpoints = endpointsOf(dataset);
  if (second === undefined) return { kind: 'data', endpoint: endpoints.list };
  if (second === TIME_SERIES_SEGMENT) return { kind: 'data', endpoint: endpoints.timeSeries };
  // Before the detail route: a bare slug `changes` would name it, so the build refuses one (src/changes/endpoint.ts).
  if (second === CHANGES_SEGMENT) return { kind: 'data', endpoint: changesEndpointOf(dataset) };
  if (second === '') return undefined;
  return { kind: 'data', endpoint: endpoints.detail, pathValue: decodeSegment(second) };
}

/** The route's query, validated; throws the ApiError the caller gets (see parseQuery). */
export function routeQuery(route: Route, params: URLSearchParams): Record<string, string | undefined> {
  return route.kind === 'health'
    ? parseQuery(HEALTH_QUERY, params)
    : parseQuery(route.endpoint.query, params, route.endpoint.ignoredQuery);
}
