/**
 * What each explorer page shows, as plain data for the Astro templates: computed at build time
 * from the compiled history, with the charts already drawn.
 */
import { DATASETS, type Dataset, type Entity, itemsOf } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import type { CompiledStore } from '../store/compile.ts';
import { lineChart, PALETTE, scatterChart } from './chart.ts';
import { EXPLORER, type Cell, type ExplorerDefinition, type Measure } from './definitions.ts';
import {
  entityTrend,
  lowestByMeasure,
  recentMoves,
  snapshotsOf,
  trends,
  type Move,
  type SnapshotObjects,
} from './history.ts';

export const slugOf = (id: string) => id.slice(id.indexOf(':') + 1);
export const entityUrl = (definition: ExplorerDefinition, id: string) => `/rates/${definition.path}/${slugOf(id)}`;
const rate = (n: number) => `${n.toFixed(2)} %`;
const longDate = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-NZ', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });

export interface Chart {
  id: string;
  title: string;
  svg: string;
  /** The chart as a table, for its text alternative: a row per date. */
  columns: string[];
  rows: (string | number | null)[][];
  apiUrl: string;
}

export interface LowestCard {
  measure: Measure;
  noun: string;
  value: number;
  who: { entity: string; url: string; product: string; id: string }[];
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
}

export function datasetViews(store: CompiledStore): DatasetView[] {
  return DATASETS.flatMap((dataset) => {
    const compiled = store.datasets[dataset.slug];
    if (!compiled || compiled.dates.length === 0) return [];
    const snapshots = snapshotsOf(dataset, compiled);
    const definition = EXPLORER[dataset.slug];
    return [{ dataset, definition, url: `/rates/${definition.path}`, snapshots, latest: snapshots.at(-1)! }];
  });
}

function trendSummary(points: { date: string; value: number | null }[]): string {
  const known = points.filter((p) => p.value !== null);
  if (known.length === 0) return 'no data';
  const first = known[0]!;
  const last = known.at(-1)!;
  const values = known.map((p) => p.value!);
  return `${rate(first.value!)} on ${longDate(first.date)}, ${rate(last.value!)} on ${longDate(last.date)} (between ${rate(Math.min(...values))} and ${rate(Math.max(...values))})`;
}

export function overview(view: DatasetView) {
  const { dataset, definition, snapshots, latest } = view;
  const lowest = lowestByMeasure(definition, latest.data);
  const cards: LowestCard[] = definition.measures.flatMap((measure) => {
    const best = lowest.get(measure.key);
    if (!best) return [];
    return [
      {
        measure,
        noun: definition.valueNoun(measure),
        value: best.value,
        who: best.who.map((w) => ({
          entity: w.entity.name,
          url: entityUrl(definition, w.entity.id),
          product: w.item.name,
          id: w.offer.id,
        })),
      },
    ];
  });
  const groups: TableGroup[] = latest.data.map((entity) => ({
    entity,
    url: entityUrl(definition, entity.id),
    rows: definition.rows(entity),
  }));
  const first = snapshots[0]!.date;
  const range = `${endpointsOf(dataset).timeSeries.path}?startDate=${first}&endDate=${latest.date}`;
  const byMeasure = trends(definition, snapshots);
  const charts: Chart[] = definition.measures.flatMap((measure, i) => {
    const points = byMeasure.get(measure.key)!;
    if (points.every((p) => p.lowest === null)) return [];
    const noun = definition.valueNoun(measure);
    const lowestLine = points.map((p) => ({ date: p.date, value: p.lowest }));
    const medianLine = points.map((p) => ({ date: p.date, value: p.median }));
    const title = `${noun[0]!.toUpperCase()}${noun.slice(1)}: lowest and median, ${longDate(first)} to ${longDate(latest.date)}`;
    const description = `Lowest ${noun}: ${trendSummary(lowestLine)}. Median: ${trendSummary(medianLine)}. ${points.length} snapshots.`;
    return [
      {
        id: `trend-${dataset.slug}-${measure.key}`,
        title,
        svg: lineChart({
          id: `trend-${dataset.slug}-${measure.key}`,
          title,
          description,
          yLabel: '% a year',
          series: [
            { label: 'Lowest', color: PALETTE[i % PALETTE.length]!, points: lowestLine },
            { label: 'Median', color: '#8a949e', dashed: true, points: medianLine },
          ],
        }),
        columns: ['Date', 'Lowest %', 'Median %'],
        rows: points.map((p) => [p.date, p.lowest, p.median]),
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
          : [{ x, y, label: `${entity.name} · ${item.name}: ${rate(y)}, $${x} a year` }];
      }),
    );
    const id = `scatter-${dataset.slug}`;
    const cheapest = [...points].sort((a, b) => a.x - b.x || a.y - b.y)[0];
    const description =
      `${points.length} cards with a purchase rate and an annual fee on ${longDate(latest.date)}. ` +
      (cheapest ? `Lowest fee: ${cheapest.label}. ` : '') +
      `Purchase rates range from ${rate(Math.min(...points.map((p) => p.y)))} to ${rate(Math.max(...points.map((p) => p.y)))}.`;
    scatter = {
      id,
      title: s.title,
      svg: scatterChart({ id, title: s.title, description, points, xLabel: s.xLabel, yLabel: s.yLabel }),
      columns: ['Card', s.xLabel, s.yLabel],
      rows: points.map((p) => [p.label.split(':')[0]!, p.x, p.y]),
      apiUrl: endpointsOf(dataset).list.path,
    };
  }
  return { ...view, cards, groups, charts, scatter, lowestValues: new Map(cards.map((c) => [c.measure.key, c.value])) };
}

export function entityPage(view: DatasetView, entity: Entity) {
  const { dataset, definition, snapshots, latest } = view;
  const series = entityTrend(definition, snapshots, entity.id);
  const used = definition.measures.filter((m) => series.get(m.key)!.some((p) => p.value !== null));
  const dates = series.get(definition.measures[0]!.key)!.map((p) => p.date);
  const id = `entity-${dataset.slug}-${slugOf(entity.id)}`;
  const title = `${entity.name}: its lowest ${definition.title.toLowerCase()} over time`;
  const summaries = used.map((m) => `${m.label}: ${trendSummary(series.get(m.key)!)}`).join('. ');
  const description = `${summaries}. Listed on ${dates.length} of ${snapshots.length} snapshots.`;
  const chart: Chart = {
    id,
    title,
    svg: lineChart({
      id,
      title,
      description,
      yLabel: '% a year',
      series: used.map((m, i) => ({ label: m.label, color: PALETTE[i % PALETTE.length]!, points: series.get(m.key)! })),
    }),
    columns: ['Date', ...used.map((m) => `${m.label} %`)],
    rows: dates.map((date, r) => [date, ...used.map((m) => series.get(m.key)![r]!.value)]),
    apiUrl: `${endpointsOf(dataset).timeSeries.path}?startDate=${snapshots[0]!.date}&endDate=${latest.date}&${dataset.entity.param}=${entity.id}`,
  };
  const lowest = lowestByMeasure(definition, latest.data);
  return {
    ...view,
    entity,
    rows: definition.rows(entity),
    chart,
    apiUrl: `${endpointsOf(dataset).list.path}/${entity.id}`,
    lowestValues: new Map([...lowest].map(([key, best]) => [key, best.value])),
  };
}

/** The latest moves of every dataset, newest first. */
export function changes(views: DatasetView[], limit = 150): Move[] {
  return views
    .flatMap((view) => recentMoves(view.dataset, view.snapshots, limit))
    .sort((a, b) => b.date.localeCompare(a.date) || a.dataset.title.localeCompare(b.dataset.title))
    .slice(0, limit);
}
