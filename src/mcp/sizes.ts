/**
 * The sizes the dataset tools' descriptions state, measured from the data this deployment serves
 * through the REST answers the tools return, in the units and rounding of the docs' sizes table
 * (content/docs/ai.md, Sizes; src/docs/figures.ts), so that the two never disagree.
 */
import { changesEndpointOf, DEFAULT_DAYS } from '../changes/endpoint.ts';
import type { Dataset } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { LIMITS, mib } from './protocol.ts';

export interface DatasetSizes {
  /** Bytes of the newest snapshot of every entity (the list result). */
  snapshotBytes: number;
  entities: number;
  /** The smallest and largest answer for one entity (the detail result). */
  detailBytes: { min: number; max: number };
  snapshots: number;
  firstDate: string;
  lastDate: string;
  /** The longest startDate–endDate range that fits in one result wherever it falls (Infinity: the whole history fits). */
  safeDays: number;
  /** The same for one entity (institutionId or issuerId given). */
  safeDaysOne: number;
  /** The lowest rates' answer (every measure, every lender). */
  lowestBytes: number;
  /** A quote check of the tool's example (the measure its charts show first): alone, and with the example entity's own offers. */
  quoteBytes: { alone: number; withEntity: number };
  /** The change log: its default answer (the DEFAULT_DAYS days up to the newest snapshot), and its largest, the whole history. */
  changes: { defaultBytes: number; wholeBytes: number };
}

/** The answers whose sizes a tool's description states. */
export type SizedAnswer = 'list' | 'detail' | 'timeSeries' | 'lowest' | 'quote' | 'changes';

/** Bytes as the docs write them: KiB below a MiB (one decimal under 10 KiB), else MiB with one decimal. */
export function size(bytes: number): string {
  const k = bytes / 1024;
  if (k < 10) return `${Math.max(0.1, Math.round(k * 10) / 10)} KiB`;
  if (k < 1024) return `${Math.round(k)} KiB`;
  return `${Math.round((k / 1024) * 10) / 10} MiB`;
}

/** "0.6–2.5 KiB": a range of sizes, the unit written once when both ends share it. */
export function sizeRange(min: number, max: number): string {
  const [low, high] = [size(min), size(max)];
  if (low === high) return low;
  const unit = high.slice(high.indexOf(' '));
  return low.endsWith(unit) ? `${low.slice(0, -unit.length)}–${high}` : `${low}–${high}`;
}

/** "12 institutions": an entity count as the docs' table and the list tool's description write it. */
export const entityCount = (dataset: Dataset, n: number) => `${n} ${dataset.entity.kind}${n === 1 ? '' : 's'}`;

const dayNumber = (date: string) => Math.round(Date.parse(date) / 86_400_000);

/**
 * How many days any startDate–endDate range may span and still fit in one result, wherever it
 * falls: with at most `k` snapshots fitting (an allowance of 20 % for older, larger snapshots),
 * the shortest span holding k + 1 of them.
 */
function safeDaysOf(dates: string[], snapshotBytes: number): number {
  const k = Math.floor(LIMITS.resultBytes / (Math.max(1, snapshotBytes) * 1.2));
  let fewest = Infinity;
  for (let i = 0; i + k < dates.length; i++) fewest = Math.min(fewest, dayNumber(dates[i + k]!) - dayNumber(dates[i]!));
  return Math.max(1, fewest);
}

/**
 * A dataset's sizes from the texts of its answers (the list, each entity's, the time series'
 * availableDates) as the figures of the docs measure them; undefined before any snapshot.
 */
export async function measureSizes(
  dataset: Dataset,
  text: (target: string) => Promise<string | undefined>,
): Promise<DatasetSizes | undefined> {
  const endpoints = endpointsOf(dataset);
  const changes = changesEndpointOf(dataset).path;
  // The quote tool's example arguments (src/mcp/rest-tools.ts), alone and with the example entity.
  const quote = `${endpoints.quote.path}?measure=${EXPLORER[dataset.slug].chartFirst}&rate=6`;
  const [listText, seriesText, changesText, lowestText, quoteText, quoteEntityText] = await Promise.all([
    text(endpoints.list.path),
    text(endpoints.timeSeries.path),
    text(changes),
    text(endpoints.lowest.path),
    text(quote),
    text(`${quote}&${dataset.entity.param}=${dataset.exampleEntityId}`),
  ]);
  if (listText === undefined || seriesText === undefined || changesText === undefined) return undefined;
  const { availableDates } = JSON.parse(seriesText) as { availableDates: string[] };
  if (availableDates.length === 0) return undefined;
  // Every other change-log answer leaves out some of the whole history's changes.
  const wholeText = await text(`${changes}?since=${availableDates[0]}`);
  const snapshotBytes = Buffer.byteLength(listText);
  const data = (JSON.parse(listText) as { data: { id: string }[] }).data;
  const entities = data.length;
  const details = await Promise.all(
    data.map(async (e) => Buffer.byteLength((await text(`${endpoints.list.path}/${e.id}`)) ?? '')),
  );
  return {
    detailBytes: { min: Math.min(...details), max: Math.max(...details) },
    snapshotBytes,
    safeDays: safeDaysOf(availableDates, snapshotBytes),
    safeDaysOne: safeDaysOf(availableDates, snapshotBytes / entities),
    entities,
    snapshots: availableDates.length,
    firstDate: availableDates[0]!,
    lastDate: availableDates.at(-1)!,
    changes: { defaultBytes: Buffer.byteLength(changesText), wholeBytes: Buffer.byteLength(wholeText ?? '') },
    lowestBytes: Buffer.byteLength(lowestText ?? ''),
    quoteBytes: { alone: Buffer.byteLength(quoteText ?? ''), withEntity: Buffer.byteLength(quoteEntityText ?? '') },
  };
}

/** What narrows a change log too large for one result. */
export function changesNarrowing(dataset: Dataset): string {
  const { param, kind } = dataset.entity;
  return `pass a later since or an earlier until, ${param} for one ${kind}, or direction or minBps for fewer changes`;
}

/** The sentence a too-large time series is answered with, and the one its description ends with. */
export function narrowing(dataset: Dataset, sizes: DatasetSizes | undefined): string {
  const { param, kind } = dataset.entity;
  if (!sizes) return `pass ${param} for one ${kind}, or a shorter startDate–endDate range`;
  const range = `a startDate–endDate range of about ${sizes.safeDays} days or less`;
  if (!Number.isFinite(sizes.safeDaysOne)) return `pass ${param} for one ${kind}, or ${range}`;
  return `pass ${range}, or ${param} for one ${kind} with a range of about ${sizes.safeDaysOne} days or less`;
}

/**
 * What a dataset tool's description adds about its result's size. A time series' whole history
 * is not stated: it is measured only at build time, and stated on the docs' AI page; a change log's,
 * far smaller, is.
 */
export function sizeNote(dataset: Dataset, answer: SizedAnswer, sizes: DatasetSizes | undefined, site: string): string {
  if (!sizes) return '';
  const { kind } = dataset.entity;
  if (answer === 'detail') return ` Size: ${sizeRange(sizes.detailBytes.min, sizes.detailBytes.max)}.`;
  if (answer === 'changes') {
    const { defaultBytes, wholeBytes } = sizes.changes;
    return (
      ` Sizes: the default result (the ${DEFAULT_DAYS} days up to the newest snapshot) is ${size(defaultBytes)}; ` +
      `the largest, the whole history (since=${sizes.firstDate}, ${sizes.snapshots} snapshots to ${sizes.lastDate}), is ${size(wholeBytes)}. ` +
      `One result may hold at most ${mib(LIMITS.resultBytes)}` +
      (wholeBytes <= LIMITS.resultBytes
        ? '; the whole history fits.'
        : `: for the whole history, ${changesNarrowing(dataset)}.`)
    );
  }
  if (answer === 'list') return ` Size: ${size(sizes.snapshotBytes)} (${entityCount(dataset, sizes.entities)}).`;
  if (answer === 'lowest') return ` Size: ${size(sizes.lowestBytes)} for every measure; one ${kind}'s, less.`;
  if (answer === 'quote')
    return (
      ` Sizes: about ${size(sizes.quoteBytes.alone)}; with ${dataset.entity.param}, more by that ${kind}'s own offers ` +
      `(${size(sizes.quoteBytes.withEntity)} for ${dataset.exampleEntityId}).`
    );
  return (
    ` Sizes: one snapshot of every ${kind} is ${size(sizes.snapshotBytes)}; ` +
    `there are ${sizes.snapshots} snapshots (${sizes.firstDate} to ${sizes.lastDate}); ${site}/docs/ai#sizes gives the whole history's size. ` +
    `One result may hold at most ${mib(LIMITS.resultBytes)}` +
    (Number.isFinite(sizes.safeDays)
      ? `: for a longer period, ${narrowing(dataset, sizes)}.`
      : '; the whole history fits.')
  );
}
