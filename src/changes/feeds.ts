/**
 * Atom feeds of rate changes, written at build time from the change log (src/changes/model.ts):
 * every dataset, one dataset, or one institution or issuer. One entry per snapshot date that
 * changed a value in the feed's scope, newest first, at most FEED_ENTRIES. Each change reads as
 * the change log says it: `…: down 25 bps, 5.50 → 5.25 %`, `…: new, 4.99 %`, `…: gone, was 5.10 %`.
 *
 * Written with feedsmith's Atom generator, which takes every element Atom has (typed links, so an
 * entry links both its page and its JSON; rights; content of type html) and escapes what it writes.
 *
 * Entry ids are tag URIs (RFC 4151) of the site's host, the dataset, the entity (entity feeds)
 * and the snapshot date: the same date keeps its id in every build, whatever else is added. If a
 * date's snapshot is replaced (a second change that day), the entry keeps its id and its
 * `updated` moves, as Atom intends. The entries of one dataset are the same entries (same id,
 * title and content) in the dataset feed and the all-datasets feed.
 */
import { generateAtomFeed } from 'feedsmith';
import { type Dataset, datasetsInWords } from '../datasets.ts';
import { TERMS_OF_USE } from '../schemas/common.ts';
import { changeCount, changesOf, describeChange, dayFor, type ChangeDay, type ValueChange } from './model.ts';
import { ALL_FEED_URL, changesApiUrl, datasetFeedUrl, datasetPageUrl, entityFeedUrl, entityPageUrl } from './urls.ts';
import { possessive } from '../lib/words.ts';

const FEED_ENTRIES = 100;
/** The year in the tag URIs' authority (RFC 4151: a date on which the site's host was held). */
const TAG_YEAR = '2024';

export interface DatasetChanges {
  dataset: Dataset;
  days: readonly ChangeDay[];
  /** When the dataset's newest snapshot was collected (the feed's `updated` when it has no entry). */
  lastUpdated: string;
}

export type FeedScope =
  | { kind: 'all' }
  | { kind: 'dataset'; dataset: Dataset }
  | { kind: 'entity'; dataset: Dataset; entity: { id: string; name: string; listedNow: boolean } };

const capital = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** `tag:rates.example,2024:<slug>/2025-03-05` (entity feeds: `…:<slug>/institution:anz/2025-03-05`). */
function entryId(site: string, dataset: Dataset, date: string, entityId?: string): string {
  return `tag:${new URL(site).hostname},${TAG_YEAR}:${dataset.slug}/${entityId ? `${entityId}/` : ''}${date}`;
}

const nzTime = (iso: string) =>
  new Date(iso).toLocaleString('en-NZ', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Pacific/Auckland' });

/** The entry's title: its first change, and how many more. */
function entryTitle(day: ChangeDay, prefix: string): string {
  const all = changesOf(day);
  const more = all.length > 1 ? ` and ${all.length - 1} more` : '';
  return `${prefix}${describeChange(all[0]!.change)}${more}`;
}

function changeItem(kind: string, change: ValueChange): string {
  const attr = (name: string, value: unknown) =>
    value === undefined ? '' : ` data-${name}="${escapeHtml(JSON.stringify(value))}"`;
  return (
    `<li data-kind="${kind}" data-entity="${escapeHtml(change.entityId)}" data-item="${escapeHtml(change.itemId)}" data-id="${escapeHtml(change.valueId)}"` +
    `${attr('from', change.from)}${attr('to', change.to)}${attr('direction', change.direction ?? undefined)}${attr('bps', change.bps ?? undefined)}>` +
    `${escapeHtml(describeChange(change))}</li>`
  );
}

function entryHtml(dataset: Dataset, day: ChangeDay, page: { url: string; label: string }, json: string): string {
  const count = changeCount(day);
  return [
    // The snapshot by when it was collected, in New Zealand time as the pages date it, not by the API's UTC date.
    `<p>${count} change${count === 1 ? '' : 's'} to ${escapeHtml(dataset.label)} in the snapshot collected ` +
      `${escapeHtml(nzTime(day.lastUpdated))} (New Zealand time), compared with the snapshot before it.</p>`,
    `<ul>${changesOf(day)
      .map(({ kind, change }) => changeItem(kind, change))
      .join('')}</ul>`,
    `<p><a href="${escapeHtml(page.url)}">${escapeHtml(page.label)}</a> · <a href="${escapeHtml(json)}">these changes as JSON</a></p>`,
    `<p><small>${escapeHtml(TERMS_OF_USE)}</small></p>`,
  ].join('\n');
}

interface Entry {
  id: string;
  date: string;
  lastUpdated: string;
  title: string;
  page: { url: string; label: string };
  json: string;
  html: string;
}

function datasetEntries(
  site: string,
  { dataset, days }: DatasetChanges,
  entity?: FeedScope & { kind: 'entity' },
): Entry[] {
  const entries: Entry[] = [];
  for (let d = days.length - 1; d >= 0 && entries.length < FEED_ENTRIES; d--) {
    const day = entity ? dayFor(days[d]!, entity.entity.id.toLowerCase()) : days[d]!;
    if (!day) continue;
    const page = entity
      ? entity.entity.listedNow
        ? {
            url: `${site}${entityPageUrl(dataset, entity.entity.id)}`,
            label: `${possessive(entity.entity.name)} ${dataset.label} now`,
          }
        : { url: `${site}${datasetPageUrl(dataset)}`, label: `${dataset.title} now` }
      : { url: `${site}${datasetPageUrl(dataset)}`, label: `${dataset.title} now` };
    const json = `${site}${changesApiUrl(dataset, { since: day.date, until: day.date, entityId: entity?.entity.id })}`;
    entries.push({
      id: entryId(site, dataset, day.date, entity?.entity.id),
      date: day.date,
      lastUpdated: day.lastUpdated,
      title: entryTitle(day, entity ? '' : `${dataset.title} — `),
      page,
      json,
      html: entryHtml(dataset, day, page, json),
    });
  }
  return entries;
}

function describeScope(scope: FeedScope): { title: string; subtitle: string; page: string; self: string; id: string } {
  switch (scope.kind) {
    case 'all':
      return {
        title: 'NZ lending rates: every change',
        subtitle: `${capital(datasetsInWords())} in New Zealand: each snapshot that moved a rate, with every change.`,
        page: '/rates/changes',
        self: ALL_FEED_URL,
        id: 'rates/changes',
      };
    case 'dataset':
      return {
        title: `${scope.dataset.title} in New Zealand: changes`,
        subtitle: `Each snapshot of ${scope.dataset.label} that moved a rate, with every change.`,
        page: datasetPageUrl(scope.dataset),
        self: datasetFeedUrl(scope.dataset),
        id: `${scope.dataset.slug}/changes`,
      };
    case 'entity':
      return {
        title: `${scope.entity.name}: ${scope.dataset.label} changes`,
        subtitle: `Each snapshot that moved one of ${possessive(scope.entity.name)} ${scope.dataset.label}, with every change.`,
        page: scope.entity.listedNow ? entityPageUrl(scope.dataset, scope.entity.id) : datasetPageUrl(scope.dataset),
        self: entityFeedUrl(scope.dataset, scope.entity.id),
        id: `${scope.dataset.slug}/${scope.entity.id}/changes`,
      };
  }
}

/**
 * The Atom document of one feed. `sources` are the datasets in scope (every one for the all-datasets feed);
 * `hub`, the WebSub hub the feed names beside its own address (src/lib/websub.ts), none when unset.
 */
export function atomFeed(scope: FeedScope, sources: readonly DatasetChanges[], site: string, hub?: string): string {
  const about = describeScope(scope);
  const entries = sources
    .flatMap((source) => datasetEntries(site, source, scope.kind === 'entity' ? scope : undefined))
    .sort(
      (a, b) => b.date.localeCompare(a.date) || b.lastUpdated.localeCompare(a.lastUpdated) || a.id.localeCompare(b.id),
    )
    .slice(0, FEED_ENTRIES);
  // From the data, never the build's clock, so an unchanged history gives the same feed: the newest entry's
  // collection time, or (no entry yet) the newest snapshot's.
  const updated = [...(entries.length ? entries : sources).map((e) => e.lastUpdated)].sort().at(-1)!;
  return generateAtomFeed({
    id: `tag:${new URL(site).hostname},${TAG_YEAR}:${about.id}`,
    title: { value: about.title, type: 'text' },
    subtitle: { value: about.subtitle, type: 'text' },
    updated,
    authors: [{ name: 'NZ Rates API', uri: `${site}/` }],
    links: [
      { href: `${site}${about.page}`, rel: 'alternate', type: 'text/html' },
      { href: `${site}${about.self}`, rel: 'self', type: 'application/atom+xml' },
      ...(hub ? [{ href: hub, rel: 'hub' }] : []),
    ],
    rights: { value: TERMS_OF_USE, type: 'text' },
    entries: entries.map((entry) => ({
      id: entry.id,
      title: { value: entry.title, type: 'text' },
      updated: entry.lastUpdated,
      links: [
        { href: entry.page.url, rel: 'alternate', type: 'text/html' },
        { href: entry.json, rel: 'related', type: 'application/json', title: 'These changes as JSON' },
      ],
      content: { value: entry.html, type: 'html' },
      rights: { value: TERMS_OF_USE, type: 'text' },
    })),
  });
}
