/** List and detail endpoints: the newest snapshot, whole or one institution/issuer, filtered. */
import { canonicalEntityId, filterKey } from '../datasets.ts';
import type { DataEndpoint } from '../endpoints.ts';
import { cachedHead, envelopeHead, readyAnswer } from './bodies.ts';
import { withData, type RequestContext } from './context.ts';
import { ApiError } from './responses.ts';

export function listRates(endpoint: DataEndpoint, query: Record<string, string | undefined>, ctx: RequestContext) {
  const { dataset } = endpoint;
  const history = withData(dataset, ctx.store.newest(dataset.slug));
  const latest = history.latest;
  const key = `list?${filterKey(dataset, query)}`;
  const ready = cachedHead(history, key, () =>
    envelopeHead(dataset.type, history.dataJson(latest, query), history.lastUpdated(latest)),
  );
  return readyAnswer(ready, ctx.now);
}

export function getRatesByEntity(
  endpoint: DataEndpoint,
  rawId: string,
  query: Record<string, string | undefined>,
  ctx: RequestContext,
) {
  const { dataset } = endpoint;
  const history = withData(dataset, ctx.store.newest(dataset.slug));
  const latest = history.latest;
  const entity = history.entityIn(latest, canonicalEntityId(rawId, dataset.entity));
  if (entity === undefined) {
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found`,
      `${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug> and are matched case-insensitively; ` +
        `GET ${endpoint.path.replace(/\/\{.*\}$/, '')} lists every ${dataset.entity.kind} with its id.`,
    );
  }
  const key = `detail/${entity}?${filterKey(dataset, query)}`;
  const ready = cachedHead(history, key, () =>
    envelopeHead(dataset.type, history.dataJson(latest, query, [entity]), history.lastUpdated(latest)),
  );
  return readyAnswer(ready, ctx.now);
}
