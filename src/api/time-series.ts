/**
 * The time-series endpoint and its date rules: `date` alone, or `startDate` with `endDate`, or
 * neither (the available dates). The docs show the same rules as a table (timeSeriesRules in
 * src/docs/reference.ts; /docs/concepts#snapshots-and-time-series), messages word for word.
 */
import { canonicalEntityId, filterKey } from '../datasets.ts';
import { endpointsOf, type DataEndpoint } from '../endpoints.ts';
import { TERMS_OF_USE } from '../schemas/common.ts';
import { cachedHead, etagFor, readyResponse, streamedResponse, TERMS } from './bodies.ts';
import { withData, type RequestContext } from './context.ts';
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
    throw new ApiError(
      'invalid_request',
      INVALID_REQUEST,
      'startDate needs endDate: give both for a range, or use date for one day.',
    );
  }
  if (endDate !== undefined && startDate === undefined) {
    throw new ApiError(
      'invalid_request',
      INVALID_REQUEST,
      'endDate needs startDate: give both for a range, or use date for one day.',
    );
  }
  if (startDate !== undefined && endDate !== undefined) {
    if (startDate > endDate) {
      throw new ApiError(
        'invalid_request',
        'Start date cannot be after end date',
        'Swap startDate and endDate, or make endDate on or after startDate.',
      );
    }
    return { kind: 'range', start: startDate, end: endDate };
  }
  return { kind: 'none' };
}

export async function getTimeSeries(
  endpoint: DataEndpoint,
  query: Record<string, string | undefined>,
  ctx: RequestContext,
) {
  const { dataset } = endpoint;
  const selection = selectDates(query);
  const history = withData(dataset, await ctx.store.history(dataset.slug));
  const timestamp = ctx.now.toISOString();

  if (selection.kind === 'none') {
    return json({
      type: dataset.timeSeriesType,
      timeSeries: {},
      availableDates: history.dates,
      termsOfUse: TERMS_OF_USE,
      timestamp,
      message: NO_DATES_MESSAGE,
    });
  }

  const picked =
    selection.kind === 'one'
      ? [history.indexOf(selection.date)].filter((i): i is number => i !== undefined)
      : history.between(selection.start, selection.end);
  if (picked.length === 0) {
    const message =
      selection.kind === 'one'
        ? `No data available for date: ${selection.date}`
        : `No data available between ${selection.start} and ${selection.end}`;
    throw new ApiError(
      'no_data',
      message,
      `A snapshot exists only for dates when rates changed. Request ${endpoint.path} without date parameters to see availableDates.`,
    );
  }

  // With an id, each snapshot holds that entity alone (or nothing on dates it was not listed).
  const rawId = query[dataset.entity.param];
  const id = rawId === undefined ? undefined : canonicalEntityId(rawId, dataset.entity);
  const only = id === undefined ? undefined : picked.map((s) => history.entityIn(s, id));
  if (only?.every((e) => e === undefined)) {
    const where =
      selection.kind === 'one' ? `date: ${selection.date}` : `date range: ${selection.start} to ${selection.end}`;
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found for ${where}`,
      `No ${dataset.entity.kind} with that id has a snapshot on ${selection.kind === 'one' ? 'that date' : 'any date of that range'}. ` +
        `${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug>; GET ${endpointsOf(dataset).list.path} lists them.`,
    );
  }

  const filters = filterKey(dataset, query);
  const key = `ts/${selection.kind === 'one' ? selection.date : `${selection.start}..${selection.end}`}/${id ?? ''}?${filters}`;
  const entry = (s: number, data: string) =>
    `${JSON.stringify(history.dates[s])}:{"type":${JSON.stringify(dataset.type)},"data":${data},"lastUpdated":${JSON.stringify(history.lastUpdated(s))}}`;
  const open = `{"type":${JSON.stringify(dataset.timeSeriesType)},"timeSeries":{`;
  const close = `},"availableDates":${history.availableDatesJson},"termsOfUse":${TERMS},"timestamp":"`;
  // One snapshot is a list-sized body: kept per URL like the list's, and a ready answer (ready.ts).
  if (picked.length === 1) {
    const head = () => {
      const entity = only?.[0];
      const data = history.dataJson(picked[0]!, query, only ? (entity === undefined ? [] : [entity]) : undefined);
      return `${open}${entry(picked[0]!, data)}${close}`;
    };
    return readyResponse(cachedHead(history, key, head), ctx.now);
  }
  // A range is streamed, a snapshot at a time. Unfiltered, each snapshot's entry is the same
  // for every request, so it is kept as bytes: a range sends kept bytes, and a client that
  // reads slowly leaves no megabytes of per-request copies behind it.
  const kept = !only && !filters ? keptEntries(history) : undefined;
  function* pieces(): Generator<string | Uint8Array> {
    yield open;
    for (const [n, s] of picked.entries()) {
      if (kept) {
        let bytes = kept.get(s);
        if (!bytes) kept.set(s, (bytes = encoder.encode(`,${entry(s, history.dataJson(s))}`)));
        yield n ? bytes : bytes.subarray(1);
        continue;
      }
      const entity = only?.[n];
      const data = history.dataJson(s, query, only ? (entity === undefined ? [] : [entity]) : undefined);
      yield `${n ? ',' : ''}${entry(s, data)}`;
    }
    yield close;
    yield `${timestamp}"}`;
  }
  return streamedResponse(pieces(), etagFor(history, key));
}

const encoder = new TextEncoder();
/** Each history's unfiltered time-series entries, `,"<date>":{…}` in bytes: at most one per snapshot, freed with the history. */
const entriesOf = new WeakMap<object, Map<number, Uint8Array>>();
function keptEntries(history: object): Map<number, Uint8Array> {
  let kept = entriesOf.get(history);
  if (!kept) entriesOf.set(history, (kept = new Map()));
  return kept;
}
