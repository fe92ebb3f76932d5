/**
 * The registry of institutions and issuers: every lender any dataset's history has listed, once,
 * from what each dataset's history index says of each id (src/store/history-archive.ts
 * `listedEver`), with the table of banks and the eligibility rules matched on its name.
 *
 * One lender is one entry, under the id and name of its newest listing. Ids are matched
 * case-insensitively, as the API matches them; two ids are one lender when the collector's alias
 * table (src/collect/page-spellings.ts INSTITUTION_ALIASES, the one place that says two labels
 * name one lender) joins their names, directly or through another alias. A lender that also issues
 * cards is one entry too: `institution:anz` and `issuer:anz` are the same bank, so the entry leads
 * with its institution id and lists the issuer id among its aliases, each alias with the datasets
 * that answer it (the ids of the two kinds answer different datasets). The other ids and names are
 * the entry's `aliases`. test/institutions-api.test.ts fails when the history holds a rename (an
 * id gone and a new one listing the same items and values the next day) that the table does not
 * join.
 */
import { INSTITUTION_ALIASES } from '../collect/page-spellings.ts';
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

/** The name the alias table leads a name to (itself when no alias lists it), followed to its end. */
function aliasedName(name: string): string {
  const seen = new Set<string>();
  let current = name;
  for (;;) {
    const next = INSTITUTION_ALIASES.find((a) => a.label === current)?.name;
    if (next === undefined || seen.has(next)) return current;
    seen.add(current);
    current = next;
  }
}

/** Whether an id is an institution's (a lender of the loan datasets) rather than a card issuer's. */
const isInstitution = (id: string) => id.toLowerCase().startsWith('institution:');

/** One id as every dataset's history lists it. */
interface IdListing {
  newest: ListedEntity;
  slugs: DatasetSlug[];
  firstSeen: string;
  website?: string;
}

/** Per lower-case id, its listings in every dataset, joined. */
function byId(listed: Partial<Record<DatasetSlug, readonly ListedEntity[]>>): Map<string, IdListing> {
  const ids = new Map<string, IdListing>();
  for (const { slug } of DATASETS) {
    for (const entity of listed[slug] ?? []) {
      const key = entity.id.toLowerCase();
      const known = ids.get(key);
      if (!known) {
        ids.set(key, { newest: entity, slugs: [slug], firstSeen: entity.firstSeen, website: entity.website });
        continue;
      }
      known.slugs.push(slug);
      if (entity.firstSeen < known.firstSeen) known.firstSeen = entity.firstSeen;
      // The website of its newest listing that has one.
      if (entity.website && (!known.website || entity.lastSeen > known.newest.lastSeen)) known.website = entity.website;
      if (entity.lastSeen > known.newest.lastSeen) known.newest = entity;
    }
  }
  return ids;
}

/**
 * The entry's own id first: an institution id before an issuer id (so the entry of a bank that
 * issues cards does not change id with the day its card page was last collected), then the newest
 * listing, then the name the aliases lead to before any other.
 */
const newestFirst = (a: IdListing, b: IdListing) =>
  Number(isInstitution(b.newest.id)) - Number(isInstitution(a.newest.id)) ||
  b.newest.lastSeen.localeCompare(a.newest.lastSeen) ||
  Number(aliasedName(b.newest.name) === b.newest.name) - Number(aliasedName(a.newest.name) === a.newest.name) ||
  a.newest.id.localeCompare(b.newest.id);

/** Every lender of every dataset's history, once, in id order, its other ids and names as aliases. */
export function institutionRegistry(listed: Partial<Record<DatasetSlug, readonly ListedEntity[]>>): Institution[] {
  const lenders = new Map<string, IdListing[]>();
  for (const listing of byId(listed).values()) {
    const key = aliasedName(listing.newest.name);
    lenders.set(key, [...(lenders.get(key) ?? []), listing]);
  }
  const order = DATASETS.map((d) => d.slug as DatasetSlug);
  return [...lenders.values()]
    .map((listings) => {
      const [newest, ...older] = [...listings].sort(newestFirst);
      const all = [newest!, ...older];
      const slugs = new Set(all.flatMap((l) => l.slugs));
      const datasets = order.filter((slug) => slugs.has(slug));
      const website = all.find((l) => l.website)?.website;
      return {
        id: newest!.newest.id,
        name: newest!.newest.name,
        website: website ?? null,
        lenderType: lenderType(newest!.newest.id),
        datasets,
        aliases: older
          .sort((a, b) => a.firstSeen.localeCompare(b.firstSeen) || a.newest.id.localeCompare(b.newest.id))
          .map((l) => ({
            id: l.newest.id,
            name: l.newest.name,
            datasets: order.filter((slug) => l.slugs.includes(slug)),
            firstSeen: l.firstSeen,
            lastSeen: l.newest.lastSeen,
          })),
        firstSeen: all.map((l) => l.firstSeen).sort()[0]!,
        lastSeen: all
          .map((l) => l.newest.lastSeen)
          .sort()
          .at(-1)!,
        restrictions: entityRules(newest!.newest.name, datasets),
      };
    })
    .sort((a, b) => (a.id.toLowerCase() < b.id.toLowerCase() ? -1 : 1));
}
