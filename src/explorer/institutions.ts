/**
 * The registry of institutions and issuers: every one any dataset's history has listed, once per
 * id (matched case-insensitively, as the API matches ids), from what each dataset's history index
 * says of it (src/store/history-archive.ts `listedEver`), with the table of banks and the
 * eligibility rules matched on its name.
 */
import { DATASETS, type DatasetSlug } from '../datasets.ts';
import type { Institution } from '../schemas/institutions.ts';
import { EXPLORER } from './definitions.ts';
import { lenderType } from './lender-types.ts';
import { RESTRICTIONS } from './restrictions.ts';

/** One entity as one dataset's history lists it. */
export interface ListedEntity {
  id: string;
  name: string;
  firstSeen: string;
  lastSeen: string;
  /** Its website, as the links file beside the dataset's snapshots records it. */
  website?: string;
}

/**
 * Rules on the product's name restrict single offers, not the lender, so only the rules read on
 * the entity's name are said of it, and only those a dataset it appears in applies.
 */
function entityRules(name: string, slugs: readonly DatasetSlug[]): Institution['restrictions'] {
  const keys = new Set(slugs.flatMap((slug) => EXPLORER[slug].restrictions));
  return RESTRICTIONS.filter((rule) => rule.field === 'entity' && keys.has(rule.key) && rule.pattern.test(name)).map(
    (rule) => ({ key: rule.key, label: rule.label }),
  );
}

/** Every entity of every dataset's history, once per id, in id order. */
export function institutionRegistry(listed: Partial<Record<DatasetSlug, readonly ListedEntity[]>>): Institution[] {
  const byId = new Map<string, { newest: ListedEntity; slugs: DatasetSlug[]; firstSeen: string; website?: string }>();
  for (const { slug } of DATASETS) {
    for (const entity of listed[slug] ?? []) {
      const key = entity.id.toLowerCase();
      const known = byId.get(key);
      if (!known) {
        byId.set(key, { newest: entity, slugs: [slug], firstSeen: entity.firstSeen, website: entity.website });
        continue;
      }
      known.slugs.push(slug);
      if (entity.firstSeen < known.firstSeen) known.firstSeen = entity.firstSeen;
      // The website of its newest listing that has one.
      if (entity.website && (!known.website || entity.lastSeen > known.newest.lastSeen)) known.website = entity.website;
      if (entity.lastSeen > known.newest.lastSeen) known.newest = entity;
    }
  }
  return [...byId.keys()].sort().map((key) => {
    const { newest, slugs, firstSeen, website } = byId.get(key)!;
    return {
      id: newest.id,
      name: newest.name,
      website: website ?? null,
      lenderType: lenderType(newest.id),
      datasets: slugs,
      firstSeen,
      lastSeen: newest.lastSeen,
      restrictions: entityRules(newest.name, slugs),
    };
  });
}
