/**
 * Datasets picked by what a test needs of them, never by name (test/dataset-mentions.test.ts):
 * by the schema of the data a test writes, or by a property of the table entry.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { DATASETS, type Dataset, filtersOf, type ItemFilter } from '../../src/datasets.ts';
import { type EndpointKind, endpointsOf } from '../../src/endpoints.ts';
import { changesEndpointOf } from '../../src/changes/endpoint.ts';
import { restToolsOf } from '../../src/mcp/rest-tools.ts';
import { breakEvenEndpointOf } from '../../src/api/break-even.ts';
import { breakEvenToolName } from '../../src/mcp/tools/break-even.ts';
import { OWN_TOOLS } from '../../src/mcp/tool-table.ts';

/** The first dataset whose entities have `schema`: for a test that writes data of that shape. */
export function datasetOfSchema(schema: z.ZodType): Dataset {
  const found = DATASETS.find((d) => d.entitySchema === schema);
  if (!found) throw new Error('no dataset has this entity schema');
  return found;
}

/** Every dataset whose entities have `schema`. */
export const datasetsOfSchema = (schema: z.ZodType): Dataset[] => DATASETS.filter((d) => d.entitySchema === schema);

/** Every filter of every dataset, each with its dataset, whichever endpoints take it. */
export const FILTERS: readonly { dataset: Dataset; filter: ItemFilter }[] = DATASETS.flatMap((dataset) =>
  (dataset.filters as readonly ItemFilter[]).map((filter) => ({ dataset, filter })),
);

/** Every filter the `kind` endpoint of its dataset takes (all of them but those whose `only` leaves it out). */
export const filtersAt = (kind: EndpointKind) =>
  FILTERS.filter(({ dataset, filter }) => filtersOf(dataset, kind).includes(filter));

/** The filters' example values, every filter the `kind` endpoint of the dataset takes: a request filtered all it can be. */
export const examplesAt = (dataset: Dataset, kind: EndpointKind): Record<string, string> =>
  Object.fromEntries(filtersOf(dataset, kind).map((f) => [f.name, f.example]));

/** The datasets whose time series accepts and ignores a parameter. */
export const IGNORING = DATASETS.filter((d) => d.ignoredTimeSeriesParams.length > 0);

/** The first dataset of each entity kind (institutions, issuers). */
export const ONE_OF_EACH_KIND: Dataset[] = [...new Map(DATASETS.map((d) => [d.entity.kind, d])).values()];

/** `[slug, dataset]` rows for `it.each` and `describe.each`. */
export const EACH = DATASETS.map((d) => [d.slug, d] as const);

/** A dataset's first five MCP tools' names: its list, its detail, its time series, its lowest rates and its change log. */
export function toolNamesOf(dataset: Dataset): {
  list: string;
  detail: string;
  series: string;
  lowest: string;
  changes: string;
} {
  const [list, detail, series, lowest, changes] = restToolsOf(dataset).map((t) => t.name) as [
    string,
    string,
    string,
    string,
    string,
  ];
  return { list, detail, series, lowest, changes };
}

/** The dataset whose test history is largest on disk: for limits that only a long history reaches. */
export async function largestDataset(dir: string): Promise<Dataset> {
  const bytes = async (slug: string) => {
    const names = await readdir(join(dir, slug));
    const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, slug, name))).size));
    return sizes.reduce((a, b) => a + b, 0);
  };
  const sized = await Promise.all(DATASETS.map(async (d) => ({ d, size: await bytes(d.slug) })));
  return sized.sort((a, b) => b.size - a.size)[0]!.d;
}

/** One call of a tool with the REST request that must answer the same JSON. */
export interface ToolCallCase {
  tool: string;
  args: Record<string, string>;
  rest: string;
}

/**
 * A call of every tool, each with its REST request: each dataset's list (filtered where it can be),
 * its example entity (the prefix kept, the slug in capitals: ids match case-insensitively), its time
 * series three ways in turn (a range for the entity by its bare slug, one date, no date), each
 * parameter its time series ignores, its lowest rates of the example entity, filtered where
 * they can be, where it has fixed terms its break-even rates of the example entity, and its change
 * log three ways in turn (the whole history's rate cuts of 10 basis points or more, the example
 * entity's since a date, the default); then each tool of the table's own that is an endpoint's
 * twin, with its example. `newest` gives each dataset's newest snapshot date.
 */
export function toolCallCases(newest: Record<string, string>): ToolCallCase[] {
  const query = (values: Record<string, string>) => {
    const q = new URLSearchParams(values).toString();
    return q ? `?${q}` : '';
  };
  const minusDays = (date: string, days: number) =>
    new Date(Date.parse(date) - days * 86_400_000).toISOString().slice(0, 10);
  return DATASETS.flatMap((d, n) => {
    const names = toolNamesOf(d);
    const { list, detail, timeSeries, lowest, quote } = endpointsOf(d);
    const { param, prefix } = d.entity;
    const bare = d.exampleEntityId.slice(d.exampleEntityId.indexOf(':') + 1);
    const date = newest[d.slug]!;
    const filtered = examplesAt(d, 'list');
    const detailFiltered = examplesAt(d, 'detail');
    const series: Record<string, string> = [
      { startDate: minusDays(date, 4), endDate: date, [param]: bare },
      { date },
      {},
    ][n % 3]!;
    const shouted = `${prefix}:${bare.toUpperCase()}`;
    const other = prefix === 'issuer' ? 'institution' : 'issuer';
    const lowestArgs = { [param]: shouted, ...examplesAt(d, 'lowest') };
    const changesArgs: Record<string, string> = [
      { since: '2000-01-01', direction: 'down', minBps: '10' },
      { [param]: shouted, since: minusDays(date, 365) },
      {},
    ][n % 3]!;
    // A term the filters name (mortgages), else the measure an institution's chart shows first. The
    // rate has a leading zero so that every client sends it as the string it is: the Inspector CLI
    // sends whatever reads as JSON (7.5) as a number, which a tool, taking strings, refuses.
    const quoteArgs: Record<string, string> = {
      rate: '07.5',
      ...(Object.keys(examplesAt(d, 'quote')).length
        ? examplesAt(d, 'quote')
        : { measure: restToolsOf(d, ['quote'])[0]!.example.measure! }),
      [param]: shouted,
    };
    return [
      { tool: names.list, args: filtered, rest: `${list.path}${query(filtered)}` },
      {
        tool: names.detail,
        args: { [param]: shouted, ...detailFiltered },
        rest: `${detail.path.replace(`{${param}}`, encodeURIComponent(shouted))}${query(detailFiltered)}`,
      },
      { tool: names.series, args: series, rest: `${timeSeries.path}${query(series)}` },
      ...d.ignoredTimeSeriesParams.map((ignored) => {
        const args = { date, [ignored]: `${other}:anz` };
        return { tool: names.series, args, rest: `${timeSeries.path}${query(args)}` };
      }),
      {
        tool: names.lowest,
        args: lowestArgs,
        rest: `${lowest.path}${query(lowestArgs)}`,
      },
      ...(breakEvenEndpointOf(d)
        ? [
            {
              tool: breakEvenToolName(d),
              args: { [param]: shouted },
              rest: `${breakEvenEndpointOf(d)!.path}${query({ [param]: shouted })}`,
            },
          ]
        : []),
      { tool: names.changes, args: changesArgs, rest: `${changesEndpointOf(d).path}${query(changesArgs)}` },
      { tool: restToolsOf(d, ['quote'])[0]!.name, args: quoteArgs, rest: `${quote.path}${query(quoteArgs)}` },
    ];
  }).concat(
    // The tools of the table's own that are an endpoint's twin (health, the status figures), called with their example.
    OWN_TOOLS.flatMap((tool) =>
      'forward' in tool ? [{ tool: tool.name, args: tool.example, rest: tool.forward(tool.example) }] : [],
    ),
  );
}
