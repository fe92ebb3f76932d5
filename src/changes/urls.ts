/**
 * Where the change feeds, the CSV downloads and the change log live, from the dataset table and
 * the explorer's paths: written once for the pages, the feeds, the docs and llms.txt.
 *
 *   /rates/changes.atom                         every dataset
 *   /rates/<path>/changes.atom                  one dataset (path: mortgages, personal-loans …)
 *   /rates/<path>/<slug>/changes.atom           one institution or issuer
 *   /rates/<path>/<dataset>.csv                 the newest snapshot (mortgage-rates.csv …)
 *   /rates/<path>/<dataset>-history.csv         every snapshot
 *   /api/v1/<dataset>/changes?since=…           the change log as JSON
 */
import type { Dataset } from '../datasets.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { changesEndpointOf } from './endpoint.ts';

export const slugOf = (id: string) => id.slice(id.indexOf(':') + 1);
const pathOf = (dataset: Dataset) => `/rates/${EXPLORER[dataset.slug].path}`;

export const ALL_FEED_URL = '/rates/changes.atom';
export const FEED_FILE = 'changes.atom';
export const ATOM_TYPE = 'application/atom+xml; charset=utf-8';
export const CSV_TYPE = 'text/csv; charset=utf-8';

export const datasetPageUrl = (dataset: Dataset) => pathOf(dataset);
export const entityPageUrl = (dataset: Dataset, entityId: string) => `${pathOf(dataset)}/${slugOf(entityId)}`;
export const datasetFeedUrl = (dataset: Dataset) => `${pathOf(dataset)}/${FEED_FILE}`;
export const entityFeedUrl = (dataset: Dataset, entityId: string) => `${entityPageUrl(dataset, entityId)}/${FEED_FILE}`;

export type CsvKind = 'latest' | 'history';
/** The file name (also the name a download is saved under): `mortgage-rates.csv`, `mortgage-rates-history.csv`. */
export const csvName = (dataset: Dataset, kind: CsvKind) => `${dataset.slug}${kind === 'history' ? '-history' : ''}`;
export const csvUrl = (dataset: Dataset, kind: CsvKind) => `${pathOf(dataset)}/${csvName(dataset, kind)}.csv`;

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

export function datasetFollowLinks(dataset: Dataset): FollowLink[] {
  return [
    { href: datasetFeedUrl(dataset), label: `Atom feed of ${dataset.label} changes`, type: 'atom' },
    { href: changesApiUrl(dataset), label: 'the changes as JSON', type: 'json' },
    {
      href: csvUrl(dataset, 'latest'),
      label: 'today’s rates as CSV',
      type: 'csv',
      download: `${csvName(dataset, 'latest')}.csv`,
    },
    {
      href: csvUrl(dataset, 'history'),
      label: 'every snapshot as CSV',
      type: 'csv',
      download: `${csvName(dataset, 'history')}.csv`,
    },
  ];
}

export function entityFollowLinks(dataset: Dataset, entity: { id: string; name: string }): FollowLink[] {
  return [
    {
      href: entityFeedUrl(dataset, entity.id),
      label: `Atom feed of ${entity.name}’s ${dataset.label} changes`,
      type: 'atom',
    },
    { href: changesApiUrl(dataset, { entityId: entity.id }), label: 'its changes as JSON', type: 'json' },
  ];
}

export const allFollowLinks = (): FollowLink[] => [
  { href: ALL_FEED_URL, label: 'Atom feed of every change', type: 'atom' },
];
