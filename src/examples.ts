/**
 * Real examples for the docs and the OpenAPI document, produced at build time by asking the
 * running core (not written by hand), so they show exactly what the API answers for the data
 * the build serves. Large lists are cut to their first entities, which keeps them valid.
 */
import type { Handler } from './api/app.ts';
import { createApi } from './service.ts';
import type { StatusStore } from './status/status-store.ts';
import type { ServedStore } from './store/served-store.ts';
import { DATASETS, type DatasetSlug, type Entity } from './datasets.ts';
import { API_PREFIX, endpointsOf, HEALTH_PATH, operationId, type DataEndpoint } from './endpoints.ts';
import { changesExampleRequests, changesOperationId } from './changes/endpoint.ts';

export interface Example {
  /** Path and query, e.g. `/api/v1/mortgage-rates?termInMonths=12`. */
  request: string;
  status: number;
  body: unknown;
}

export type ExampleSet = Record<string, Example[]>;

const KEEP = 2;

/** The parts of an API answer that trim shortens: a list's data, a time series and its dates. */
interface Trimmable {
  data?: unknown;
  timeSeries?: Record<string, unknown>;
  availableDates: string[];
}

function trim(answer: unknown): unknown {
  if (!answer || typeof answer !== 'object') return answer;
  const body = answer as Trimmable;
  if (Array.isArray(body.data)) return { ...body, data: body.data.slice(0, KEEP) };
  const series = body.timeSeries;
  if (series && typeof series === 'object') {
    const dates = Object.keys(series).slice(-KEEP);
    return {
      ...body,
      availableDates:
        body.availableDates.length > 6
          ? [...body.availableDates.slice(0, 3), ...body.availableDates.slice(-3)]
          : body.availableDates,
      timeSeries: Object.fromEntries(dates.map((d) => [d, trim(series[d])])),
    };
  }
  return body;
}

/** The requests each endpoint is shown with: a success (when there is data) and its typical errors. */
function requestsFor(endpoint: DataEndpoint, firstId: string | undefined, newestDate: string | undefined): string[] {
  const { dataset } = endpoint;
  const base = endpointsOf(dataset).list.path;
  const param = dataset.entity.param;
  const term = dataset.filters.some((f) => f.name === 'termInMonths') ? 'termInMonths=12' : '';
  switch (endpoint.kind) {
    case 'list':
      return [term ? `${base}?${term}` : base, `${base}?colour=blue`, ...(term ? [`${base}?termInMonths=one`] : [])];
    case 'detail':
      return [
        ...(firstId ? [`${base}/${firstId}${term ? `?${term}` : ''}`] : []),
        `${base}/${dataset.entity.prefix}:no-such-lender`,
      ];
    case 'timeSeries': {
      const series = endpoint.path;
      return [
        ...(firstId && newestDate ? [`${series}?date=${newestDate}&${param}=${firstId}${term ? `&${term}` : ''}`] : []),
        series,
        `${series}?startDate=2024-06-01`,
        `${series}?startDate=2024-06-30&endDate=2024-06-01`,
        `${series}?date=2000-01-01`,
        ...(newestDate ? [`${series}?date=${newestDate}&${param}=${dataset.entity.prefix}:no-such-lender`] : []),
        `${series}?date=yesterday`,
      ];
    }
  }
}

/**
 * The collection status a healthy production deployment reads: every dataset checked 17 minutes
 * ago, its last change the one the deployment serves. Only the examples use it.
 */
export function healthyStatusStore(served?: ServedStore, now = () => new Date()): StatusStore {
  return {
    kind: 'vercel-blob',
    required: true,
    async read(slug) {
      const history = served?.newest(slug as DatasetSlug);
      const lastChanged = history && history.size > 0 ? history.lastUpdated(history.latest) : null;
      return {
        lastChecked: new Date(now().getTime() - 17 * 60_000).toISOString(),
        lastChanged,
        lastError: null,
        lastErrorAt: null,
      };
    },
    async write() {},
  };
}

export async function collectExamples(handle: Handler, origin: string): Promise<ExampleSet> {
  const examples: ExampleSet = {};
  const ask = async (request: string): Promise<Example> => {
    const response = await handle(new Request(`${origin}${request}`));
    return { request, status: response.status, body: trim(await response.json()) };
  };
  for (const dataset of DATASETS) {
    const { list: listEndpoint, timeSeries } = endpointsOf(dataset);
    const list = await ask(listEndpoint.path);
    const first = (list.body as { data?: Entity[] }).data?.[0]?.id;
    const series = await ask(timeSeries.path);
    const newestDate = (series.body as { availableDates?: string[] }).availableDates?.at(-1);
    for (const endpoint of Object.values(endpointsOf(dataset))) {
      examples[operationId(endpoint)] = await Promise.all(requestsFor(endpoint, first, newestDate).map(ask));
    }
    examples[changesOperationId(dataset)] = await Promise.all(
      changesExampleRequests(dataset, first, newestDate).map(ask),
    );
  }
  examples.getHealth = [await ask(HEALTH_PATH), await ask(`${HEALTH_PATH}?verbose=1`)];
  // The 500 every data endpoint gives when its store cannot be read, from the same code path.
  const broken = createApi({
    loadStore: () => Promise.reject(new Error('store unreadable')),
    status: healthyStatusStore(),
    log: () => {},
    siteUrl: origin,
  });
  const failure = await broken(new Request(`${origin}${API_PREFIX}/mortgage-rates`));
  examples.serverError = [
    { request: `${API_PREFIX}/mortgage-rates`, status: failure.status, body: await failure.json() },
  ];
  const unhealthy = await broken(new Request(`${origin}${HEALTH_PATH}`));
  examples.getHealth.push({ request: HEALTH_PATH, status: unhealthy.status, body: await unhealthy.json() });
  return examples;
}
