/**
 * The one table of datasets. Routes, parameter validation, filters, time series, the import,
 * and (later) collection, MCP tools and OpenAPI paths all read these declarations; adding a
 * dataset is one entry here plus its page parser.
 */
import { z } from 'zod';
import { envelopeSchema, snapshotSchema, timeSeriesSchema } from './schemas/envelopes.ts';
import { TermInMonthsParam } from './schemas/params.ts';
import {
  CreditCardIssuer,
  LoanInstitution,
  MortgageInstitution,
  type MortgageProduct as MortgageProductT,
} from './schemas/rates.ts';

/** What every institution or issuer has in common, for code that serves all four datasets. */
export type Entity = { id: string; name: string } & Record<string, unknown>;

/** A product or plan: what an entity lists under its items key. */
export type Item = { id: string; name: string } & Record<string, unknown>;

/**
 * A query filter over the items (products or plans) of every entity, for list, detail and time
 * series. Entities are always kept; an item the filter leaves nothing of is dropped.
 */
export interface ItemFilter {
  name: string;
  schema: z.ZodType<string>;
  description: string;
  /** The item as the filter leaves it, or null to drop it. */
  item(item: Item, value: string): Item | null;
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
const termInMonths: ItemFilter = {
  name: 'termInMonths',
  schema: TermInMonthsParam,
  description:
    'Only fixed rates of this term, in months (6, 12, 18, 24, 36, 48 or 60); variable floating rates are left out. ' +
    'A term the data does not have gives empty product arrays.',
  item(item, value) {
    const months = Number(value);
    const product = item as unknown as MortgageProductT;
    const rates = product.rates.filter((rate) => rate.termInMonths === months);
    return rates.length > 0 ? ({ ...product, rates } as unknown as Item) : null;
  },
};

function defineDataset<const S extends string, const T extends string, E extends z.ZodType<Entity>>(d: {
  slug: S;
  title: string;
  label: string;
  type: T;
  entity: EntityKind;
  itemsKey: 'products' | 'plans';
  entitySchema: E;
  filters: ItemFilter[];
  /** Time-series query parameters accepted and ignored (spec §4.4: credit cards ignore institutionId). */
  ignoredTimeSeriesParams: string[];
  sourcePath: string;
}) {
  const snapshot = snapshotSchema(d.type, d.entitySchema);
  return {
    ...d,
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
    itemsKey: 'products',
    entitySchema: MortgageInstitution,
    filters: [termInMonths],
    ignoredTimeSeriesParams: [],
    sourcePath: '/borrowing',
  }),
  defineDataset({
    slug: 'personal-loan-rates',
    title: 'Personal loan rates',
    label: 'personal loan rates',
    type: 'PersonalLoanRates',
    entity: INSTITUTION,
    itemsKey: 'products',
    entitySchema: LoanInstitution,
    filters: [],
    ignoredTimeSeriesParams: [],
    sourcePath: '/borrowing/personal-loan',
  }),
  defineDataset({
    slug: 'car-loan-rates',
    title: 'Car loan rates',
    label: 'car loan rates',
    type: 'CarLoanRates',
    entity: INSTITUTION,
    itemsKey: 'products',
    entitySchema: LoanInstitution,
    filters: [],
    ignoredTimeSeriesParams: [],
    sourcePath: '/borrowing/car-loan',
  }),
  defineDataset({
    slug: 'credit-card-rates',
    title: 'Credit card rates',
    label: 'credit card rates',
    type: 'CreditCardRates',
    entity: ISSUER,
    itemsKey: 'plans',
    entitySchema: CreditCardIssuer,
    filters: [],
    ignoredTimeSeriesParams: ['institutionId'],
    sourcePath: '/borrowing/credit-cards',
  }),
] as const;

export type Dataset = (typeof DATASETS)[number];
export type DatasetSlug = Dataset['slug'];

export const DATASET_SLUGS = DATASETS.map((d) => d.slug) as DatasetSlug[];

export function datasetBySlug(slug: string): Dataset | undefined {
  return DATASETS.find((d) => d.slug === slug);
}

/** The filters a request names, normalized (`termInMonths=12`): part of cache keys and ETags. */
export function filterKey(dataset: Dataset, values: Record<string, string | undefined>): string {
  return dataset.filters
    .filter((f) => values[f.name] !== undefined)
    .map((f) => `${f.name}=${values[f.name]}`)
    .join('&');
}

/** An item as the filters a request names leave it, or null when they drop it. */
export function filterItem(dataset: Dataset, item: Item, values: Record<string, string | undefined>): Item | null {
  let kept: Item | null = item;
  for (const filter of dataset.filters) {
    const value = values[filter.name];
    if (value !== undefined && kept) kept = filter.item(kept, value);
  }
  return kept;
}

/** The dataset's filters applied to whole entities (the object form of what the served store does with strings). */
export function filterEntities(dataset: Dataset, entities: readonly Entity[], values: Record<string, string | undefined>): Entity[] {
  if (!filterKey(dataset, values)) return [...entities];
  return entities.map((entity) => ({
    ...entity,
    [dataset.itemsKey]: (entity[dataset.itemsKey] as Item[]).flatMap((item) => filterItem(dataset, item, values) ?? []),
  }));
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
