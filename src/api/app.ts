/**
 * The REST core: a GET of an /api/v1 path answered — routing, validation, the data and the
 * documented errors — as a plain answer, before the HTTP rules (src/http/way-out.ts applies
 * those for every deployment). src/service.ts puts it, MCP and the docs search behind one way out.
 */
import type { ServedStore } from '../store/served-store.ts';
import type { StatusStore } from '../status/status-store.ts';
import type { Answer } from '../http/answer.ts';
import { DATASETS } from '../datasets.ts';
import { endpointsOf, HEALTH_PATH } from '../endpoints.ts';
import { siteUrl } from '../site.ts';
import { websubHub } from '../lib/websub.ts';
import type { RequestContext } from './context.ts';
import { defaultLog, type Log } from '../lib/log.ts';
import { cachedStatusStore } from '../status/health.ts';
import { getHealth } from './health.ts';
import { getStatus } from './status.ts';
import { quote } from '../schemas/params.ts';
import { getRatesByEntity, listRates } from './rates.ts';
import { ApiError, errorAnswer } from './responses.ts';
import { ALLOWED_METHODS, isAllowedMethod } from '../paths.ts';
import { matchRoute, routeQuery, type Route } from './routes.ts';
import { getTimeSeries } from './time-series.ts';
import { getChanges } from './changes.ts';
import { getLowest } from './lowest.ts';
import { getInstitutions } from './institutions.ts';
import { getAlerts } from './alerts.ts';
import { getQuote } from './quote.ts';
import { getBreakEven } from './break-even.ts';

export interface ApiDeps {
  /** The served store; may reject when it cannot be read (health then reports database error). */
  loadStore: () => Promise<ServedStore>;
  status: StatusStore;
  now?: () => Date;
  /** Where server-side failures are reported (default console.error); never to the caller. */
  log?: Log;
  /** The origin of every absolute URL in an answer (default siteUrl()); never the request's. */
  siteUrl?: string;
  /** The WebSub hub the alert feeds name (default WEBSUB_HUB_URL, src/lib/websub.ts); given as undefined, none. */
  websubHub?: string;
  /** Keep health's status store reads this long (health.ts STATUS_CACHE_MS); none when unset. */
  statusCacheMs?: number;
  /** The monotonic clock of that cache and of kept answers, in ms (tests inject one). */
  clock?: () => number;
}

export type Handler = (request: Request) => Promise<Response>;

/** The REST core: one request's answer, from its method and URL alone. */
export type RestCore = (method: string, url: URL) => Promise<Answer>;

const DATASET_LISTS = DATASETS.map((dataset) => endpointsOf(dataset).list.path).join(', ');

function serverError(route: Route): ApiError {
  const what =
    route.kind === 'health'
      ? 'health'
      : route.kind === 'status'
        ? 'the status'
        : route.kind === 'institutions'
          ? 'the institutions'
          : `${route.endpoint.dataset.label} data`;
  return new ApiError(
    'server_error',
    `An error occurred while retrieving ${what}`,
    `This is a fault on our side, not in your request. Retry shortly; if it persists, GET ${HEALTH_PATH} reports the state of the service.`,
  );
}

export function createRestCore(deps: ApiDeps): RestCore {
  const now = deps.now ?? (() => new Date());
  const clock = deps.clock ?? (() => performance.now());
  const status = deps.statusCacheMs ? cachedStatusStore(deps.status, deps.statusCacheMs, clock) : deps.status;
  const log = deps.log ?? defaultLog;
  const site = deps.siteUrl ?? siteUrl();
  const hub = 'websubHub' in deps ? deps.websubHub : websubHub();

  async function dispatch(route: Route, url: URL): Promise<Answer> {
    const query = routeQuery(route, url.searchParams);
    if (route.kind === 'health') return getHealth(deps.loadStore, status, now(), log);
    if (route.kind === 'status') return getStatus(status, now(), log);
    let store: ServedStore;
    try {
      store = await deps.loadStore();
    } catch (error) {
      log('api: snapshot store unreadable:', error);
      throw serverError(route);
    }
    const ctx: RequestContext = { url, now: now(), store };
    if (route.kind === 'institutions') return getInstitutions(ctx);
    const { endpoint } = route;
    switch (endpoint.kind) {
      case 'list':
        return listRates(endpoint, query, ctx);
      case 'detail':
        return getRatesByEntity(endpoint, route.pathValue ?? '', query, ctx);
      case 'timeSeries':
        return getTimeSeries(endpoint, query, ctx);
      case 'changes':
        return getChanges(endpoint, query, ctx);
      case 'lowest':
        return getLowest(endpoint, query, ctx);
      case 'quote':
        return getQuote(endpoint, query, ctx);
      case 'alerts':
        return getAlerts(endpoint, query, ctx, site, route.atom ?? false, hub);
      case 'breakEven':
        return getBreakEven(endpoint, query, ctx);
    }
  }

  async function routed(route: Route, method: string, url: URL): Promise<Answer> {
    if (!isAllowedMethod(method)) {
      const allow = ALLOWED_METHODS.join(', ');
      return errorAnswer(
        new ApiError('method_not_allowed', 'Method not allowed', `This endpoint is read-only: use ${allow}.`, {
          headers: { allow },
        }),
        site,
      );
    }
    try {
      return await dispatch(route, url);
    } catch (error) {
      if (!(error instanceof ApiError)) log('api: unexpected failure:', error);
      return errorAnswer(error instanceof ApiError ? error : serverError(route), site);
    }
  }

  return async function answer(method: string, url: URL): Promise<Answer> {
    const route = matchRoute(url.pathname);
    if (!route) {
      return errorAnswer(
        new ApiError(
          'not_found',
          'Not found',
          `There is no endpoint at ${quote(url.pathname)}. The endpoints are listed at /openapi/json; datasets: ${DATASET_LISTS}.`,
        ),
        site,
      );
    }
    const answer = await routed(route, method, url);
    // Health and the status figures say what is true now: no cache keeps any of their answers.
    return route.kind === 'health' || route.kind === 'status' ? { ...answer, cache: 'never' } : answer;
  };
}
