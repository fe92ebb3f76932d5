/**
 * The tools that are REST endpoints' twins, six per dataset, from the dataset table and the
 * endpoints (the five of src/endpoints.ts and the change log, src/changes/endpoint.ts): a tool's
 * arguments are its endpoint's parameters (strings, validated by the same zod schemas), its result
 * is the REST answer, and its outputSchema is the schema the OpenAPI document gives that answer.
 */
import { changesEndpointOf, type ChangesEndpoint, DEFAULT_DAYS } from '../changes/endpoint.ts';
import { changesOutputOf } from '../changes/schema.ts';
import { filtersOf, type Dataset, type ItemFilter } from '../datasets.ts';
import {
  endpointsOf,
  entityIdParam,
  exampleEntityId,
  filterDescription,
  operationName,
  type DataEndpoint,
  type EndpointKind,
} from '../endpoints.ts';
import { z } from 'zod';
import { EXPLORER } from '../explorer/definitions.ts';
import { lowestSchemaOf } from '../explorer/lowest.ts';
import { quoteSchemaOf } from '../explorer/quote.ts';
import { bestRatesOf, bestWordOf } from '../explorer/best.ts';
import { defineTool, jsonSchemaOf, type Arguments, type Tool } from './tool.ts';
import { listInWords } from '../lib/words.ts';
import { MAX_QUOTED_RATE } from '../schemas/params.ts';

/** An endpoint with a twin tool: one of src/endpoints.ts's, or the change log. */
export type TwinKind = EndpointKind | ChangesEndpoint['kind'];
type TwinEndpoint = DataEndpoint | ChangesEndpoint;

/**
 * The endpoints each dataset has a twin tool of, in groups as they came: the tool list gives each
 * group for every dataset before the next group, so a tool added later never moves one before it
 * (/docs/stability).
 */
export const REST_TOOL_GROUPS = [
  ['list', 'detail', 'timeSeries'],
  ['lowest'],
  ['changes'],
  ['quote'],
] as const satisfies readonly (readonly TwinKind[])[];

/** The endpoints each dataset has a twin tool of. */
export const REST_TOOL_KINDS: readonly TwinKind[] = REST_TOOL_GROUPS.flat();

/** The twins whose endpoints take the dataset's item filters (termInMonths …): all but the change log's, which lists values. */
export const FILTERED_TOOL_KINDS = REST_TOOL_KINDS.filter((kind): kind is EndpointKind => kind !== 'changes');

const twinEndpoint = (dataset: Dataset, kind: TwinKind): TwinEndpoint =>
  kind === 'changes' ? changesEndpointOf(dataset) : endpointsOf(dataset)[kind];

/** A twin's name: its endpoint's operation name, and `get_<slug>_changes` for the change log. */
const twinName = (endpoint: TwinEndpoint): string =>
  endpoint.kind === 'changes' ? `get_${endpoint.dataset.slug.replaceAll('-', '_')}_changes` : operationName(endpoint);

/** The name of a dataset's twin of one kind (`get_<slug>_changes` for the change log), for texts that name it. */
export const twinToolName = (dataset: Dataset, kind: TwinKind): string => twinName(twinEndpoint(dataset, kind));

/** The filters of the dataset an endpoint takes: the change log takes none. */
const filtersAt = (dataset: Dataset, kind: TwinKind): readonly ItemFilter[] =>
  kind === 'changes' ? [] : filtersOf(dataset, kind);

export const listToolName = (dataset: Dataset) => operationName(endpointsOf(dataset).list);

/** The names of the dataset's tools whose endpoint takes the filter (all of them unless it declares `only`). */
export function toolsTaking(dataset: Dataset, filter: ItemFilter): string[] {
  return REST_TOOL_KINDS.filter((kind) => filtersAt(dataset, kind).includes(filter)).map((kind) =>
    twinName(twinEndpoint(dataset, kind)),
  );
}

function describeTool(dataset: Dataset, kind: TwinKind): { title: string; description: string } {
  const { entity, title } = dataset;
  const filters = filtersAt(dataset, kind)
    .map((f) => {
      // A filter some of the dataset's tools do not take says which take it, so an agent does not try it elsewhere.
      const tools = toolsTaking(dataset, f);
      const only =
        tools.length < REST_TOOL_KINDS.filter((k) => k !== 'changes').length ? ` (${listInWords(tools)} only)` : '';
      return ` Optional ${f.name}${only}: ${kind === 'changes' ? f.description : filterDescription(f, kind)}`;
    })
    .join('');
  const list = listToolName(dataset);
  switch (kind) {
    case 'list':
      return {
        title: `List ${title.toLowerCase()}`,
        description:
          `The newest ${dataset.label} of every New Zealand ${entity.kind} (as last collected from interest.co.nz), ` +
          `with each ${entity.kind}'s id for the other ${dataset.label} tools.${filters}`,
      };
    case 'detail':
      return {
        title: `Get ${title.toLowerCase()} by ${entity.kind}`,
        description: `The newest ${dataset.label} of one ${entity.kind}, by ${entity.param} (e.g. ${exampleEntityId(dataset)}; ${list} lists every id).${filters}`,
      };
    case 'lowest': {
      const { measureName } = EXPLORER[dataset.slug];
      const { always, sometimes } = offerFields(dataset);
      // The best rate as the dataset declares it (src/explorer/best.ts); the tool keeps the endpoint's name.
      const best = bestWordOf(EXPLORER[dataset.slug]);
      const better = bestRatesOf(EXPLORER[dataset.slug])
        .map((r) => r.side)
        .join(' or ');
      return {
        title: `Get the ${best} ${dataset.label}`,
        description:
          `The ${best} newest ${dataset.label} open to anyone, per ${measureName.toLowerCase()}, as the site's rates explorer shows them: ` +
          `the rate, the offers that make it (each with ${always.join(', ')}; and, where it has them, ${listInWords(sometimes)}), ` +
          `and the restricted offers ${better} it set apart, each with whom it is for. Optional ${entity.param} keeps one ${entity.kind} (${list} lists every id).${filters}`,
      };
    }
    case 'quote': {
      const definition = EXPLORER[dataset.slug];
      const best = bestWordOf(definition);
      const lowest = operationName(endpointsOf(dataset).lowest);
      return {
        title: `Check a rate against the ${dataset.label}`,
        description:
          `Where a rate someone was offered stands among the newest ${dataset.label} open to anyone of one measure: ` +
          `how many open offers are lower, equal and higher (count, lower, equal, higher), its percentile (the share of open offers no better than it), ` +
          `the ${best} and the median open rate, and the offers that make the ${best}, named as ${lowest} names them. ` +
          `Give rate (percent a year, 0 to ${MAX_QUOTED_RATE}) and measure, one of ${definition.measures.map((m) => `"${m.key}"${m.key === m.label.toLowerCase() ? '' : ` (${m.label.toLowerCase()})`}`).join(', ')}. ` +
          `Optional ${entity.param} adds that ${entity.kind}'s own offers of the measure, open and restricted (${list} lists every id); ` +
          `the rate is still placed among every ${entity.kind}'s open offers.${filters}`,
      };
    }
    case 'changes':
      return {
        title: `Get ${dataset.label} changes`,
        description:
          `What changed in the ${dataset.label}, per snapshot date from since to until (inclusive, oldest first): each value that changed, ` +
          `was added or was removed compared with the snapshot before, with its direction (up, down, new, gone) and, for a rate, bps: ` +
          `the move in whole basis points (−25 is down 0.25 percentage points). since defaults to ${DEFAULT_DAYS} days before until, until to the newest snapshot. ` +
          `Optional ${entity.param} keeps one ${entity.kind} (any ever listed; ${list} lists the current ids); direction keeps some directions (down,new); ` +
          'minBps keeps rate moves of at least that many basis points either way (new and gone values, and fees, have none).',
      };
    case 'timeSeries':
      return {
        title: `Get ${title.toLowerCase()} time series`,
        description:
          `Earlier ${dataset.label} from daily snapshots. Give date (one day) or startDate with endDate (inclusive range); ` +
          `with no date the result lists availableDates. A snapshot exists only on dates when rates changed; ` +
          `on other dates the rates equal the nearest earlier snapshot. Optional ${entity.param} keeps one ${entity.kind}.${filters}`,
      };
  }
}

/** The fields of one offer of a dataset's lowest rates, as the answer's schema names them: those every offer has, and the others. */
function offerFields(dataset: Dataset): { always: string[]; sometimes: string[] } {
  const measure = (lowestSchemaOf(dataset).shape.data as z.ZodArray<z.ZodObject>).element;
  const offer = (measure.shape.offers as z.ZodArray<z.ZodObject>).element;
  const fields = Object.entries(offer.shape);
  const optional = (schema: z.ZodType) => schema.safeParse(undefined).success;
  return {
    always: fields.filter(([, schema]) => !optional(schema)).map(([name]) => name),
    sometimes: fields.filter(([, schema]) => optional(schema)).map(([name]) => name),
  };
}

/** Path parameter (detail tools) plus the endpoint's query parameters. */
function inputOf(endpoint: TwinEndpoint): z.ZodObject {
  return 'pathParam' in endpoint && endpoint.pathParam
    ? z.strictObject({ [endpoint.pathParam]: entityIdParam(endpoint.dataset), ...endpoint.query.shape })
    : endpoint.query;
}

/** The input's JSON schema, with the parameters the REST endpoint accepts and ignores. */
function inputSchemaOf(endpoint: TwinEndpoint, input: z.ZodObject) {
  const schema = jsonSchemaOf(input);
  const properties = (schema.properties ??= {});
  for (const name of endpoint.ignoredQuery) {
    properties[name] = {
      type: 'string',
      description: `Accepted and ignored, as by the REST endpoint (${endpoint.dataset.title.toLowerCase()} are by ${endpoint.dataset.entity.kind}: use ${endpoint.dataset.entity.param}).`,
    };
  }
  return schema;
}

/** The REST request a call stands for: path parameter in the path, the rest in the query. */
function restTarget(endpoint: TwinEndpoint, args: Arguments): string {
  const pathParam = 'pathParam' in endpoint ? endpoint.pathParam : undefined;
  // toWellFormed: a lone surrogate in an argument would make encodeURIComponent throw.
  const path = pathParam
    ? endpoint.path.replace(`{${pathParam}}`, encodeURIComponent(args[pathParam]!.toWellFormed()))
    : endpoint.path;
  // As a URL reads it (dot segments resolved), so the kept answers' key is the REST request's own.
  const url = new URL(path, 'http://tool.invalid');
  for (const [key, value] of Object.entries(args)) if (key !== pathParam) url.searchParams.set(key, value);
  return `${url.pathname}${url.search}`;
}

const OUTPUT = {
  list: (dataset: Dataset) => dataset.schemas.envelope,
  detail: (dataset: Dataset) => dataset.schemas.envelope,
  timeSeries: (dataset: Dataset) => dataset.schemas.timeSeries,
  lowest: lowestSchemaOf,
  quote: quoteSchemaOf,
  changes: changesOutputOf,
} satisfies Record<TwinKind, (dataset: Dataset) => z.ZodType>;

/** Arguments of digits besides the filters': the change log's minBps. */
const DIGITS: Partial<Record<TwinKind, readonly string[]>> = { changes: ['minBps'] };
/** A twin's arguments that are decimal numbers (a quote's rate), which a JSON number may give too. */
const DECIMALS: Partial<Record<TwinKind, readonly string[]>> = { quote: ['rate'] };

/** Arguments that work: the example entity of a detail tool; a rate and the measure an institution's chart shows first for a quote check. */
function exampleArguments(endpoint: TwinEndpoint): Arguments {
  const { dataset } = endpoint;
  if ('pathParam' in endpoint && endpoint.pathParam) return { [endpoint.pathParam]: exampleEntityId(dataset) };
  return endpoint.kind === 'quote' ? { rate: '6', measure: EXPLORER[dataset.slug].chartFirst } : {};
}

/** A dataset's twin tools, one per endpoint (of the groups given: all of them by default). */
export const restToolsOf = (dataset: Dataset, kinds: readonly TwinKind[] = REST_TOOL_KINDS): Tool[] =>
  kinds.map((kind) => {
    const endpoint = twinEndpoint(dataset, kind);
    const input = inputOf(endpoint);
    return defineTool({
      name: twinName(endpoint),
      ...describeTool(dataset, kind),
      input,
      inputSchema: inputSchemaOf(endpoint, input),
      output: OUTPUT[kind](dataset),
      example: exampleArguments(endpoint),
      ignored: endpoint.ignoredQuery,
      digits: new Set([
        ...filtersAt(dataset, kind)
          .filter((filter) => filter.wholeNumber)
          .map((filter) => filter.name),
        ...(DIGITS[kind] ?? []),
      ]),
      decimals: new Set(DECIMALS[kind] ?? []),
      dataset,
      sizes: kind,
      forward: (args) => restTarget(endpoint, args),
    });
  });
