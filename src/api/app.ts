/**
 * The framework-agnostic core of the REST API: `(request: Request) => Promise<Response>`.
 * Astro routes, the Vercel function and the tests all call this one function.
 */
import type { ServedStore } from '../store/served-store.ts';
import type { StatusStore } from '../status/status-store.ts';
import { siteUrl } from '../site.ts';
import type { RequestContext } from './context.ts';
import { applyCaching, notModifiedIfMatching } from './caching.ts';
import { preflight, withCors } from './cors.ts';
import { getHealth } from './health.ts';
import { quote } from './query.ts';
import { getRatesByEntity, listRates } from './rates.ts';
import { ApiError, errorResponse } from './responses.ts';
import { ALLOWED_METHODS, isAllowedMethod, matchRoute, routeQuery, type Route } from './routes.ts';
import { getTimeSeries } from './time-series.ts';
import { getChanges } from './changes.ts';

export interface ApiDeps {
  /** The served store; may reject when it cannot be read (health then reports database error). */
  loadStore: () => Promise<ServedStore>;
  status: StatusStore;
  now?: () => Date;
  /** Where server-side failures are reported (default console.error); never to the caller. */
  log?: (message: string, error: unknown) => void;
  /** The origin of every absolute URL in an answer (default siteUrl()); never the request's. */
  siteUrl?: string;
}

export type Handler = (request: Request) => Promise<Response>;

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
  const site = deps.siteUrl ?? siteUrl();

  async function dispatch(route: Route, url: URL): Promise<Response> {
    const query = routeQuery(route, url.searchParams);
    if (route.kind === 'health') return getHealth(deps.loadStore, deps.status, now(), log);
    const { endpoint } = route;
    let store: ServedStore;
    try {
      store = await deps.loadStore();
    } catch (error) {
      log('api: snapshot store unreadable:', error);
      throw serverError(route);
    }
    const ctx: RequestContext = { url, now: now(), store };
    switch (endpoint.kind) {
      case 'list':
        return listRates(endpoint, query, ctx);
      case 'detail':
        return getRatesByEntity(endpoint, route.pathValue ?? '', query, ctx);
      case 'timeSeries':
        return getTimeSeries(endpoint, query, ctx);
      case 'changes':
        return getChanges(endpoint, query, ctx);
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
      const response = withCors(errorResponse(notFound, site));
      applyCaching(response.headers, 'data', 404);
      return response;
    }

    let response: Response;
    if (!isAllowedMethod(request.method)) {
      const allow = ALLOWED_METHODS.join(', ');
      response = errorResponse(
        new ApiError('method_not_allowed', 'Method not allowed', `This endpoint is read-only: use ${allow}.`, { headers: { allow } }),
        site,
      );
    } else {
      try {
        response = await dispatch(route, url);
      } catch (error) {
        if (!(error instanceof ApiError)) log('api: unexpected failure:', error);
        response = errorResponse(error instanceof ApiError ? error : serverError(route), site);
      }
    }
    response = await notModifiedIfMatching(request, response);
    // One answer per method and URL, the same for every caller: no request id and no Vary here
    // (request-id.ts stamps the id outside any cache).
    applyCaching(response.headers, route.kind === 'health' ? 'health' : 'data', response.status);
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
