/**
 * The lenders page (/rates/lenders) as the build sees it: the registry GET /api/v1/institutions
 * answers (src/explorer/institutions.ts), made from the compiled history the explorer renders,
 * with each dataset's explorer page of the lender where one exists (only lenders of the newest
 * snapshot have a page, under any of the lender's ids). Build time only.
 */
import type { DatasetSlug } from '../datasets.ts';
import { institutionRegistry, type ListedEntity } from '../explorer/institutions.ts';
import { type DatasetView, entityUrl, snapshotDay } from '../explorer/pages.ts';
import type { Institution } from '../schemas/institutions.ts';

export interface LenderRow extends Institution {
  /** Per dataset that lists it: its title, and the lender's explorer page when the newest snapshot lists it. */
  pages: { slug: string; title: string; url?: string }[];
  /** Its first and last listings' days in New Zealand, as every page writes a snapshot's date (snapshotDay). */
  firstDay: string;
  lastDay: string;
}

/** Each entity of a history, with the name of its newest listing and its first and last dates. */
function listedIn(view: DatasetView): ListedEntity[] {
  const byId = new Map<string, ListedEntity>();
  for (const { date, data } of view.snapshots) {
    for (const { id, name } of data) {
      const known = byId.get(id.toLowerCase());
      if (known) Object.assign(known, { id, name, lastSeen: date });
      else byId.set(id.toLowerCase(), { id, name, firstSeen: date, lastSeen: date });
    }
  }
  return [...byId.values()].map((entity) => {
    const website = view.websites[entity.id.toLowerCase()];
    return website ? { ...entity, website } : entity;
  });
}

export function lenderRows(views: readonly DatasetView[]): LenderRow[] {
  const listed: Partial<Record<DatasetSlug, ListedEntity[]>> = {};
  for (const view of views) listed[view.dataset.slug] = listedIn(view);
  return institutionRegistry(listed).map((institution) => {
    const ids = new Set([institution.id, ...institution.aliases.map((a) => a.id)].map((id) => id.toLowerCase()));
    const own = views.filter((v) => institution.datasets.includes(v.dataset.slug));
    /** The day of its snapshot on `date` (a snapshot date of one of its datasets that lists it). */
    const day = (date: string) => {
      const snapshot = own
        .map((v) => v.snapshots.find((s) => s.date === date && s.data.some((e) => ids.has(e.id.toLowerCase()))))
        .find((s) => s !== undefined)!;
      return snapshotDay(snapshot);
    };
    return {
      ...institution,
      pages: institution.datasets.map((slug) => {
        const view = views.find((v) => v.dataset.slug === slug)!;
        const now = view.latest.data.find((e) => ids.has(e.id.toLowerCase()));
        return { slug, title: view.definition.title, ...(now ? { url: entityUrl(view.definition, now.id) } : {}) };
      }),
      firstDay: day(institution.firstSeen),
      lastDay: day(institution.lastSeen),
    };
  });
}
