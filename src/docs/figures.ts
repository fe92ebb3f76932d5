/**
 * The sizes the docs state (content/docs/ai.md "Sizes", content/docs/limits.md), measured at build
 * time from the real answers of the core the examples come from (src/build/site-data.ts), so the
 * prose cannot drift from what the API answers. A size is the bytes of the answer's JSON, which is
 * also what one MCP tool result holds.
 */
import type { Handler } from '../api/app.ts';
import { MAX_TIME_SERIES_SNAPSHOTS } from '../api/time-series.ts';
import { changesEndpointOf } from '../changes/endpoint.ts';
import { DATASETS, type Dataset } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import { LIMITS } from '../mcp/protocol.ts';
import { entityCount, size, sizeRange } from '../mcp/sizes.ts';
import { possessive } from '../lib/words.ts';

export interface DatasetFigures {
  slug: string;
  title: string;
  /** The list (newest data of every entity) and how many entities it holds. */
  listBytes: number;
  entities: number;
  /** The smallest and largest answer for one entity (the detail endpoint). */
  detailBytes: { min: number; max: number };
  snapshots: number;
  firstDate: string;
  lastDate: string;
  /** The whole time series, every entity (asked in parts when it is over the snapshot limit). */
  historyBytes: number;
  /** The entity whose whole time series is largest. */
  largest: { id: string; name: string; bytes: number };
  /** The whole change log, the largest answer of its endpoint and MCP tool. */
  changesBytes: number;
}

/** Does an answer of this size fit in one MCP tool result? */
export const fits = (bytes: number) => bytes <= LIMITS.resultBytes;

async function measureDataset(handle: Handler, origin: string, dataset: Dataset): Promise<DatasetFigures | undefined> {
  const { list, timeSeries } = endpointsOf(dataset);
  const get = async (target: string) => {
    const response = await handle(new Request(`${origin}${target}`));
    const text = await response.text();
    if (response.status !== 200) throw new Error(`figures: GET ${target} answered ${response.status}: ${text}`);
    return { bytes: Buffer.byteLength(text), body: JSON.parse(text) };
  };
  const newest = await handle(new Request(`${origin}${list.path}`));
  if (newest.status !== 200) return undefined; // no snapshot yet: nothing to measure
  const listText = await newest.text();
  const entities = (JSON.parse(listText) as { data: { id: string }[] }).data;
  const dates = ((await get(timeSeries.path)).body as { availableDates: string[] }).availableDates;
  if (dates.length === 0) return undefined;

  const detail = await Promise.all(entities.map(async (e) => (await get(`${list.path}/${e.id}`)).bytes));
  /** The whole history (of one entity when `id` is given), in parts of at most the snapshot limit. */
  const history = async (id?: string) => {
    let bytes = 0;
    const names = new Map<string, string>();
    for (let i = 0; i < dates.length; i += MAX_TIME_SERIES_SNAPSHOTS) {
      const part = dates.slice(i, i + MAX_TIME_SERIES_SNAPSHOTS);
      const query = `startDate=${part[0]}&endDate=${part.at(-1)}${id ? `&${dataset.entity.param}=${id}` : ''}`;
      const answer = await get(`${timeSeries.path}?${query}`);
      bytes += answer.bytes;
      const series = (answer.body as { timeSeries: Record<string, { data: { id: string; name: string }[] }> })
        .timeSeries;
      for (const snapshot of Object.values(series)) for (const e of snapshot.data) names.set(e.id, e.name);
    }
    return { bytes, names };
  };
  const whole = await history();
  let largest = { id: '', name: '', bytes: 0 };
  // Every entity the history ever lists, not only the newest list's.
  for (const [id, name] of whole.names) {
    const { bytes } = await history(id);
    if (bytes > largest.bytes) largest = { id, name, bytes };
  }
  return {
    slug: dataset.slug,
    title: dataset.title,
    listBytes: Buffer.byteLength(listText),
    entities: entities.length,
    detailBytes: { min: Math.min(...detail), max: Math.max(...detail) },
    snapshots: dates.length,
    firstDate: dates[0]!,
    lastDate: dates.at(-1)!,
    historyBytes: whole.bytes,
    largest,
    changesBytes: (await get(`${changesEndpointOf(dataset).path}?since=${dates[0]}`)).bytes,
  };
}

/** Every dataset's figures, in the dataset table's order; a dataset with no snapshot yet is left out. */
export async function measureFigures(handle: Handler, origin: string): Promise<DatasetFigures[]> {
  const figures: DatasetFigures[] = [];
  for (const dataset of DATASETS) {
    const measured = await measureDataset(handle, origin, dataset);
    if (measured) figures.push(measured);
  }
  return figures;
}

/** The docs' placeholders these figures fill. */
export function figuresSubstitutions(figures: DatasetFigures[]): Record<string, string> {
  const limit = size(LIMITS.resultBytes);
  const byHistory = [...figures].sort((a, b) => b.historyBytes - a.historyBytes);
  const byEntity = [...figures].sort((a, b) => b.largest.bytes - a.largest.bytes);
  const first = figures.map((f) => f.firstDate).sort()[0];
  const last = figures
    .map((f) => f.lastDate)
    .sort()
    .at(-1);
  const none = 'no snapshot has been collected yet';
  const largest = byEntity[0];
  const whole = byHistory[0];
  return {
    /** "2024-02-22 to 2025-03-05": the dates of the history measured. */
    figuresRange: first && last ? `${first} to ${last}` : none,
    sizesTable: [
      '| dataset | list (newest) | one institution or issuer | whole time series | largest whole time series of one institution or issuer | whole change log |',
      '| --- | --- | --- | --- | --- | --- |',
      ...figures.map((f) =>
        [
          '',
          f.title,
          `${size(f.listBytes)} (${entityCount(DATASETS.find((d) => d.slug === f.slug)!, f.entities)})`,
          sizeRange(f.detailBytes.min, f.detailBytes.max),
          `${size(f.historyBytes)} (${f.snapshots} snapshots, ${f.firstDate} to ${f.lastDate}): ${fits(f.historyBytes) ? 'fits' : `over ${limit}`}`,
          `${f.largest.name} (\`${f.largest.id}\`), ${size(f.largest.bytes)}: ${fits(f.largest.bytes) ? 'fits' : `over ${limit}`}`,
          `${size(f.changesBytes)}: ${fits(f.changesBytes) ? 'fits' : `over ${limit}`}`,
          '',
        ]
          .join(' | ')
          .trim(),
      ),
    ].join('\n'),
    /** The largest whole time series of one entity, named, with whether it fits in one result. */
    largestEntityHistory: largest
      ? `${possessive(largest.largest.name)} ${largest.title.toLowerCase()} (\`${largest.largest.id}\`, ${size(largest.largest.bytes)}${fits(largest.largest.bytes) ? '' : `, over the ${limit} of one result`})`
      : none,
    /** The largest whole time series of all: "a whole <dataset label> time series (<size>)". */
    largestHistory: whole ? `a whole ${whole.title.toLowerCase()} time series (${size(whole.historyBytes)})` : none,
  };
}
