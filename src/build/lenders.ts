/**
 * The lenders page (/rates/lenders) as the build sees it: the registry GET /api/v1/institutions
 * answers (src/explorer/institutions.ts), made from the compiled history the explorer renders,
 * with each dataset's explorer page of the lender where one exists (only lenders of the newest
 * snapshot have a page). Build time only.
 */
import type { DatasetSlug } from '../datasets.ts';
import { institutionRegistry, type ListedEntity } from '../explorer/institutions.ts';
import { type DatasetView, entityUrl } from '../explorer/pages.ts';
import type { Institution } from '../schemas/institutions.ts';

export interface LenderRow extends Institution {
  /** Per dataset that lists it: its title, and the lender's explorer page when the newest snapshot lists it. */
  pages: { slug: string; title: string; url?: string }[];
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
  return institutionRegistry(listed).map((institution) => ({
    ...institution,
    pages: institution.datasets.map((slug) => {
      const view = views.find((v) => v.dataset.slug === slug)!;
      const now = view.latest.data.find((e) => e.id.toLowerCase() === institution.id.toLowerCase());
      return { slug, title: view.definition.title, ...(now ? { url: entityUrl(view.definition, now.id) } : {}) };
    }),
  }));
}
