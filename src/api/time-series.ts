/** The time-series endpoint and the date rules of spec §4.5, word for word. */
import { canonicalEntityId, type Snapshot } from '../datasets.ts';
import type { DataEndpoint } from '../endpoints.ts';
import { TERMS_OF_USE } from '../schemas/common.ts';
import { applyFilters, historyWithData, type RequestContext } from './context.ts';
import { INVALID_REQUEST } from './query.ts';
import { ApiError, json } from './responses.ts';

export const NO_DATES_MESSAGE =
  'No date given. Request one snapshot with date=YYYY-MM-DD, or a range with startDate=YYYY-MM-DD and endDate=YYYY-MM-DD (inclusive). availableDates lists every date that has a snapshot.';

type DateSelection = { kind: 'none' } | { kind: 'one'; date: string } | { kind: 'range'; start: string; end: string };

function selectDates({ date, startDate, endDate }: Record<string, string | undefined>): DateSelection {
  if (date !== undefined && (startDate !== undefined || endDate !== undefined)) {
    throw new ApiError('invalid_request', INVALID_REQUEST, 'Use either date, or startDate with endDate, not both.');
  }
  if (date !== undefined) return { kind: 'one', date };
  if (startDate !== undefined && endDate === undefined) {
    throw new ApiError('invalid_request', INVALID_REQUEST, 'startDate needs endDate: give both for a range, or use date for one day.');
  }
  if (endDate !== undefined && startDate === undefined) {
    throw new ApiError('invalid_request', INVALID_REQUEST, 'endDate needs startDate: give both for a range, or use date for one day.');
  }
  if (startDate !== undefined && endDate !== undefined) {
    if (startDate > endDate) {
      throw new ApiError('invalid_request', 'Start date cannot be after end date', 'Swap startDate and endDate, or make endDate on or after startDate.');
    }
    return { kind: 'range', start: startDate, end: endDate };
  }
  return { kind: 'none' };
}

export function getTimeSeries(endpoint: DataEndpoint, query: Record<string, string | undefined>, ctx: RequestContext) {
  const { dataset } = endpoint;
  const selection = selectDates(query);
  const history = historyWithData(dataset, ctx.store);
  const base = { type: dataset.timeSeriesType, timeSeries: {} as Record<string, Snapshot>, availableDates: history.dates };
  const tail = { termsOfUse: TERMS_OF_USE, timestamp: ctx.now.toISOString() };

  if (selection.kind === 'none') return json({ ...base, ...tail, message: NO_DATES_MESSAGE });

  const datesHint = `Request ${endpoint.path} without date parameters to see availableDates.`;
  const picked =
    selection.kind === 'one'
      ? [[selection.date, history.at(selection.date)] as const].filter((e): e is [string, Snapshot] => e[1] !== undefined)
      : history.between(selection.start, selection.end);
  const where = selection.kind === 'one' ? `date: ${selection.date}` : `date range: ${selection.start} to ${selection.end}`;
  if (picked.length === 0) {
    const message =
      selection.kind === 'one'
        ? `No data available for date: ${selection.date}`
        : `No data available between ${selection.start} and ${selection.end}`;
    throw new ApiError('no_data', message, `A snapshot exists only for dates when rates changed. ${datesHint}`);
  }

  const rawId = query[dataset.entity.param];
  const id = rawId === undefined ? undefined : canonicalEntityId(rawId, dataset.entity);
  let found = id === undefined;
  for (const [date, snapshot] of picked) {
    let data = snapshot.data;
    if (id !== undefined) {
      const entity = history.find(snapshot, id);
      data = entity ? [entity] : [];
      found ||= entity !== undefined;
    }
    base.timeSeries[date] = { type: snapshot.type, data: applyFilters(dataset, data, query), lastUpdated: snapshot.lastUpdated };
  }
  if (!found) {
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found for ${where}`,
      `No ${dataset.entity.kind} with that id has a snapshot on ${selection.kind === 'one' ? 'that date' : 'any date of that range'}. ` +
        `${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug>; GET /api/v1/${dataset.slug} lists them.`,
    );
  }
  return json({ ...base, ...tail });
}
