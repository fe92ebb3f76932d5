/**
 * `GET /api/v1/<dataset>/break-even` (datasets with fixed terms; optional `institutionId`): for each
 * pair of fixed terms, the rate the shorter must be refixed at for the rest of the longer to come
 * out the same (src/explorer/break-even.ts). Without a lender, from the best open rates of each
 * term as /lowest answers them; with one, within each of its products that offers both terms.
 * Worked out once per URL and kept, with the ETag of every data answer.
 */
import { z } from 'zod';
import { canonicalEntityId, type Dataset } from '../datasets.ts';
import { datasetOperationId, endpointsOf, entityIdParam } from '../endpoints.ts';
import { BREAK_EVEN_DATASETS, breakEvenTypeOf, lowestBreakEvens, productBreakEvens } from '../explorer/break-even.ts';
import { snapshotsOf } from '../explorer/history.ts';
import { API_PREFIX, BREAK_EVEN_SEGMENT } from '../paths.ts';
import { cachedHead, envelopeHead, readyAnswer } from './bodies.ts';
import { type RequestContext, withData } from './context.ts';
import { ApiError } from './responses.ts';

export interface BreakEvenEndpoint {
  kind: 'breakEven';
  dataset: Dataset;
  path: string;
  query: z.ZodObject;
  ignoredQuery: readonly string[];
}

const ENDPOINTS = new Map<string, BreakEvenEndpoint>();

/** The dataset's break-even endpoint, or undefined for a dataset whose measures are no fixed terms. */
export function breakEvenEndpointOf(dataset: Dataset): BreakEvenEndpoint | undefined {
  if (!BREAK_EVEN_DATASETS.includes(dataset)) return undefined;
  let endpoint = ENDPOINTS.get(dataset.slug);
  if (!endpoint) {
    const { kind, param } = dataset.entity;
    endpoint = {
      kind: 'breakEven',
      dataset,
      path: `${API_PREFIX}/${dataset.slug}/${BREAK_EVEN_SEGMENT}`,
      query: z.strictObject({
        [param]: entityIdParam(dataset)
          .describe(
            `${entityIdParam(dataset).description} Given, the pairs are worked out within each of that ${kind}'s products ` +
              `that offers both terms, rather than from the best open rates of any ${kind}.`,
          )
          .optional(),
      }),
      ignoredQuery: [],
    };
    ENDPOINTS.set(dataset.slug, endpoint);
  }
  return endpoint;
}

/** The OpenAPI operationId (`getFooRatesBreakEven`). */
export const breakEvenOperationId = (dataset: Dataset) => datasetOperationId(dataset, 'BreakEven');

/** The requests the docs and the OpenAPI document show it with (answered by the real core at build time). */
export function breakEvenExampleRequests(dataset: Dataset): string[] {
  const { path } = breakEvenEndpointOf(dataset)!;
  const { param, prefix } = dataset.entity;
  return [
    path,
    `${path}?${param}=${dataset.exampleEntityId}`,
    // It pairs every term: a filter of the list, such as termInMonths, is no parameter of it.
    `${path}?termInMonths=12`,
    // An id must not be empty.
    `${path}?${param}=`,
    `${path}?${param}=${prefix}:no-such-lender`,
  ];
}

export function getBreakEven(
  endpoint: BreakEvenEndpoint,
  query: Record<string, string | undefined>,
  ctx: RequestContext,
) {
  const { dataset } = endpoint;
  const history = withData(dataset, ctx.store.newest(dataset.slug));
  const latest = history.latest;
  const raw = query[dataset.entity.param];
  const id = raw === undefined ? undefined : canonicalEntityId(raw, dataset.entity);
  const entity = id === undefined ? undefined : history.entityIn(latest, id);
  if (id !== undefined && entity === undefined) {
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found`,
      `No ${dataset.entity.kind} with that id is in the newest snapshot. ${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug> ` +
        `and are matched case-insensitively; GET ${endpointsOf(dataset).list.path} lists every ${dataset.entity.kind} with its id.`,
    );
  }
  const ready = cachedHead(history, `break-even/${entity ?? ''}`, () => {
    const snapshot = snapshotsOf(dataset, history.compiled).at(-1)!;
    const listed = history.compiled.snapshots[latest]!;
    const one = entity === undefined ? undefined : snapshot.data.find((_, i) => listed[i] === entity);
    const entries = one === undefined ? lowestBreakEvens(dataset, snapshot.data) : productBreakEvens(dataset, one);
    return envelopeHead(breakEvenTypeOf(dataset), JSON.stringify(entries), history.lastUpdated(latest));
  });
  return readyAnswer(ready, ctx.now);
}
