/**
 * Where the change feeds, the CSV downloads and the change log live, from the dataset table and
 * the explorer's paths: written once for the pages, the feeds, the docs and llms.txt.
 *
 *   /rates/changes.atom                         every dataset
 *   /rates/<path>/changes.atom                  one dataset (path: its explorer path)
 *   /rates/<path>/<slug>/changes.atom           one institution or issuer
 *   /rates/<path>/<dataset>.csv                 the newest snapshot (<slug>.csv)
 *   /rates/<path>/<dataset>-history.csv         the snapshots of the newest two years that have any
 *   /rates/<path>/<dataset>-history-<year>.csv  the snapshots of one calendar year, one file per year
 *   /api/v1/<dataset>/changes?since=…           the change log as JSON
 */
import type { Dataset } from '../datasets.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { changesEndpointOf } from './endpoint.ts';
import { possessive } from '../lib/words.ts';

export const slugOf = (id: string) => id.slice(id.indexOf(':') + 1);
const pathOf = (dataset: Dataset) => `/rates/${EXPLORER[dataset.slug].path}`;

export const ALL_FEED_URL = '/rates/changes.atom';
const FEED_FILE = 'changes.atom';
export const ATOM_TYPE = 'application/atom+xml; charset=utf-8';
export const CSV_TYPE = 'text/csv; charset=utf-8';

export const datasetPageUrl = (dataset: Dataset) => pathOf(dataset);
export const entityPageUrl = (dataset: Dataset, entityId: string) => `${pathOf(dataset)}/${slugOf(entityId)}`;
export const datasetFeedUrl = (dataset: Dataset) => `${pathOf(dataset)}/${FEED_FILE}`;
export const entityFeedUrl = (dataset: Dataset, entityId: string) => `${entityPageUrl(dataset, entityId)}/${FEED_FILE}`;

/**
 * A CSV download: `'latest'` the newest snapshot, `'history'` the recent history (the snapshots of
 * the newest HISTORY_YEARS calendar years that have snapshots), a year every snapshot of that
 * calendar year. No file grows without bound: a year file holds one year, the history two.
 */
export type CsvFile = 'latest' | 'history' | number;
/** How many years (those that have snapshots, newest first) `-history.csv` holds. */
const HISTORY_YEARS = 2;

const nameOf = (dataset: Dataset, file: CsvFile | '<year>') =>
  file === 'latest' ? dataset.slug : `${dataset.slug}-history${file === 'history' ? '' : `-${file}`}`;
/** The file name (also the name a download is saved under): `<slug>.csv`, `<slug>-history.csv`, `<slug>-history-2024.csv`. */
export const csvName = (dataset: Dataset, file: CsvFile) => nameOf(dataset, file);
export const csvUrl = (dataset: Dataset, file: CsvFile) => `${pathOf(dataset)}/${csvName(dataset, file)}.csv`;
/** The address of a year's file with the year left as `<year>` (for the docs). */
export const csvYearUrlPattern = (dataset: Dataset) => `${pathOf(dataset)}/${nameOf(dataset, '<year>')}.csv`;

const yearOf = (date: string) => Number(date.slice(0, 4));

/** The calendar years that have snapshots, newest first: from the data, never the clock, so a build is reproducible. */
const csvYears = (dates: readonly string[]): number[] => [...new Set(dates.map(yearOf))].sort((a, b) => b - a);

/** Every CSV file of a dataset whose snapshots are on these dates, in the order the explorer lists them: the newest snapshot, the recent history, each year newest first. */
export const csvFiles = (dates: readonly string[]): CsvFile[] => ['latest', 'history', ...csvYears(dates)];

/** The snapshots (oldest first, as the history is) that a file holds, in their order. */
export function csvSnapshots<S extends { date: string }>(file: CsvFile, snapshots: readonly S[]): S[] {
  if (file === 'latest') return snapshots.slice(-1);
  const years = file === 'history' ? csvYears(snapshots.map((s) => s.date)).slice(0, HISTORY_YEARS) : [file];
  return snapshots.filter((s) => years.includes(yearOf(s.date)));
}

/** The years a list of years (newest first) spans, for a label: `2025`, `2024–2025`. */
const span = (years: readonly number[]) => (years.length > 1 ? `${years.at(-1)}–${years[0]}` : `${years[0] ?? ''}`);

export function changesApiUrl(
  dataset: Dataset,
  options: { since?: string; until?: string; entityId?: string } = {},
): string {
  const query = new URLSearchParams();
  if (options.since) query.set('since', options.since);
  if (options.until) query.set('until', options.until);
  if (options.entityId) query.set(dataset.entity.param, options.entityId);
  const text = query.toString().replaceAll('%3A', ':');
  return `${changesEndpointOf(dataset).path}${text ? `?${text}` : ''}`;
}

/** The follow and download links of an explorer page (Rates.astro shows them; Atom ones also go into <head>). */
export interface FollowLink {
  href: string;
  label: string;
  type: 'atom' | 'csv' | 'json';
  /** Saved under this name (the `download` attribute). */
  download?: string;
}

/** The links of a dataset's page: its feed, its change log, and every CSV file of these snapshot dates. */
export function datasetFollowLinks(dataset: Dataset, dates: readonly string[]): FollowLink[] {
  const recent = span(csvYears(dates).slice(0, HISTORY_YEARS));
  const label = (file: CsvFile) =>
    file === 'latest'
      ? 'the newest rates as CSV'
      : file === 'history'
        ? `every snapshot of ${recent} as CSV`
        : `${file} as CSV`;
  return [
    { href: datasetFeedUrl(dataset), label: `Atom feed of ${dataset.label} changes`, type: 'atom' },
    { href: changesApiUrl(dataset), label: 'the changes as JSON', type: 'json' },
    ...csvFiles(dates).map(
      (file): FollowLink => ({
        href: csvUrl(dataset, file),
        label: label(file),
        type: 'csv',
        download: `${csvName(dataset, file)}.csv`,
      }),
    ),
  ];
}

export function entityFollowLinks(dataset: Dataset, entity: { id: string; name: string }): FollowLink[] {
  return [
    {
      href: entityFeedUrl(dataset, entity.id),
      label: `Atom feed of ${possessive(entity.name)} ${dataset.label} changes`,
      type: 'atom',
    },
    { href: changesApiUrl(dataset, { entityId: entity.id }), label: 'its changes as JSON', type: 'json' },
  ];
}

export const allFollowLinks = (): FollowLink[] => [
  { href: ALL_FEED_URL, label: 'Atom feed of every change', type: 'atom' },
];
