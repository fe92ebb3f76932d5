/**
 * `GET /api/v1/<dataset>/changes?since=&until=&institutionId=&direction=&minBps=` (credit cards:
 * `issuerId`): per snapshot date, the values that changed, were added or were removed, each with
 * its direction and, for a rate, its move in basis points. Served from the change log the build
 * worked out (src/changes/log.ts); the answer for a URL is joined once and kept, like the list and
 * detail answers.
 */
import { canonicalEntityId } from '../datasets.ts';
import { DEFAULT_DAYS, type ChangesEndpoint } from '../changes/endpoint.ts';
import { type ChangeFilter, filteredDayJson } from '../changes/log.ts';
import type { ChangeDirection } from '../schemas/params.ts';
import { endpointsOf } from '../endpoints.ts';
import { cachedHead, readyAnswer, TERMS } from './bodies.ts';
import { withData, type RequestContext } from './context.ts';
import { ApiError } from './responses.ts';

/** The earliest date written YYYY-MM-DD: every date the API writes is one (a year before 0000 is not). */
const EARLIEST_DATE = '0000-01-01';

/** The date `days` days before a YYYY-MM-DD date, or the earliest date there is. */
function daysBefore(date: string, days: number): string {
  const before = Date.parse(`${date}T00:00:00Z`) - days * 86_400_000;
  return before < Date.parse(`${EARLIEST_DATE}T00:00:00Z`)
    ? EARLIEST_DATE
    : new Date(before).toISOString().slice(0, 10);
}

export async function getChanges(
  endpoint: ChangesEndpoint,
  query: Record<string, string | undefined>,
  ctx: RequestContext,
) {
  const { dataset } = endpoint;
  if (query.since !== undefined && query.until !== undefined && query.since > query.until) {
    throw new ApiError(
      'invalid_request',
      'Start date cannot be after end date',
      'Make until on or after since, or leave until out for every date up to the newest snapshot.',
    );
  }
  const history = withData(dataset, await ctx.store.history(dataset.slug));
  const log = await history.changes();
  const until = query.until ?? history.dates[history.latest]!;
  const since = query.since ?? daysBefore(until, DEFAULT_DAYS);

  const rawId = query[dataset.entity.param];
  const id = rawId === undefined ? undefined : canonicalEntityId(rawId, dataset.entity);
  if (id !== undefined && !log.known.has(id)) {
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found`,
      `No ${dataset.entity.kind} with that id was ever listed. ${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug>; ` +
        `GET ${endpointsOf(dataset).list.path} lists every ${dataset.entity.kind} with its id.`,
    );
  }

  // Formats are checked already (src/schemas/params.ts): the directions are known words, minBps digits.
  const directions =
    query.direction === undefined ? undefined : new Set(query.direction.split(',') as ChangeDirection[]);
  const filter: ChangeFilter | undefined =
    directions === undefined && query.minBps === undefined
      ? undefined
      : { directions, minBps: query.minBps === undefined ? undefined : Number(query.minBps) };
  // The same changes, the same key: directions in one order, minBps as a number.
  const filterKey = filter ? `/${[...(directions ?? [])].sort().join(',')}/${filter.minBps ?? ''}` : '';

  const key = `changes/${since}..${until}/${id ?? ''}${filterKey}`;
  const ready = cachedHead(history, key, () => {
    const entries: string[] = [];
    const mine = id === undefined ? undefined : log.byEntity.get(id);
    log.days.forEach((day, d) => {
      if (day.date < since || day.date > until) return;
      if (filter) {
        // Only a day that changed something of the entity asked for is narrowed and filtered.
        const json = id === undefined || mine?.has(d) ? filteredDayJson(dataset, day, filter, id) : undefined;
        if (json !== undefined) entries.push(json);
        return;
      }
      const json = mine ? mine.get(d) : id === undefined ? log.json[d] : undefined;
      if (json !== undefined) entries.push(json);
    });
    return (
      `{"type":${JSON.stringify(`${dataset.type}Changes`)},"since":"${since}","until":"${until}","changes":[${entries.join(',')}],` +
      `"lastUpdated":${JSON.stringify(history.lastUpdated(history.latest))},"termsOfUse":${TERMS},"timestamp":"`
    );
  });
  return readyAnswer(ready, ctx.now);
}
