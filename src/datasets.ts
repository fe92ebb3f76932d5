/**
 * The one table of datasets. Routes, parameter validation, filters, time series, collection,
 * the import, MCP tools, OpenAPI paths, the site and the docs all read these declarations. A
 * dataset is also its zod entity schema (src/schemas/rates.ts), its page layout and parser
 * (src/collect/page-layout.ts, src/collect/parsers), its explorer facts (src/explorer/definitions.ts)
 * and its fixtures (test/fixtures): the other tables are keyed by DatasetSlug, so a dataset missing
 * from one of them is a type error. CONTRIBUTING.md ("Adding a dataset") is the whole checklist;
 * test/dataset-mentions.test.ts checks that no other file names a dataset.
 */
import type { z } from 'zod';
import { envelopeSchema, snapshotSchema, timeSeriesSchema } from './schemas/envelopes.ts';
import { TermInMonthsParam } from './schemas/params.ts';
import {
  CreditCardIssuer,
  type CreditCardPlan,
  LoanInstitution,
  type LoanProduct,
  MortgageInstitution,
  type MortgageProduct,
} from './schemas/rates.ts';
import { FIXED_TERM_MONTHS_PROSE } from './schemas/terms.ts';
import { namesInWords } from './lib/words.ts';
import type { HistoryCorrection } from './schemas/corrections.ts';
// Up a floor: a table entry holds its page's layout, declared beside the collector that reads it
// (CONTRIBUTING.md, Adding a dataset, step 3); page-layout.ts imports nothing above the table.
import {
  CAR_LOAN_PAGE,
  CREDIT_CARD_PAGE,
  MORTGAGE_PAGE,
  PERSONAL_LOAN_PAGE,
  type SourcePage,
} from './collect/page-layout.ts';

/**
 * An institution or issuer of any dataset, as its zod schema infers it. Each lists its items
 * under one key, `products` or `plans` (the dataset's itemsKey): read them with itemsOf, replace
 * them with withItems.
 */
export type Entity = MortgageInstitution | LoanInstitution | CreditCardIssuer;

/** A product or plan: what an entity lists under its items key. */
export type Item = MortgageProduct | LoanProduct | CreditCardPlan;

/** The items (products or plans) of an entity of any dataset. */
export function itemsOf(entity: Entity): readonly Item[] {
  return 'plans' in entity ? entity.plans : entity.products;
}

/** The entity with its items replaced by `items` (which must be of its own dataset). */
export function withItems<E extends Entity>(dataset: Dataset, entity: E, items: readonly Item[]): E {
  return { ...entity, [dataset.itemsKey]: items };
}

/** An entity made of its id, name and items (the compiled store keeps them apart). */
export function entityOf(dataset: Dataset, id: string, name: string, items: readonly Item[]): Entity {
  const empty: Entity = dataset.itemsKey === 'plans' ? { id, name, plans: [] } : { id, name, products: [] };
  return withItems(dataset, empty, items);
}

/** The endpoints a filter may be taken by (src/endpoints.ts EndpointKind). */
type FilteredEndpoint = 'list' | 'detail' | 'timeSeries' | 'lowest' | 'quote';

/**
 * A query filter over the items (products or plans) of every entity, for list, detail and time
 * series. Entities are always kept; an item the filter leaves nothing of is dropped. `I` is the
 * item type of the dataset the filter belongs to.
 */
export interface ItemFilter<I = Item> {
  name: string;
  schema: z.ZodType<string>;
  /** What it does to a list, a detail or a time series. */
  description: string;
  /**
   * What it does where it picks one measure rather than cutting items: the lowest rates, the
   * alerts feeds and the quote check (without it, `description` says it for those too).
   */
  asMeasure?: { lowest: string; alerts: string; quote: string };
  /** A value the examples (the site's, the docs') show the filter with. */
  example: string;
  /** The endpoints that take it; without it, the list, the detail, the time series, the lowest rates and the quote check alike. */
  only?: readonly FilteredEndpoint[];
  /** Its values are whole numbers written in digits, so an MCP tool takes a JSON number for it too. */
  wholeNumber?: boolean;
  /** The item as the filter leaves it, or null to drop it. */
  item(item: I, value: string): I | null;
}

export interface EntityKind {
  kind: 'institution' | 'issuer';
  /** Name of the path/query parameter that carries the id. */
  param: 'institutionId' | 'issuerId';
  prefix: 'institution' | 'issuer';
  label: 'Institution' | 'Issuer';
  notFound: 'institution_not_found' | 'issuer_not_found';
}

const INSTITUTION: EntityKind = {
  kind: 'institution',
  param: 'institutionId',
  prefix: 'institution',
  label: 'Institution',
  notFound: 'institution_not_found',
};
const ISSUER: EntityKind = {
  kind: 'issuer',
  param: 'issuerId',
  prefix: 'issuer',
  label: 'Issuer',
  notFound: 'issuer_not_found',
};

/** Mortgage `termInMonths`: keep fixed rates of that term; drop products left with none (institutions stay). */
const termInMonths: ItemFilter<MortgageProduct> = {
  name: 'termInMonths',
  schema: TermInMonthsParam,
  wholeNumber: true,
  example: '12',
  description:
    `Only fixed rates of this term, in months (${FIXED_TERM_MONTHS_PROSE}); variable floating rates are left out. ` +
    'A term the data does not have gives empty product arrays.',
  asMeasure: {
    lowest:
      `Only this fixed term, in months (${FIXED_TERM_MONTHS_PROSE}): \`data\` holds that term's lowest open rate alone. ` +
      'A term no lender offers gives an empty `data`.',
    alerts:
      `The fixed term to follow, in months (${FIXED_TERM_MONTHS_PROSE}): the same as \`measure\` set to it. ` +
      'A term that is no measure of the dataset is a 400 naming the measures it has.',
    quote:
      `The fixed term the rate is for, in months (${FIXED_TERM_MONTHS_PROSE}): the same as \`measure\` set to it. ` +
      'A term that is no measure of the dataset is a 400 naming the measures it has.',
  },
  item(product, value) {
    const months = Number(value);
    const rates = product.rates.filter((rate) => rate.termInMonths === months);
    return rates.length > 0 ? { ...product, rates } : null;
  },
};

/** The items of an entity type: its `products` or its `plans`. */
export type ItemsOf<E> = E extends { products: (infer I)[] } ? I : E extends { plans: (infer I)[] } ? I : never;

function defineDataset<
  const S extends string,
  const T extends string,
  const K extends 'products' | 'plans',
  E extends z.ZodObject & z.ZodType<Entity & Record<K, unknown>>,
>(d: {
  slug: S;
  title: string;
  label: string;
  type: T;
  entity: EntityKind;
  /**
   * The id the docs, the tool descriptions and the examples name (`institution:asb`): an entity of
   * this dataset that every snapshot of the test history lists (test/datasets.test.ts checks).
   */
  exampleEntityId: `${string}:${string}`;
  /** Where an entity lists its items. */
  itemsKey: K;
  entitySchema: E;
  filters: ItemFilter<ItemsOf<z.infer<E>>>[];
  /**
   * Time-series query parameters accepted and ignored: credit cards ignore `institutionId`, as
   * the time-series rules on the reference pages (/docs/reference/credit-card-rates) say.
   */
  ignoredTimeSeriesParams: string[];
  /** The source page: its path, the words of its title, its columns known by their headers (src/collect/page-layout.ts). */
  page: SourcePage;
  /** Known wrong values of the history `npm run snapshots:import` brings in, fixed as it converts (src/snapshots/corrections.ts). */
  corrections?: readonly HistoryCorrection[];
}) {
  const snapshot = snapshotSchema(d.type, d.entitySchema);
  return {
    ...d,
    corrections: d.corrections ?? [],
    sourcePath: d.page.path,
    timeSeriesType: `${d.type}TimeSeries` as const,
    schemas: {
      snapshot,
      envelope: envelopeSchema(d.type, d.entitySchema),
      timeSeries: timeSeriesSchema(`${d.type}TimeSeries`, snapshot),
    },
  };
}

export const DATASETS = [
  defineDataset({
    slug: 'mortgage-rates',
    title: 'Mortgage rates',
    label: 'mortgage rates',
    type: 'MortgageRates',
    entity: INSTITUTION,
    exampleEntityId: 'institution:asb',
    itemsKey: 'products',
    entitySchema: MortgageInstitution,
    filters: [termInMonths],
    ignoredTimeSeriesParams: [],
    page: MORTGAGE_PAGE,
  }),
  defineDataset({
    slug: 'personal-loan-rates',
    title: 'Personal loan rates',
    label: 'personal loan rates',
    type: 'PersonalLoanRates',
    entity: INSTITUTION,
    exampleEntityId: 'institution:asb',
    itemsKey: 'products',
    entitySchema: LoanInstitution,
    filters: [],
    ignoredTimeSeriesParams: [],
    page: PERSONAL_LOAN_PAGE,
    corrections: [
      {
        entityId: 'institution:sbs-bank',
        field: 'name',
        wrong: 'SBS Bank.',
        right: 'SBS Bank',
        evidence:
          'the page writes the name with a stray full stop (test/fixtures/real-pages); the history drops it (commit bdf2d2b), as the collector cleans names',
      },
    ],
  }),
  defineDataset({
    slug: 'car-loan-rates',
    title: 'Car loan rates',
    label: 'car loan rates',
    type: 'CarLoanRates',
    entity: INSTITUTION,
    exampleEntityId: 'institution:asb',
    itemsKey: 'products',
    entitySchema: LoanInstitution,
    filters: [],
    ignoredTimeSeriesParams: [],
    page: CAR_LOAN_PAGE,
  }),
  defineDataset({
    slug: 'credit-card-rates',
    title: 'Credit card rates',
    label: 'credit card rates',
    type: 'CreditCardRates',
    entity: ISSUER,
    exampleEntityId: 'issuer:amex',
    itemsKey: 'plans',
    entitySchema: CreditCardIssuer,
    filters: [],
    ignoredTimeSeriesParams: ['institutionId'],
    page: CREDIT_CARD_PAGE,
    corrections: [
      {
        entityId: 'issuer:amex',
        itemId: 'plan:amex:platinum-charge-card',
        field: 'annualFeeNZD',
        wrong: 1,
        right: 1250,
        evidence:
          'interest.co.nz lists the annual fee as $1,250 (public scrapers of the page, 2024–2026); the earlier collector read "1,250" with parseFloat, as 1',
      },
    ],
  }),
] as const;

export type Dataset = (typeof DATASETS)[number];
export type DatasetSlug = Dataset['slug'];

export const DATASET_SLUGS = DATASETS.map((d) => d.slug) as DatasetSlug[];

/** Every dataset's label in one phrase, in table order ("mortgage, … and credit card rates"), for prose. */
export const datasetsInWords = (): string => namesInWords(DATASETS.map((d) => d.label));

export function datasetBySlug(slug: string): Dataset | undefined {
  return DATASETS.find((d) => d.slug === slug);
}

/** The filters an endpoint of the dataset takes (a filter declares `only` when not all of them). */
export function filtersOf(dataset: Dataset, kind: FilteredEndpoint): readonly ItemFilter[] {
  const filters: readonly ItemFilter[] = dataset.filters;
  return filters.filter((filter) => filter.only?.includes(kind) ?? true);
}

/** The filters a request names, normalized (`termInMonths=12`): part of cache keys and ETags. */
export function filterKey(dataset: Dataset, values: Record<string, string | undefined>): string {
  return dataset.filters
    .filter((f) => values[f.name] !== undefined)
    .map((f) => `${f.name}=${values[f.name]}`)
    .join('&');
}

/** The entity type of a dataset (`EntityOf<'mortgage-rates'>` is MortgageInstitution). */
export type EntityOf<S extends DatasetSlug> = z.infer<Extract<Dataset, { slug: S }>['entitySchema']>;
/** The item type of a dataset (`ItemOf<'credit-card-rates'>` is CreditCardPlan). */
export type ItemOf<S extends DatasetSlug> = ItemsOf<EntityOf<S>>;

/** An item as the filters a request names leave it, or null when they drop it. */
export function filterItem(dataset: Dataset, item: Item, values: Record<string, string | undefined>): Item | null {
  // Each filter is declared for its dataset's items; the item given here is one of them.
  const filters: readonly ItemFilter[] = dataset.filters;
  let kept: Item | null = item;
  for (const filter of filters) {
    const value = values[filter.name];
    if (value !== undefined && kept) kept = filter.item(kept, value);
  }
  return kept;
}

/** The dataset's filters applied to whole entities (the object form of what the served store does with strings). */
export function filterEntities(
  dataset: Dataset,
  entities: readonly Entity[],
  values: Record<string, string | undefined>,
): Entity[] {
  if (!filterKey(dataset, values)) return [...entities];
  return entities.map((entity) =>
    withItems(
      dataset,
      entity,
      itemsOf(entity).flatMap((item) => filterItem(dataset, item, values) ?? []),
    ),
  );
}

/** A snapshot as stored and served: `{ type, data, lastUpdated }`. */
export interface Snapshot {
  type: string;
  data: Entity[];
  lastUpdated: string;
}

/**
 * The canonical form of a user-supplied id: percent-decoded already, lower-cased, and given its
 * prefix when the caller sent the bare slug (`anz` → `institution:anz`).
 */
export function canonicalEntityId(raw: string, entity: EntityKind): string {
  const lower = raw.trim().toLowerCase();
  return lower.includes(':') ? lower : `${entity.prefix}:${lower}`;
}
