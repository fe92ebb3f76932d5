/**
 * The framework-agnostic core of the REST API: `(request: Request) => Promise<Response>`.
 * Astro routes, the Vercel function and the tests all call this one function.
 */
import type { ServedStore } from '../store/served-store.ts';
import type { StatusStore } from '../status/status-store.ts';
import { DATASETS } from '../datasets.ts';
import { endpointsOf, HEALTH_PATH } from '../endpoints.ts';
import { siteUrl } from '../site.ts';
import type { RequestContext } from './context.ts';
import { applyCaching, notModifiedIfMatching } from './caching.ts';
import { defaultLog, headOf, preflight, withCors, type Log } from './edge.ts';
import { cachedStatusStore, getHealth } from './health.ts';
import {
  READY_BODIES,
  serve,
  servedResponse,
  type Codings,
  type ReadyAnswer,
  type Served,
  type ServeRequest,
} from './ready.ts';
import { carriesRequestId } from './request-id.ts';
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
  log?: Log;
  /** The origin of every absolute URL in an answer (default siteUrl()); never the request's. */
  siteUrl?: string;
  /**
   * Content codings offered on this deployment (`npm start`: src/server/codings.ts). With them the
   * core keeps ready answers per URL and answers GET and HEAD from them, coded as negotiated.
   */
  codings?: Codings;
  /** Keep health's status store reads this long (health.ts STATUS_CACHE_MS); none when unset. */
  statusCacheMs?: number;
  /** The monotonic clock of that cache, in ms (tests inject one). */
  clock?: () => number;
}

export type Handler = (request: Request) => Promise<Response>;

/** The core with its ready answers open to a writer of its own (src/server/fast-path.ts). */
export interface Core extends Handler {
  /** The kept ready answer to GET or HEAD of this path and query, if the core has made one. */
  readyAnswer(pathAndQuery: string): ReadyAnswer | undefined;
  /**
   * The ready answer to GET or HEAD of this path and query, made now if the core has none yet
   * (by answering the URL itself); undefined where the answer cannot be kept (or without codings).
   */
  makeReady(pathAndQuery: string): Promise<ReadyAnswer | undefined>;
  /** The core's clock: the time its answers are stamped with. */
  now(): Date;
  /** One request's answer from a ready answer, at the core's clock and with its codings. */
  serveReady(answer: ReadyAnswer, request: ServeRequest): Served;
}

const DATASET_LISTS = DATASETS.map((dataset) => endpointsOf(dataset).list.path).join(', ');

/** Ready answers (and URLs known not to have one) kept per core: unusual URLs cannot grow memory. */
const READY_KEPT = 1024;

function serverError(route: Route): ApiError {
  const what = route.kind === 'health' ? 'health' : `${route.endpoint.dataset.label} data`;
  return new ApiError(
    'server_error',
    `An error occurred while retrieving ${what}`,
    `This is a fault on our side, not in your request. Retry shortly; if it persists, GET ${HEALTH_PATH} reports the state of the service.`,
  );
}

export function createApi(deps: ApiDeps): Core {
  const now = deps.now ?? (() => new Date());
  const clock = deps.clock ?? (() => performance.now());
  const status = deps.statusCacheMs ? cachedStatusStore(deps.status, deps.statusCacheMs, clock) : deps.status;
  const log = deps.log ?? defaultLog;
  const site = deps.siteUrl ?? siteUrl();

  async function dispatch(route: Route, url: URL): Promise<Response> {
    const query = routeQuery(route, url.searchParams);
    if (route.kind === 'health') return getHealth(deps.loadStore, status, now(), log);
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
    if (request.method === 'OPTIONS') return preflight(request);

    const route = matchRoute(url.pathname);
    if (!route) {
      const notFound = new ApiError(
        'not_found',
        'Not found',
        `There is no endpoint at ${quote(url.pathname)}. The endpoints are listed at /openapi/json; datasets: ${DATASET_LISTS}.`,
      );
      const response = withCors(errorResponse(notFound, site));
      applyCaching(response.headers, 'data', 404);
      return response;
    }

    let response: Response;
    if (!isAllowedMethod(request.method)) {
      const allow = ALLOWED_METHODS.join(', ');
      response = errorResponse(
        new ApiError('method_not_allowed', 'Method not allowed', `This endpoint is read-only: use ${allow}.`, {
          headers: { allow },
        }),
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

  const ready = new Map<string, ReadyAnswer | null>();

  /** The URL's ready answer, made from the core's own answers to it (a GET, and a GET naming its ETag). */
  async function makeReady(url: URL): Promise<ReadyAnswer | null | undefined> {
    const get = new Request(url);
    const response = await answer(get, url);
    const body = READY_BODIES.get(response);
    if (!body || response.status >= 500) {
      await response.body?.cancel();
      return response.status >= 500 ? undefined : null; // a failure may pass: ask again next time
    }
    await response.body?.cancel();
    const etag = response.headers.get('etag') ?? undefined;
    const headers = [...response.headers].filter(([name]) => name !== 'content-length');
    let notModified: [string, string][] | undefined;
    if (etag && response.status === 200) {
      const conditional = await answer(new Request(url, { headers: { 'if-none-match': etag } }), url);
      notModified = [...conditional.headers];
    }
    return {
      status: response.status,
      headers,
      notModified,
      etag,
      head: body.head,
      stamped: body.stamped,
      requestId: carriesRequestId(get),
      coded: new Map(),
    };
  }

  const serveReady = (answer: ReadyAnswer, request: ServeRequest) => serve(answer, request, now(), deps.codings);

  /** A kept answer still within its time. */
  const current = (kept: ReadyAnswer | null | undefined) =>
    kept && kept.until !== undefined && clock() >= kept.until ? undefined : kept;

  async function readyFor(url: URL): Promise<ReadyAnswer | null | undefined> {
    const key = `${url.pathname}${url.search}`;
    let kept = current(ready.get(key));
    if (kept !== undefined) return kept;
    const health = matchRoute(url.pathname)?.kind === 'health';
    // Health changes with time and the status store: without a status window it is never kept.
    if (health && !deps.statusCacheMs) return null;
    const made = clock();
    kept = await makeReady(url);
    if (kept === undefined) return undefined;
    // Health's verdict is worked out once per status window (its reads are that old at most anyway).
    if (health && kept) kept.until = made + deps.statusCacheMs!;
    ready.delete(key);
    if (ready.size >= READY_KEPT) ready.delete(ready.keys().next().value as string);
    ready.set(key, kept);
    return kept;
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (deps.codings && (request.method === 'GET' || request.method === 'HEAD')) {
      const kept = await readyFor(url);
      if (kept) {
        return servedResponse(
          serveReady(kept, {
            method: request.method,
            acceptEncoding: request.headers.get('accept-encoding') ?? undefined,
            ifNoneMatch: request.headers.get('if-none-match'),
          }),
        );
      }
    }
    const response = await answer(request, url);
    return request.method === 'HEAD' ? headOf(response) : response;
  }

  return Object.assign(handle, {
    readyAnswer: (pathAndQuery: string) => current(ready.get(pathAndQuery)) ?? undefined,
    async makeReady(pathAndQuery: string) {
      if (!deps.codings) return undefined;
      return (await readyFor(new URL(pathAndQuery, site))) ?? undefined;
    },
    now,
    serveReady,
  });
}
