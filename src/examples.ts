/**
 * Real examples for the docs and the OpenAPI document, produced at build time by asking the
 * running core (not written by hand), so they show exactly what the API answers for the data
 * the build serves. Long lists are cut (EXAMPLE_CUT), which keeps them valid, and each example says
 * what was cut.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Handler } from './api/app.ts';
import { createApi } from './service.ts';
import { FileStatusStore, type StatusStore } from './status/status-store.ts';
import type { ServedStore } from './store/served-store.ts';
import { DATASETS, type DatasetSlug, type Entity } from './datasets.ts';
import { endpointsOf, HEALTH_PATH, operationId, type DataEndpoint } from './endpoints.ts';
import { changesExampleRequests, changesOperationId } from './changes/endpoint.ts';
import { alertsExampleRequests, alertsOperationId } from './api/alerts.ts';
import { quoteExampleRequests } from './api/quote.ts';
import { breakEvenEndpointOf, breakEvenExampleRequests, breakEvenOperationId } from './api/break-even.ts';
import { rateValues } from './collect/guards.ts';
import { INSTITUTIONS_PATH, STATUS_PATH } from './paths.ts';
import { type CollectionRun, RUN_LOG_LENGTH } from './status/run-log.ts';

export interface Example {
  /** Path and query, e.g. `/api/v1/<dataset slug>?<filter>=<value>`. */
  request: string;
  status: number;
  body: unknown;
  /** What trim left out: the length each cut list had in the answer. */
  cut?: ExampleCut;
}

export type ExampleSet = Record<string, Example[]>;

/** How much of an answer an example keeps (the reference pages say so from these). */
export const EXAMPLE_CUT = {
  /** A list's first entities (each snapshot's too). */
  entities: 2,
  /** A time series' last snapshots. */
  snapshots: 2,
  /** `availableDates`' first and last dates, this many at each end. */
  datesAtEachEnd: 3,
} as const;

/** The length of each list an example cut, before the cut; a list not cut is absent. */
export interface ExampleCut {
  data?: number;
  snapshots?: number;
  /** The longest `data` of the snapshots kept. */
  snapshotData?: number;
  availableDates?: number;
}

/**
 * What an example left out, in words ("`data` cut to its first 2 of 34 institutions"), `noun` the
 * plural of what `data` lists: the reference pages and the OpenAPI document say it beside the example.
 */
export function cutWords(cut: ExampleCut | undefined, noun: string): string[] {
  if (!cut) return [];
  const { entities, snapshots, datesAtEachEnd } = EXAMPLE_CUT;
  return [
    ...(cut.data ? [`\`data\` cut to its first ${entities} of ${cut.data} ${noun}`] : []),
    ...(cut.snapshots ? [`\`timeSeries\` cut to its last ${snapshots} of ${cut.snapshots} snapshots`] : []),
    ...(cut.snapshotData ? [`each snapshot's \`data\` cut to its first ${entities} ${noun}`] : []),
    ...(cut.availableDates
      ? [
          `\`availableDates\` cut to its first ${datesAtEachEnd} and last ${datesAtEachEnd} of ${cut.availableDates} dates`,
        ]
      : []),
  ];
}

/** The parts of an API answer that trim shortens: a list's data, a time series and its dates. */
interface Trimmable {
  data?: unknown;
  timeSeries?: Record<string, unknown>;
  availableDates: string[];
}

function trim(answer: unknown): { body: unknown; cut: ExampleCut } {
  const cut: ExampleCut = {};
  if (!answer || typeof answer !== 'object') return { body: answer, cut };
  const body = answer as Trimmable;
  if (Array.isArray(body.data)) {
    if (body.data.length > EXAMPLE_CUT.entities) cut.data = body.data.length;
    return { body: { ...body, data: body.data.slice(0, EXAMPLE_CUT.entities) }, cut };
  }
  const series = body.timeSeries;
  if (series && typeof series === 'object') {
    const all = Object.keys(series);
    if (all.length > EXAMPLE_CUT.snapshots) cut.snapshots = all.length;
    const dates = all.slice(-EXAMPLE_CUT.snapshots);
    const ends = EXAMPLE_CUT.datesAtEachEnd;
    const cutDates = body.availableDates.length > 2 * ends;
    if (cutDates) cut.availableDates = body.availableDates.length;
    const snapshots = dates.map((d) => {
      const inner = trim(series[d]);
      if (inner.cut.data) cut.snapshotData = Math.max(cut.snapshotData ?? 0, inner.cut.data);
      return [d, inner.body] as const;
    });
    return {
      body: {
        ...body,
        availableDates: cutDates
          ? [...body.availableDates.slice(0, ends), ...body.availableDates.slice(-ends)]
          : body.availableDates,
        timeSeries: Object.fromEntries(snapshots),
      },
      cut,
    };
  }
  return { body, cut };
}

/** /lowest's answer as the quote check's examples read it: the best of each measure, and who makes it. */
type LowestData = Parameters<typeof quoteExampleRequests>[1];

/**
 * The requests each endpoint is shown with: a success (when there is data) and its typical errors.
 * `lowestData` is the dataset's /lowest data, asked before the quote check's (its example rate is near it).
 */
function requestsFor(
  endpoint: DataEndpoint,
  firstId: string | undefined,
  newestDate: string | undefined,
  lowestData: () => LowestData,
): string[] {
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
    case 'lowest': {
      const lowest = endpoint.path;
      return [
        term ? `${lowest}?${term}` : lowest,
        ...(firstId ? [`${lowest}?${param}=${firstId}`] : []),
        ...(term ? [`${lowest}?termInMonths=one`] : [`${lowest}?colour=blue`]),
        `${lowest}?${param}=${dataset.entity.prefix}:no-such-lender`,
      ];
    }
    case 'quote':
      return quoteExampleRequests(dataset, lowestData());
  }
}

/**
 * What `npm start` reads on a fresh clone, and so what the examples' health answers with: the
 * status folder (STATUS_DIR), in which no collection has been recorded, not required.
 */
export const unrecordedStatusStore = (): StatusStore =>
  new FileStatusStore(join(tmpdir(), `rates-no-status-${randomUUID()}`));

/** The key of an operation's `server_error` example: its own request, answered when the store cannot be read. */
export const serverErrorKey = (operationId: string) => `${operationId}:serverError`;

/**
 * The collection status a healthy production deployment reads: every dataset checked 17 minutes
 * ago, its last change the one the deployment serves (benches and tests; not the docs' examples).
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
    async readRuns() {
      return [];
    },
    async writeRuns() {},
  };
}

/** What each dataset's page listed: its institutions and rates. */
type Listed = Record<string, { institutions: number; rates: number }>;

/**
 * A run log as a collector leaves it over thirty days, its newest run 40 minutes before `now`:
 * the first dataset refused twice (a shrink), every dataset failed once (HTTP 503), new rates
 * once a day, the rest unchanged. For the status example: a fresh clone records no run.
 */
function exampleRunLog(listed: Listed, now: Date): CollectionRun[] {
  const [first] = DATASETS;
  return Array.from({ length: RUN_LOG_LENGTH }, (_, n): CollectionRun => {
    const at = new Date(now.getTime() - ((RUN_LOG_LENGTH - 1 - n) * 60 + 40) * 60_000).toISOString();
    const datasets = Object.fromEntries(
      DATASETS.map((d) => {
        const { institutions, rates } = listed[d.slug]!;
        if (n === 500)
          return [d.slug, { outcome: 'failed' as const, reason: 'HTTP 503 from https://www.interest.co.nz' }];
        if (d === first && (n === 200 || n === 201)) {
          const few = Math.floor(institutions / 4);
          return [
            d.slug,
            {
              outcome: 'refused' as const,
              reason: `refused (shrink): only ${few} institutions where the newest snapshot has ${institutions} (below 50 %)`,
              rule: 'shrink',
              institutions: few,
              rates: Math.floor(rates / 4),
            },
          ];
        }
        const changed = n % 24 === 9;
        return [
          d.slug,
          {
            outcome: changed ? ('ok' as const) : ('unchanged' as const),
            institutions,
            rates: rates - (n < 360 ? 1 : 0),
          },
        ];
      }),
    );
    const outcome = n === 500 ? 'failed' : n === 200 || n === 201 ? 'refused' : n % 24 === 9 ? 'ok' : 'unchanged';
    return { at, outcome, datasets };
  });
}

/** A status store holding only a run log. */
const runLogStore = (runs: CollectionRun[]): StatusStore => ({
  kind: 'vercel-blob',
  required: true,
  read: async () => null,
  write: async () => {},
  readRuns: async () => runs,
  writeRuns: async () => {},
});

/**
 * Every operation's examples, asked of `handle`; `status` is the status store `handle` was made
 * with, which the examples of a store that cannot be read use too.
 */
export async function collectExamples(
  handle: Handler,
  origin: string,
  status: StatusStore = unrecordedStatusStore(),
): Promise<ExampleSet> {
  const examples: ExampleSet = {};
  // The lowest rates are a few measures, never cut: `data` is no list of institutions there.
  const ask = async (request: string, whole = false): Promise<Example> => {
    const response = await handle(new Request(`${origin}${request}`));
    const answer = await response.json();
    const { body, cut } = whole ? { body: answer, cut: {} } : trim(answer);
    return { request, status: response.status, body, ...(Object.keys(cut).length ? { cut } : {}) };
  };
  const operations: string[] = [];
  const listed: Listed = {};
  for (const dataset of DATASETS) {
    const { list: listEndpoint, timeSeries } = endpointsOf(dataset);
    const whole = (await (await handle(new Request(`${origin}${listEndpoint.path}`))).json()) as { data?: Entity[] };
    listed[dataset.slug] = { institutions: whole.data?.length ?? 0, rates: rateValues(whole.data ?? []).length };
    const list = await ask(listEndpoint.path);
    const first = (list.body as { data?: Entity[] }).data?.[0]?.id;
    const series = await ask(timeSeries.path);
    const newestDate = (series.body as { availableDates?: string[] }).availableDates?.at(-1);
    const lowestData = () =>
      (examples[operationId(endpointsOf(dataset).lowest)]![0]!.body as { data?: LowestData }).data ?? [];
    for (const endpoint of Object.values(endpointsOf(dataset))) {
      operations.push(operationId(endpoint));
      // The lowest rates and a quote check are a few measures or one object, never cut.
      const untrimmed = endpoint.kind === 'lowest' || endpoint.kind === 'quote';
      examples[operationId(endpoint)] = await Promise.all(
        requestsFor(endpoint, first, newestDate, lowestData).map((request) => ask(request, untrimmed)),
      );
    }
    operations.push(alertsOperationId(dataset));
    const lowest = examples[operationId(endpointsOf(dataset).lowest)]![0]!.body as {
      data?: { measure: string; rate: number }[];
    };
    examples[alertsOperationId(dataset)] = await Promise.all(
      alertsExampleRequests(dataset, lowest.data ?? []).map((request) => ask(request, true)),
    );
    operations.push(changesOperationId(dataset));
    examples[changesOperationId(dataset)] = await Promise.all(
      changesExampleRequests(dataset, first, newestDate).map((request) => ask(request)),
    );
    // A dataset whose measures are fixed terms answers its break-even rates: each pair of terms, cut like a list.
    if (breakEvenEndpointOf(dataset)) {
      operations.push(breakEvenOperationId(dataset));
      examples[breakEvenOperationId(dataset)] = await Promise.all(
        breakEvenExampleRequests(dataset).map((request) => ask(request)),
      );
    }
  }
  operations.push('listInstitutions');
  examples.listInstitutions = [await ask(INSTITUTIONS_PATH), await ask(`${INSTITUTIONS_PATH}?colour=blue`)];
  examples.getHealth = [await ask(HEALTH_PATH), await ask(`${HEALTH_PATH}?verbose=1`)];
  // The status figures of a collector's thirty days, then of this store (no run recorded on a fresh clone).
  const collected = createApi({
    loadStore: () => Promise.reject(new Error('not read by the status figures')),
    status: runLogStore(exampleRunLog(listed, new Date())),
    log: () => {},
    siteUrl: origin,
  });
  examples.getStatus = [
    await (async () => {
      const response = await collected(new Request(`${origin}${STATUS_PATH}`));
      return { request: STATUS_PATH, status: response.status, body: await response.json() };
    })(),
    await ask(STATUS_PATH),
    await ask(`${STATUS_PATH}?verbose=1`),
  ];
  // The 500 of each operation when its store cannot be read, from the same code path: its first request.
  const broken = createApi({
    loadStore: () => Promise.reject(new Error('store unreadable')),
    status,
    log: () => {},
    siteUrl: origin,
  });
  const failed = async (request: string): Promise<Example> => {
    const response = await broken(new Request(`${origin}${request}`));
    return { request, status: response.status, body: await response.json() };
  };
  for (const id of operations) {
    const request = examples[id]?.[0]?.request;
    if (!request) continue;
    const failure = await failed(request);
    if (failure.status !== 500)
      throw new Error(`examples: ${request} with an unreadable store answered ${failure.status}`);
    examples[serverErrorKey(id)] = [failure];
  }
  examples.getHealth.push(await failed(HEALTH_PATH));
  return examples;
}
