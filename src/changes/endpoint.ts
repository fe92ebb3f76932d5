/**
 * `GET /api/v1/<dataset>/changes`: the change log endpoint of each dataset, declared from the
 * dataset table beside the four endpoints of src/endpoints.ts; each has its MCP twin, like them
 * (src/mcp/rest-tools.ts).
 *
 * `changes` (like `time-series` and `lowest`) is a path segment the router reserves before the
 * detail route: ids are `institution:<slug>`, so an id never reads `changes`, but a bare slug
 * would; the build refuses any entity whose slug is a reserved segment (reservedSlugProblems).
 */
import { z } from 'zod';
import { datasetOperationId, entityIdParam } from '../endpoints.ts';
import {
  ALERTS_SEGMENT,
  API_PREFIX,
  BREAK_EVEN_SEGMENT,
  CHANGES_SEGMENT,
  LOWEST_SEGMENT,
  QUOTE_SEGMENT,
  TIME_SERIES_SEGMENT,
} from '../paths.ts';
import { DATASETS, type Dataset } from '../datasets.ts';
import { CHANGE_DIRECTIONS, DateParam, DirectionParam, MinBpsParam } from '../schemas/params.ts';
import type { CompiledStore } from '../store/compile.ts';

/** Path segments after a dataset that are not an institution or issuer, with what each names. */
const RESERVED_SEGMENTS: Readonly<Record<string, string>> = {
  [TIME_SERIES_SEGMENT]: 'the time series',
  [CHANGES_SEGMENT]: 'the change log',
  [LOWEST_SEGMENT]: 'the best open rates',
  [ALERTS_SEGMENT]: 'the threshold alerts feed',
  // Reserved for every dataset, though only those with fixed terms answer it: one list, whatever the data.
  [BREAK_EVEN_SEGMENT]: 'the break-even rates of fixed terms',
  [QUOTE_SEGMENT]: 'the quote check',
};
/** Those segments: the slugs no institution or issuer may take (the collection and changes docs list them). */
export const RESERVED_SLUGS: readonly string[] = Object.keys(RESERVED_SEGMENTS);
/** How far back the change log goes when `since` is not given. */
export const DEFAULT_DAYS = 30;

export interface ChangesEndpoint {
  kind: 'changes';
  dataset: Dataset;
  path: string;
  query: z.ZodObject;
  ignoredQuery: readonly string[];
}

const ENDPOINTS = new Map<string, ChangesEndpoint>();

export function changesEndpointOf(dataset: Dataset): ChangesEndpoint {
  let endpoint = ENDPOINTS.get(dataset.slug);
  if (!endpoint) {
    endpoint = {
      kind: 'changes',
      dataset,
      path: `${API_PREFIX}/${dataset.slug}/${CHANGES_SEGMENT}`,
      query: z.strictObject({
        since: DateParam.describe(
          `First date to include, YYYY-MM-DD (UTC), inclusive. Default: ${DEFAULT_DAYS} days before until. ` +
            'A date after the newest snapshot gives an empty list.',
        ).optional(),
        until: DateParam.describe(
          'Last date to include, YYYY-MM-DD, inclusive; not before since. Default: the newest snapshot’s date.',
        ).optional(),
        [dataset.entity.param]: entityIdParam(dataset).optional(),
        direction: DirectionParam.describe(
          `Keep the changes going one way: ${CHANGE_DIRECTIONS.join(', ')}, or several separated by commas (down,new). ` +
            'up and down are numbers that moved; new a value listed now and not before (or null before); gone one listed before and not now (or null now).',
        ).optional(),
        minBps: MinBpsParam.describe(
          'Keep the rate moves of at least this many basis points either way, a whole number (25 is 0.25 percentage points; 0 keeps every rate move). ' +
            'Only a rate has basis points: with minBps, new and gone values and moves of a fee, of days or of text are left out.',
        ).optional(),
      }),
      ignoredQuery: [],
    };
    ENDPOINTS.set(dataset.slug, endpoint);
  }
  return endpoint;
}

/** The change log's OpenAPI operationId (`getFooRatesChanges`). */
export const changesOperationId = (dataset: Dataset) => datasetOperationId(dataset, 'Changes');

/** The requests the docs and the OpenAPI document show the endpoint with (answered by the real core at build time). */
export function changesExampleRequests(
  dataset: Dataset,
  firstId: string | undefined,
  newestDate: string | undefined,
): string[] {
  const base = changesEndpointOf(dataset).path;
  const { param, prefix } = dataset.entity;
  return [
    ...(newestDate ? [`${base}?since=${newestDate}`] : []),
    ...(newestDate && firstId ? [`${base}?since=${newestDate}&${param}=${firstId}`] : []),
    // The newest date's rate moves of at least 10 basis points either way.
    ...(newestDate ? [`${base}?since=${newestDate}&direction=up,down&minBps=10`] : []),
    `${base}?since=last-week`,
    `${base}?direction=sideways`,
    `${base}?minBps=-5`,
    `${base}?since=2025-03-05&until=2025-03-01`,
    // An issuer dataset takes issuerId, not institutionId; no dataset's change log takes a filter such as termInMonths.
    dataset.entity.param === 'issuerId'
      ? `${base}?institutionId=${dataset.exampleEntityId}`
      : `${base}?termInMonths=12`,
    `${base}?${param}=${prefix}:no-such-lender`,
  ];
}

/** The reserved path segment an entity id's slug would take over, if any (the collector refuses it too). */
export function reservedSlugOf(id: string): string | undefined {
  const slug = id.slice(id.indexOf(':') + 1).toLowerCase();
  return Object.hasOwn(RESERVED_SEGMENTS, slug) ? slug : undefined;
}

/**
 * Entities whose slug is a reserved path segment: `/api/v1/<dataset>/<slug>` would answer the
 * change log, the time series or the lowest rates instead of that entity. The build fails on any, naming the first
 * snapshot file that lists it.
 */
export function reservedSlugProblems(store: CompiledStore): { file: string; problem: string }[] {
  const found: { file: string; problem: string }[] = [];
  for (const dataset of DATASETS) {
    const compiled = store.datasets[dataset.slug];
    if (!compiled) continue;
    const seen = new Set<string>();
    compiled.snapshots.forEach((entities, s) => {
      for (const e of entities) {
        const id = compiled.entities[e]![0];
        const slug = reservedSlugOf(id);
        if (!slug || seen.has(id)) continue;
        seen.add(id);
        found.push({
          file: `${dataset.slug}/${compiled.dates[s]}.json`,
          problem: `${dataset.entity.kind} ${id}: the slug "${slug}" is reserved (${API_PREFIX}/${dataset.slug}/${slug} is ${RESERVED_SEGMENTS[slug]})`,
        });
      }
    });
  }
  return found;
}
