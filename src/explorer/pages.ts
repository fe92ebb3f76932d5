/**
 * What each explorer page shows, as plain data for the Astro templates: computed at build time
 * from the compiled history, with the charts already drawn. "Best" (the lowest, or the highest
 * where the dataset's explorer facts say so), the trend lines and the comparisons count offers
 * open to anyone; restricted offers (src/explorer/restrictions.ts) are shown apart, with whom
 * they are for.
 */
import { DATASETS, type Dataset, type Entity, itemsOf } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import type { CompiledStore } from '../store/compile.ts';
import { nzDate } from '../lib/time-words.ts';
import { lineChart, SERIES_STYLES, scatterChart } from './chart.ts';
import {
  bestFirst,
  EXPLORER,
  type Cell,
  type ExplorerDefinition,
  itemName,
  type Measure,
  offerRate,
} from './definitions.ts';
import { bestRateOf } from './best.ts';
import { nextTermBreakEven } from './break-even.ts';
import {
  type Best,
  bestByMeasure,
  entityTrend,
  recentMoves,
  snapshotsOf,
  standings,
  tiedOrder,
  trends,
  type Move,
  type SnapshotObjects,
  type TrendPoint,
  type Who,
} from './history.ts';
import { type LenderType, lenderType } from './lender-types.ts';
import { type RestrictionRule, restrictionRulesOf } from './restrictions.ts';

export const slugOf = (id: string) => id.slice(id.indexOf(':') + 1);
export const entityUrl = (definition: ExplorerDefinition, id: string) => `/rates/${definition.path}/${slugOf(id)}`;
/** Where the rule "best means open to anyone" is written out. */
export const RESTRICTIONS_DOC = '/docs/concepts#best-rates-and-restricted-offers';
const rate = (n: number) => `${n.toFixed(2)} %`;
/**
 * The date every page gives a snapshot: the day in New Zealand it was collected on, as the
 * headings say it, never the UTC date the API keys it by (a snapshot of 2025-02-04 collected at
 * 9 am NZDT on the 5th is "5 Feb 2025" in every caption, table, feed and list).
 */
export const snapshotDay = (snapshot: { lastUpdated: string }) => nzDate(new Date(snapshot.lastUpdated));

/** A view's snapshot dates (the API's keys) in words: each snapshot's snapshotDay. */
const dayOf = (view: { snapshots: readonly { date: string; lastUpdated: string }[] }) => {
  const days = new Map(view.snapshots.map((s) => [s.date, snapshotDay(s)]));
  return (date: string) => days.get(date) ?? date;
};

export interface Chart {
  id: string;
  title: string;
  /** The chart's SVG markup: a wide and a narrow layout (ChartFigure.astro shows the one that fits). */
  svg: string;
  /** The chart as a table, for its text alternative: a row per date. */
  columns: string[];
  rows: (string | number | null)[][];
  apiUrl: string;
}

/** One offer as the pages name it: the institution, its page, the product and the value. */
export interface OfferRef {
  entity: string;
  url: string;
  product: string;
  id: string;
  value: number;
  /** The rate as the pages write it: "13.90 %", a loan's range "8.99–17.75 %", "from 10.95 %". */
  rate: string;
  /** Whether the offer is a range, so that its value is where the range starts ("from 8.99 %"). */
  ranged: boolean;
  /** The word before a range's value: "from" where it starts, "up to" for a range given by its end alone. */
  lead?: 'from' | 'up to';
  /** A grade or condition within the product, a card's fee and interest-free days. */
  note?: string;
  details?: string;
  /** Whom it is for, or what it is, when it is set apart from "best". */
  restricted?: string;
}

export interface BestCard {
  measure: Measure;
  noun: string;
  /** The best value open to anyone, and whether it is where a range starts (written "from 8.99 %"). */
  value: number;
  fromRange: boolean;
  /** The word before the value as its first offer reads ("from", "up to"), none for a single rate. */
  lead?: OfferRef['lead'];
  who: OfferRef[];
  /** The next lenders by their best open offer, best first (a few): who else comes close. */
  next: OfferRef[];
  /** Restricted offers better than it, best first (the first few), and how many more there are. */
  restricted: OfferRef[];
  moreRestricted: number;
  /** The page comparing every institution on this measure, when the dataset has one. */
  compareUrl?: string;
}

export interface TableGroup {
  entity: Entity;
  url: string;
  rows: Cell[][];
}

export interface DatasetView {
  dataset: Dataset;
  definition: ExplorerDefinition;
  url: string;
  snapshots: SnapshotObjects[];
  latest: SnapshotObjects;
  /** Per canonical (lower-case) entity id, its website (src/schemas/links.ts). */
  websites: Record<string, string>;
}

export function datasetViews(store: CompiledStore): DatasetView[] {
  return DATASETS.flatMap((dataset) => {
    const compiled = store.datasets[dataset.slug];
    if (!compiled || compiled.dates.length === 0) return [];
    const snapshots = snapshotsOf(dataset, compiled);
    const definition = EXPLORER[dataset.slug];
    const websites = Object.fromEntries(
      Object.entries(compiled.websites ?? {}).map(([id, url]) => [id.toLowerCase(), url]),
    );
    const view = {
      dataset,
      definition,
      url: `/rates/${definition.path}`,
      snapshots,
      latest: snapshots.at(-1)!,
      websites,
    };
    assertDistinctAddresses(view);
    return [view];
  });
}

/** Institution pages and comparison pages share /rates/<dataset>/<segment>: a slug equal to a measure's would clash. */
function assertDistinctAddresses(view: DatasetView) {
  const measures = new Set(view.definition.measures.map((m) => m.slug));
  for (const entity of view.latest.data)
    if (measures.has(slugOf(entity.id)))
      throw new Error(
        `${entity.id}: its page /rates/${view.definition.path}/${slugOf(entity.id)} would clash with a measure's`,
      );
}

/** The restricted-offer rules that match the lender itself, not one of its products: it sets who may borrow. */
const lenderRulesOf = (definition: ExplorerDefinition, entity: Entity): RestrictionRule[] =>
  restrictionRulesOf(definition.restrictions, { entity: entity.name, product: '' }).filter((r) => r.field === 'entity');

/** Figures computed once per dataset, however many pages read them. */
function once<T>(make: (view: DatasetView) => T): (view: DatasetView) => T {
  const made = new WeakMap<DatasetView, T>();
  return (view) => {
    if (!made.has(view)) made.set(view, make(view));
    return made.get(view)!;
  };
}
const trendsOf = once((view): Map<string, TrendPoint[]> => trends(view.definition, view.snapshots));
const bestOf = once((view): Map<string, Best> => bestByMeasure(view.definition, view.latest.data));

const refOf = (definition: ExplorerDefinition, w: Who): OfferRef => ({
  entity: w.entity.name,
  url: entityUrl(definition, w.entity.id),
  product: w.offer.label ?? itemName(w.entity, w.item),
  id: w.offer.id,
  value: w.offer.value,
  rate: offerRate(w.offer),
  ranged: w.offer.range !== undefined,
  ...(w.offer.range ? { lead: w.offer.range.from === null ? 'up to' : 'from' } : {}),
  ...(w.offer.note ? { note: w.offer.note } : {}),
  ...(w.offer.details ? { details: w.offer.details } : {}),
  restricted: w.offer.restricted,
});

function trendSummary(points: { date: string; value: number | null }[], day: (date: string) => string): string {
  const known = points.filter((p) => p.value !== null);
  if (known.length === 0) return 'no data';
  const first = known[0]!;
  const last = known.at(-1)!;
  const values = known.map((p) => p.value!);
  return `${rate(first.value!)} on ${day(first.date)}, ${rate(last.value!)} on ${day(last.date)} (between ${rate(Math.min(...values))} and ${rate(Math.max(...values))})`;
}

export const capital = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;

/** The best open value of each measure in the newest snapshot, with the restricted offers better than it. */
export function bestCards(view: DatasetView, restrictedShown = 2, nextShown = 0): BestCard[] {
  const { definition } = view;
  const found = bestOf(view);
  return definition.measures.flatMap((measure) => {
    const best = found.get(measure.key);
    if (!best) return [];
    const order = bestFirst(definition, measure.key);
    const who = best.who.map((w) => refOf(definition, w));
    const makers = new Set(best.who.map((w) => w.entity.id));
    const next = standings(definition, view.latest.data, measure.key)
      .filter((s) => s.best && !makers.has(s.entity.id))
      .sort((a, b) => order(a.best!.value, b.best!.value) || tiedOrder(a.best!.who[0]!, b.best!.who[0]!))
      .slice(0, nextShown)
      .map((s) => refOf(definition, s.best!.who[0]!));
    return [
      {
        measure,
        noun: definition.valueNoun(measure),
        value: best.value,
        fromRange: who.some((w) => w.lead === 'from'),
        lead: who[0]?.lead,
        who,
        next,
        restricted: best.restricted.slice(0, restrictedShown).map((w) => refOf(definition, w)),
        moreRestricted: Math.max(0, best.restricted.length - restrictedShown),
        compareUrl: definition.compared.includes(measure.key)
          ? comparisonUrl(definition, measure, { type: 'all', restricted: false })
          : undefined,
      },
    ];
  });
}

/** The next lenders each card of a dataset's page names, so that a phone's first screen shows several rates. */
const NEXT_ON_DATASET_PAGE = 2;

export function overview(view: DatasetView) {
  const { dataset, definition, snapshots, latest } = view;
  const cards = bestCards(view, 2, NEXT_ON_DATASET_PAGE);
  const groups: TableGroup[] = latest.data
    .map((entity) => ({ entity, url: entityUrl(definition, entity.id), rows: definition.rows(entity) }))
    .filter((group) => group.rows.length > 0);
  const withoutRate = latest.data.flatMap((entity) =>
    (definition.withoutRate?.(entity) ?? []).map((name) => ({
      entity: entity.name,
      url: entityUrl(definition, entity.id),
      name,
    })),
  );
  const first = snapshots[0]!.date;
  const range = `${endpointsOf(dataset).timeSeries.path}?startDate=${first}&endDate=${latest.date}`;
  const byMeasure = trendsOf(view);
  const day = dayOf(view);
  const charts: Chart[] = definition.measures.flatMap((measure) => {
    const points = byMeasure.get(measure.key)!;
    if (points.every((p) => p.best === null)) return [];
    const noun = definition.valueNoun(measure);
    const { word } = bestRateOf(definition, measure.key);
    const bestLine = points.map((p) => ({ date: p.date, value: p.best }));
    const medianLine = points.map((p) => ({ date: p.date, value: p.median }));
    const id = `trend-${dataset.slug}-${measure.key}`;
    const title = `${capital(noun)}: ${word} and median open to anyone, ${day(first)} to ${snapshotDay(latest)}`;
    const description = `${capital(word)} ${noun} open to anyone: ${trendSummary(bestLine, day)}. Median: ${trendSummary(medianLine, day)}. ${points.length} snapshots.`;
    return [
      {
        id,
        title,
        svg: lineChart({
          id,
          title,
          description,
          yLabel: '% a year',
          series: [
            { label: capital(word), ...SERIES_STYLES[0]!, points: bestLine },
            { label: 'Median', ...SERIES_STYLES[2]!, points: medianLine },
          ],
        }),
        columns: ['Date', `${capital(word)} %`, 'Median %'],
        rows: points.map((p) => [day(p.date), p.best, p.median]),
        apiUrl: range,
      },
    ];
  });
  let scatter: Chart | undefined;
  if (definition.scatter) {
    const s = definition.scatter;
    const points = latest.data.flatMap((entity) =>
      itemsOf(entity).flatMap((item) => {
        const [x, y] = [s.x(item), s.y(item)];
        return x === null || y === null
          ? []
          : [{ x, y, label: `${entity.name} · ${itemName(entity, item)}: ${s.pointText(x, y)}` }];
      }),
    );
    const id = `scatter-${dataset.slug}`;
    const description = s.description(points, snapshotDay(latest));
    scatter = {
      id,
      title: s.title,
      svg: scatterChart({ id, title: s.title, description, points, xLabel: s.xLabel, yLabel: s.yLabel }),
      columns: [s.itemLabel, s.xLabel, s.yLabel],
      rows: points.map((p) => [p.label.split(':')[0]!, p.x, p.y]),
      apiUrl: endpointsOf(dataset).list.path,
    };
  }
  const compare = definition.measures
    .filter((m) => definition.compared.includes(m.key))
    .map((m) => ({ label: m.label, url: comparisonUrl(definition, m, { type: 'all', restricted: false }) }));
  return { ...view, cards, groups, withoutRate, charts, scatter, compare, bestValues: bestValues(view) };
}

/** The best open value of each measure: the table marks the open cells that have it. */
const bestValues = (view: DatasetView) => new Map([...bestOf(view)].map(([key, best]) => [key, best.value]));

/** The measures an institution's chart can show (it had an open offer of them), the first one shown first. */
function chartMeasures(view: DatasetView, series: Map<string, { value: number | null }[]>): Measure[] {
  const used = view.definition.measures.filter((m) => series.get(m.key)!.some((p) => p.value !== null));
  const first = used.find((m) => m.key === view.definition.chartFirst) ?? used[0];
  return first ? [first, ...used.filter((m) => m !== first)] : [];
}

const entityMeasureUrl = (view: DatasetView, entity: Entity, measure: Measure, first: Measure | undefined) =>
  measure === first
    ? entityUrl(view.definition, entity.id)
    : `${entityUrl(view.definition, entity.id)}/${measure.slug}`;

/** The institution pages for the measures after the first (its own address shows the first). */
export function entityMeasurePaths(view: DatasetView): { entity: Entity; measure: Measure }[] {
  return view.latest.data.flatMap((entity) =>
    chartMeasures(view, entityTrend(view.definition, view.snapshots, entity.id))
      .slice(1)
      .map((measure) => ({ entity, measure })),
  );
}

/**
 * One institution: its table, and a chart of one measure at a time (its best open offer against
 * the best and the median open to anyone), with links to the other measures' pages.
 */
export function entityPage(view: DatasetView, entity: Entity, measureKey?: string) {
  const { dataset, definition, snapshots, latest } = view;
  const series = entityTrend(definition, snapshots, entity.id);
  const measures = chartMeasures(view, series);
  const measure = measures.find((m) => m.key === measureKey) ?? measures[0];
  const switches = definition.measures
    .filter((m) => measures.includes(m))
    .map((m) => ({
      label: m.label,
      url: `${entityMeasureUrl(view, entity, m, measures[0])}#over-time`,
      current: m === measure,
    }));
  let chart: Chart | undefined;
  if (measure) {
    const own = series.get(measure.key)!;
    const market = trendsOf(view).get(measure.key)!;
    const noun = definition.valueNoun(measure);
    const id = `entity-${dataset.slug}-${slugOf(entity.id)}-${measure.slug}`;
    const best = bestRateOf(definition, measure.key).word;
    const day = dayOf(view);
    const title = `${entity.name}: its ${best} ${noun} against the ${best} and the median open to anyone, ${snapshotDay(snapshots[0]!)} to ${snapshotDay(latest)}`;
    const listed = own.filter((p) => p.value !== null).length;
    const description = `${entity.name}: ${trendSummary(own, day)}. ${capital(best)} open to anyone: ${trendSummary(
      market.map((p) => ({ date: p.date, value: p.best })),
      day,
    )}. With an open ${noun} on ${listed} of ${snapshots.length} snapshots.`;
    chart = {
      id,
      title,
      svg: lineChart({
        id,
        title,
        description,
        yLabel: '% a year',
        series: [
          { label: entity.name, ...SERIES_STYLES[0]!, points: own },
          {
            label: `Market ${best}`,
            ...SERIES_STYLES[1]!,
            points: market.map((p) => ({ date: p.date, value: p.best })),
          },
          {
            label: 'Market median',
            ...SERIES_STYLES[2]!,
            points: market.map((p) => ({ date: p.date, value: p.median })),
          },
        ],
      }),
      columns: ['Date', `${entity.name} %`, `Market ${best} %`, 'Market median %'],
      rows: own.map((p, r) => [day(p.date), p.value, market[r]!.best, market[r]!.median]),
      apiUrl: `${endpointsOf(dataset).timeSeries.path}?startDate=${snapshots[0]!.date}&endDate=${latest.date}&${dataset.entity.param}=${entity.id}`,
    };
  }
  return {
    ...view,
    entity,
    measure,
    /** Whether this is the institution's own address (its first measure) or a measure's page. */
    ownAddress: measure === measures[0],
    switches,
    rows: definition.rows(entity),
    /** Its products with no rate at all (debit, prepaid and charge cards), listed apart from the table. */
    withoutRate: definition.withoutRate?.(entity) ?? [],
    /** The rules by which the lender itself sets who may borrow (its every offer is set apart), with their evidence. */
    lenderRules: lenderRulesOf(definition, entity),
    chart,
    apiUrl: `${endpointsOf(dataset).list.path}/${entity.id}`,
    bestValues: bestValues(view),
  };
}

/* ---- Comparison pages: every institution on one measure, best open offer first ---- */

export type TypeFilter = 'all' | LenderType;
export interface ComparisonFilter {
  type: TypeFilter;
  /** Whether restricted offers are listed too (they never decide the order). */
  restricted: boolean;
}
const TYPE_FILTERS: { type: TypeFilter; segment: string; label: string }[] = [
  { type: 'all', segment: '', label: 'All' },
  { type: 'bank', segment: 'banks', label: 'Banks' },
  { type: 'non-bank', segment: 'non-banks', label: 'Non-banks' },
];
const RESTRICTED_SEGMENT = 'with-restricted';

/** The segments after the measure's: "", "banks", "non-banks/with-restricted" … */
const filterPath = (filter: ComparisonFilter) =>
  [TYPE_FILTERS.find((t) => t.type === filter.type)!.segment, filter.restricted ? RESTRICTED_SEGMENT : '']
    .filter(Boolean)
    .join('/');

export function comparisonUrl(definition: ExplorerDefinition, measure: Measure, filter: ComparisonFilter): string {
  const rest = filterPath(filter);
  return `/rates/${definition.path}/${measure.slug}${rest ? `/${rest}` : ''}`;
}

/** The Atom feed of every change of a compared measure's lowest open rate, beside its comparison page (a static file). */
export const lowestFeedUrl = (definition: ExplorerDefinition, measure: Measure) =>
  `${comparisonUrl(definition, measure, { type: 'all', restricted: false })}/lowest.atom`;

/** Every comparison page of a dataset: each compared measure × lender type × restricted shown or not. */
export function comparisonPaths(view: DatasetView): { measure: Measure; filter: ComparisonFilter; rest?: string }[] {
  const { definition } = view;
  return definition.measures
    .filter((m) => definition.compared.includes(m.key))
    .flatMap((measure) =>
      TYPE_FILTERS.flatMap(({ type }) =>
        [false, true].map((restricted) => {
          const filter = { type, restricted };
          return { measure, filter, rest: filterPath(filter) || undefined };
        }),
      ),
    );
}

export interface ComparisonRow {
  /** Place among the institutions with an open offer (ties share one), absent for restricted-only ones. */
  rank?: number;
  entity: string;
  entityId: string;
  url: string;
  type: LenderType;
  /** The best open offer, whether it is where a range starts ("from 8.99"), and the offers that make it. */
  value?: number;
  fromRange?: boolean;
  /** The word before the value as its first offer reads ("from", "up to"), none for a single rate. */
  lead?: OfferRef['lead'];
  products: string[];
  ids: string[];
  /** Each offer making it, as the pages name it: its range, grade, a card's fee and days. */
  offers: OfferRef[];
  /** Its best open offer in the previous snapshot: a number, null when it had none, absent with no previous snapshot. */
  previous?: number | null;
  restricted: OfferRef[];
}

export function comparison(view: DatasetView, measureKey: string, filter: ComparisonFilter) {
  const { dataset, definition, snapshots, latest } = view;
  const measure = definition.measures.find((m) => m.key === measureKey)!;
  const before = snapshots.at(-2);
  const previous = new Map(
    before ? standings(definition, before.data, measure.key).map((s) => [s.entity.id, s.best?.value ?? null]) : [],
  );
  const wanted = standings(definition, latest.data, measure.key).filter(
    (s) => (filter.type === 'all' || lenderType(s.entity.id) === filter.type) && (s.best || filter.restricted),
  );
  // Best first; an entity with no open offer (or no restricted one) after every entity that has one.
  const order = bestFirst(definition, measure.key);
  const worst = bestRateOf(definition, measure.key).end === 'lowest' ? Infinity : -Infinity;
  // Lenders tied on value: the one a person pays less for next first (the dataset's tieRule).
  wanted.sort(
    (a, b) =>
      order(a.best?.value ?? worst, b.best?.value ?? worst) ||
      (a.best && b.best ? tiedOrder(a.best.who[0]!, b.best.who[0]!) : 0) ||
      order(a.restricted[0]?.offer.value ?? worst, b.restricted[0]?.offer.value ?? worst) ||
      a.entity.name.localeCompare(b.entity.name, 'en'),
  );
  let rank = 0;
  let last: number | undefined;
  const rows: ComparisonRow[] = wanted.map((s, i) => {
    if (s.best && s.best.value !== last) [rank, last] = [i + 1, s.best.value];
    const refs = s.best?.who.map((w) => refOf(definition, w)) ?? [];
    return {
      rank: s.best ? rank : undefined,
      entity: s.entity.name,
      entityId: s.entity.id,
      url: entityUrl(definition, s.entity.id),
      type: lenderType(s.entity.id),
      value: s.best?.value,
      fromRange: refs.some((r) => r.lead === 'from'),
      lead: refs[0]?.lead,
      products: [...new Set(refs.map((r) => r.product))],
      ids: s.best?.who.map((w) => w.offer.id) ?? [],
      offers: refs,
      previous: before ? (previous.has(s.entity.id) ? previous.get(s.entity.id)! : null) : undefined,
      restricted: filter.restricted ? s.restricted.map((w) => refOf(definition, w)) : [],
    };
  });
  const compared = definition.measures.filter((m) => definition.compared.includes(m.key));
  const query = definition.measureQuery?.(measure);
  return {
    ...view,
    measure,
    noun: definition.valueNoun(measure),
    filter,
    rows,
    previousDate: before?.date,
    /** The previous snapshot's day in New Zealand, as the page writes it. */
    previousDay: before && snapshotDay(before),
    measures: compared.map((m) => ({
      label: m.label,
      url: comparisonUrl(definition, m, filter),
      current: m === measure,
    })),
    types: TYPE_FILTERS.map((t) => ({
      label: t.label,
      url: comparisonUrl(definition, measure, { ...filter, type: t.type }),
      current: t.type === filter.type,
    })),
    restrictedLinks: [false, true].map((shown) => ({
      label: shown ? 'Shown' : 'Hidden',
      url: comparisonUrl(definition, measure, { ...filter, restricted: shown }),
      current: shown === filter.restricted,
    })),
    apiUrl: `${endpointsOf(dataset).list.path}${query ? `?${query}` : ''}`,
    /** A fixed term against the next longer term of whole years, from every lender's best open rates, in a sentence (none for floating or the longest term). */
    breakEven: nextTermBreakEven(dataset, latest.data, measure.key),
  };
}

/** The latest moves of every dataset, newest first. */
export function changes(views: DatasetView[], limit = 150): Move[] {
  return views
    .flatMap((view) => recentMoves(view.dataset, view.snapshots, limit))
    .sort((a, b) => b.date.localeCompare(a.date) || a.dataset.title.localeCompare(b.dataset.title))
    .slice(0, limit);
}
