/**
 * `GET /api/v1/<dataset>/lowest?termInMonths=&institutionId=` (credit cards: `issuerId`): the
 * lowest open rates of the newest snapshot as the explorer shows them (src/explorer/lowest.ts),
 * after the list's filters and, given a lender, of that lender alone. Worked out once per URL and
 * kept, like the list and detail answers.
 */
import { canonicalEntityId, filterEntities, filterKey } from '../datasets.ts';
import type { DataEndpoint } from '../endpoints.ts';
import { lowestOffers, lowestTypeOf } from '../explorer/lowest.ts';
import { snapshotsOf } from '../explorer/history.ts';
import { cachedHead, envelopeHead, readyAnswer } from './bodies.ts';
import { withData, type RequestContext } from './context.ts';
import { ApiError } from './responses.ts';
import type { DatasetHistory } from '../store/dataset-history.ts';

/**
 * The lender a query names (`institutionId`, `issuerId`), as its index in the newest snapshot's
 * entities, or undefined when it names none; a 404 when it names one that snapshot does not list.
 * /lowest and the quote check (src/api/quote.ts) read it.
 */
export function namedEntity(
  endpoint: DataEndpoint,
  query: Record<string, string | undefined>,
  history: DatasetHistory,
): number | undefined {
  const { dataset } = endpoint;
  const rawId = query[dataset.entity.param];
  const id = rawId === undefined ? undefined : canonicalEntityId(rawId, dataset.entity);
  const entity = id === undefined ? undefined : history.entityIn(history.latest, id);
  if (id !== undefined && entity === undefined) {
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found`,
      `No ${dataset.entity.kind} with that id is in the newest snapshot. ${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug> ` +
        `and are matched case-insensitively; GET ${endpoint.path.replace(/\/[^/]+$/, '')} lists every ${dataset.entity.kind} with its id.`,
    );
  }
  return entity;
}

export function getLowest(endpoint: DataEndpoint, query: Record<string, string | undefined>, ctx: RequestContext) {
  const { dataset } = endpoint;
  const history = withData(dataset, ctx.store.newest(dataset.slug));
  const latest = history.latest;
  const entity = namedEntity(endpoint, query, history);
  const key = `lowest/${entity ?? ''}?${filterKey(dataset, query)}`;
  const ready = cachedHead(history, key, () => {
    const snapshot = snapshotsOf(dataset, history.compiled).at(-1)!;
    const listed = history.compiled.snapshots[latest]!;
    const data = entity === undefined ? snapshot.data : snapshot.data.filter((_, i) => listed[i] === entity);
    const offers = lowestOffers(dataset, filterEntities(dataset, data, query));
    return envelopeHead(lowestTypeOf(dataset), JSON.stringify(offers), history.lastUpdated(latest));
  });
  return readyAnswer(ready, ctx.now);
}
