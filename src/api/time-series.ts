/**
 * The time-series endpoint and its date rules: `date` alone, or `startDate` with `endDate`, or
 * neither (the available dates). The docs show the same rules as a table (timeSeriesRules in
 * src/docs/reference.ts; /docs/concepts#snapshots-and-time-series), messages word for word.
 */
import { canonicalEntityId, filterKey } from '../datasets.ts';
import { endpointsOf, type DataEndpoint } from '../endpoints.ts';
import { TERMS_OF_USE } from '../schemas/common.ts';
import { cachedHeadAfterRead, etagFor, readyAnswer, streamedAnswer, TERMS } from './bodies.ts';
import { withData, type RequestContext } from './context.ts';
import { INVALID_REQUEST } from './query.ts';
import { ApiError, json } from './responses.ts';

/**
 * The most snapshots one answer holds (/docs/limits): ten times the mortgage history of 2025, and
 * a bound on how long an answer streams however long the history grows. Past it: a 400 whose hint
 * says how to ask in parts.
 */
export const MAX_TIME_SERIES_SNAPSHOTS = 1000;

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
  if (picked.length > MAX_TIME_SERIES_SNAPSHOTS) {
    const last = picked[MAX_TIME_SERIES_SNAPSHOTS - 1]!;
    throw new ApiError(
      'invalid_request',
      `Too many snapshots in one answer: ${picked.length} (at most ${MAX_TIME_SERIES_SNAPSHOTS})`,
      `Ask for the range in parts of at most ${MAX_TIME_SERIES_SNAPSHOTS} snapshots: the first part is ` +
        `startDate=${history.dates[picked[0]!]}&endDate=${history.dates[last]}. availableDates (the same path without ` +
        'date parameters) lists every date; the CSV downloads hold the history a year per file.',
    );
  }

  // With an id, each snapshot holds that entity alone (or nothing on dates it was not listed).
  const rawId = query[dataset.entity.param];
  const id = rawId === undefined ? undefined : canonicalEntityId(rawId, dataset.entity);
  if (id !== undefined && !picked.some((s) => history.lists(s, id))) {
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
  /** `"<date>":{…}`: one snapshot's entry, read from the year that holds it. */
  const entry = async (s: number) => {
    const { part, local } = await history.locate(s);
    const only = id === undefined ? undefined : [part.entityIn(local, id)].filter((e) => e !== undefined);
    const data = part.dataJson(local, query, only);
    return `${JSON.stringify(history.dates[s])}:{"type":${JSON.stringify(dataset.type)},"data":${data},"lastUpdated":${JSON.stringify(history.lastUpdated(s))}}`;
  };
  const open = `{"type":${JSON.stringify(dataset.timeSeriesType)},"timeSeries":{`;
  const close = `},"availableDates":${history.availableDatesJson},"termsOfUse":${TERMS},"timestamp":"`;
  // One snapshot is a list-sized body: its head is kept per URL like the list's.
  if (picked.length === 1) {
    const ready = await cachedHeadAfterRead(history, key, async () => `${open}${await entry(picked[0]!)}${close}`);
    return readyAnswer(ready, ctx.now);
  }
  // A range is streamed, a snapshot at a time, each year read when the range reaches it: the first
  // byte waits for one year's file, and memory holds at most PARTS_KEPT years, however long the range.
  // Unfiltered, a snapshot's entry is the same for every request: it is kept as bytes with its year,
  // so every range sends the same kept bytes and a client that stops reading holds no copy of its own.
  const unfiltered = id === undefined && !filters;
  async function* pieces(): AsyncGenerator<string | Uint8Array> {
    yield open;
    for (const [n, s] of picked.entries()) {
      if (!unfiltered) {
        yield `${n ? ',' : ''}${await entry(s)}`;
        continue;
      }
      const { part, local } = await history.locate(s);
      const kept = keptEntries(part);
      let bytes = kept.get(local);
      if (!bytes) kept.set(local, (bytes = encoder.encode(`,${await entry(s)}`)));
      yield n ? bytes : bytes.subarray(1);
    }
    yield close;
    yield `${timestamp}"}`;
  }
  return streamedAnswer(pieces(), etagFor(history, key));
}

const encoder = new TextEncoder();
/** Each year's unfiltered time-series entries, `,"<date>":{…}` in bytes, by snapshot: freed with the year. */
const entriesOf = new WeakMap<object, Map<number, Uint8Array>>();
function keptEntries(part: object): Map<number, Uint8Array> {
  let kept = entriesOf.get(part);
  if (!kept) entriesOf.set(part, (kept = new Map()));
  return kept;
}
