/** List and detail endpoints: the newest snapshot, whole or one institution/issuer, filtered. */
import { canonicalEntityId } from '../datasets.ts';
import type { DataEndpoint } from '../endpoints.ts';
import { applyFilters, envelope, historyWithData, type RequestContext } from './context.ts';
import { ApiError, json } from './responses.ts';

export function listRates(endpoint: DataEndpoint, query: Record<string, string | undefined>, ctx: RequestContext) {
  const { dataset } = endpoint;
  const latest = historyWithData(dataset, ctx.store).latest()!;
  return json(envelope(latest, applyFilters(dataset, latest.data, query), ctx.now));
}

export function getRatesByEntity(
  endpoint: DataEndpoint,
  rawId: string,
  query: Record<string, string | undefined>,
  ctx: RequestContext,
) {
  const { dataset } = endpoint;
  const history = historyWithData(dataset, ctx.store);
  const latest = history.latest()!;
  const entity = history.find(latest, canonicalEntityId(rawId, dataset.entity));
  if (!entity) {
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found`,
      `${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug> and are matched case-insensitively; ` +
        `GET ${endpoint.path.replace(/\/\{.*\}$/, '')} lists every ${dataset.entity.kind} with its id.`,
    );
  }
  return json(envelope(latest, applyFilters(dataset, [entity], query), ctx.now));
}
