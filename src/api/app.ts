/**
 * The framework-agnostic core of the REST API: `(request: Request) => Promise<Response>`.
 * Astro routes, the Vercel function and the tests all call this one function.
 */
import { z } from 'zod';
import { datasetBySlug, type Dataset } from '../datasets.ts';
import { API_PREFIX, endpointsOf, type DataEndpoint } from '../endpoints.ts';
import type { ServedStore } from '../store/served-store.ts';
import type { StatusStore } from '../status/status-store.ts';
import type { RequestContext } from './context.ts';
import { cacheControlFor, notModifiedIfMatching } from './caching.ts';
import { preflight, withCors } from './cors.ts';
import { getHealth } from './health.ts';
import { parseQuery, quote } from './query.ts';
import { getRatesByEntity, listRates } from './rates.ts';
import { requestIdFor } from './request-id.ts';
import { ApiError, errorResponse } from './responses.ts';
import { getTimeSeries } from './time-series.ts';

export interface ApiDeps {
  /** The served store; may reject when it cannot be read (health then reports database error). */
  loadStore: () => Promise<ServedStore>;
  status: StatusStore;
  now?: () => Date;
  /** Where server-side failures are reported (default console.error); never to the caller. */
  log?: (message: string, error: unknown) => void;
}

export type Handler = (request: Request) => Promise<Response>;

const ALLOWED_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;
/** Health takes no query parameters. */
const HEALTH_QUERY = z.strictObject({});

type Route = { kind: 'health' } | { kind: 'data'; endpoint: DataEndpoint; pathValue?: string };

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes simply match nothing
  }
}

/** Match `/api/v1/...` against health and the three endpoints of each dataset. */
export function matchRoute(pathname: string): Route | undefined {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const segments = pathname.slice(API_PREFIX.length + 1).replace(/\/$/, '').split('/');
  const [first = '', second, ...rest] = segments;
  if (rest.length > 0) return undefined;
  if (first === 'health' && second === undefined) return { kind: 'health' };
  const dataset: Dataset | undefined = datasetBySlug(first);
  if (!dataset) return undefined;
  const endpoints = endpointsOf(dataset);
  if (second === undefined) return { kind: 'data', endpoint: endpoints.list };
  if (second === 'time-series') return { kind: 'data', endpoint: endpoints.timeSeries };
  if (second === '') return undefined;
  return { kind: 'data', endpoint: endpoints.detail, pathValue: decodeSegment(second) };
}

function serverError(route: Route): ApiError {
  const what = route.kind === 'health' ? 'health' : `${route.endpoint.dataset.label} data`;
  return new ApiError(
    'server_error',
    `An error occurred while retrieving ${what}`,
    'This is a fault on our side, not in your request. Retry shortly; if it persists, GET /api/v1/health reports the state of the service.',
  );
}

export function createApi(deps: ApiDeps): Handler {
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? ((message: string, error: unknown) => console.error(message, error));

  async function dispatch(route: Route, url: URL): Promise<Response> {
    if (route.kind === 'health') {
      parseQuery(HEALTH_QUERY, url.searchParams);
      return getHealth(deps.loadStore, deps.status, now(), log);
    }
    const { endpoint } = route;
    const query = parseQuery(endpoint.query, url.searchParams, endpoint.ignoredQuery);
    let store: ServedStore;
    try {
      store = await deps.loadStore();
    } catch (error) {
      log('api: snapshot store unreadable:', error);
      throw serverError(route);
    }
    const ctx: RequestContext = { url, origin: url.origin, now: now(), store };
    switch (endpoint.kind) {
      case 'list':
        return listRates(endpoint, query, ctx);
      case 'detail':
        return getRatesByEntity(endpoint, route.pathValue ?? '', query, ctx);
      case 'timeSeries':
        return getTimeSeries(endpoint, query, ctx);
    }
  }

  async function answer(request: Request, url: URL): Promise<Response> {
    if (request.method === 'OPTIONS') return preflight(request, ALLOWED_METHODS);

    const route = matchRoute(url.pathname);
    if (!route) {
      const notFound = new ApiError(
        'not_found',
        'Not found',
        `There is no endpoint at ${quote(url.pathname)}. The endpoints are listed at /openapi/json; datasets: /api/v1/mortgage-rates, /api/v1/personal-loan-rates, /api/v1/car-loan-rates, /api/v1/credit-card-rates.`,
      );
      const response = withCors(errorResponse(notFound, url.origin));
      response.headers.set('cache-control', cacheControlFor('data', 404));
      return response;
    }

    let response: Response;
    let tagged = true;
    if (!(ALLOWED_METHODS as readonly string[]).includes(request.method)) {
      const allow = ALLOWED_METHODS.join(', ');
      response = errorResponse(
        new ApiError('method_not_allowed', 'Method not allowed', `This endpoint is read-only: use ${allow}.`, { headers: { allow } }),
        url.origin,
      );
    } else {
      try {
        response = await dispatch(route, url);
      } catch (error) {
        if (!(error instanceof ApiError)) log('api: unexpected failure:', error);
        const apiError = error instanceof ApiError ? error : serverError(route);
        tagged = !apiError.options.formatError;
        response = errorResponse(apiError, url.origin);
      }
    }
    response = await notModifiedIfMatching(request, response);
    response.headers.set('cache-control', cacheControlFor(route.kind === 'health' ? 'health' : 'data', response.status));
    // A cached answer must not hand one caller's request id to another.
    response.headers.set('vary', 'x-request-id');
    if (tagged) response.headers.set('x-request-id', requestIdFor(request));
    return withCors(response);
  }

  return async function handle(request: Request): Promise<Response> {
    const response = await answer(request, new URL(request.url));
    if (request.method !== 'HEAD') return response;
    // HEAD: the same status and headers as GET, whatever the route, and no body.
    await response.body?.cancel();
    return new Response(null, { status: response.status, headers: response.headers });
  };
}
