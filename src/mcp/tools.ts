/**
 * The MCP tools, three per dataset, derived from the dataset table and the REST endpoints: each tool is one
 * REST endpoint, its arguments are that endpoint's parameters (strings, validated by the same zod
 * schemas), its result is the REST response, and its outputSchema is the zod schema the OpenAPI
 * document gives that response. Everything here is built once per process.
 */
import { z } from 'zod';
import { DATASETS, filtersOf, type Dataset } from '../datasets.ts';
import {
  endpointsOf,
  entityIdParam,
  exampleEntityId,
  operationName,
  type DataEndpoint,
  type EndpointKind,
} from '../endpoints.ts';

type JsonSchema = {
  type: 'object';
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
} & Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  title: string;
  /** What the tool does, without the size figures (those come from the data, see catalog.ts). */
  description: string;
  endpoint: DataEndpoint;
  kind: EndpointKind;
  /** The arguments the tool takes (strict): the REST endpoint's parameters. */
  input: z.ZodObject;
  /** REST parameters accepted and ignored (credit-card time series: institutionId). */
  ignored: readonly string[];
  /** Arguments that are strings of digits, for which a JSON number is accepted too. */
  digits: ReadonlySet<string>;
  /** No argument is required: `{}` is valid without a look at the schema. */
  takesNothingRequired: boolean;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

/** The id the examples use (the endpoints' parameter descriptions use the same). */
export const exampleId = (dataset: Dataset) => exampleEntityId(dataset);

export const listToolName = (dataset: Dataset) => operationName(endpointsOf(dataset).list);
export const timeSeriesToolName = (dataset: Dataset) => operationName(endpointsOf(dataset).timeSeries);

function describeTool(dataset: Dataset, kind: EndpointKind): Pick<ToolDefinition, 'title' | 'description'> {
  const { entity, title } = dataset;
  const filters = filtersOf(dataset, kind)
    .map((f) => ` Optional ${f.name}: ${f.description}`)
    .join('');
  const list = listToolName(dataset);
  switch (kind) {
    case 'list':
      return {
        title: `List ${title.toLowerCase()}`,
        description:
          `The newest ${dataset.label} of every New Zealand ${entity.kind} (collected hourly from interest.co.nz), ` +
          `with each ${entity.kind}'s id for the other ${dataset.label} tools.${filters}`,
      };
    case 'detail':
      return {
        title: `Get ${title.toLowerCase()} by ${entity.kind}`,
        description: `The newest ${dataset.label} of one ${entity.kind}, by ${entity.param} (e.g. ${exampleId(dataset)}; ${list} lists every id).${filters}`,
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

const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  // No $schema: clients validate with their own draft; the keywords used here mean the same in all.
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest as JsonSchema;
};

/** Path parameter (detail tools) plus the endpoint's query parameters. */
function inputOf(endpoint: DataEndpoint): z.ZodObject {
  return endpoint.pathParam
    ? z.strictObject({ [endpoint.pathParam]: entityIdParam(endpoint.dataset), ...endpoint.query.shape })
    : endpoint.query;
}

function inputSchemaOf(endpoint: DataEndpoint, input: z.ZodObject, digits: ReadonlySet<string>): JsonSchema {
  const schema = jsonSchemaOf(input);
  const properties = (schema.properties ??= {});
  const list = listToolName(endpoint.dataset);
  for (const [name, property] of Object.entries(properties)) {
    // What REST's parameter descriptions point to (GET /api/v1/…) is a tool here.
    if (typeof property.description === 'string')
      property.description = property.description.replace(/GET \/api\/v1\/[a-z-]+/, list);
    if (digits.has(name))
      property.description =
        `${property.description ?? ''} A string of digits such as "12"; a JSON number (12) is accepted too.`.trim();
  }
  for (const name of endpoint.ignoredQuery) {
    properties[name] = {
      type: 'string',
      description: `Accepted and ignored, as by the REST endpoint (${endpoint.dataset.title.toLowerCase()} are by ${endpoint.dataset.entity.kind}: use ${endpoint.dataset.entity.param}).`,
    };
  }
  return schema;
}

/** The filters whose values are whole numbers (ItemFilter.wholeNumber): a JSON number is taken for them too. */
const digitArguments = (endpoint: DataEndpoint): Set<string> =>
  new Set(
    filtersOf(endpoint.dataset, endpoint.kind)
      .filter((filter) => filter.wholeNumber)
      .map((filter) => filter.name),
  );

/** A dataset's three tools, one per endpoint. */
export const toolsFor = (dataset: Dataset): ToolDefinition[] =>
  (['list', 'detail', 'timeSeries'] as const).map((kind) => {
    const endpoint = endpointsOf(dataset)[kind];
    const input = inputOf(endpoint);
    const digits = digitArguments(endpoint);
    return {
      name: operationName(endpoint),
      ...describeTool(dataset, kind),
      endpoint,
      kind,
      input,
      ignored: endpoint.ignoredQuery,
      digits,
      takesNothingRequired: input.safeParse({}).success,
      inputSchema: inputSchemaOf(endpoint, input, digits),
      outputSchema: jsonSchemaOf(kind === 'timeSeries' ? dataset.schemas.timeSeries : dataset.schemas.envelope),
    };
  });

export const TOOLS: ToolDefinition[] = DATASETS.flatMap(toolsFor);

export const TOOL_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

const isEmptyObject = (value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

/** A caller's value quoted for a message, cut short so a huge value cannot bloat the answer. */
export function quoteValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

const describeType = (value: unknown) =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;

/**
 * The arguments as the REST endpoint's parameters, or what is wrong with them, said so that an
 * agent can send the call again right: the arguments the tool takes, and the exact string form.
 */
export function readArguments(
  tool: ToolDefinition,
  args: unknown,
): { values: Record<string, string> } | { problems: string } {
  const takes = () => {
    const names = [...Object.keys(tool.input.shape), ...tool.ignored];
    return names.length ? `${tool.name} takes: ${names.join(', ')}.` : `${tool.name} takes no arguments.`;
  };
  if (args === undefined) args = {};
  if (tool.takesNothingRequired && isEmptyObject(args)) return { values: {} };
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return { problems: `arguments must be an object of named strings, not ${describeType(args)}. ${takes()}` };

  const problems: string[] = [];
  const values: Record<string, string> = {};
  const unknown = Object.keys(args).filter(
    (key) => !Object.hasOwn(tool.input.shape, key) && !tool.ignored.includes(key),
  );
  if (unknown.length > 0)
    problems.push(`${tool.name} does not take ${unknown.map((k) => quoteValue(k)).join(', ')}. ${takes()}`);
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (unknown.includes(key)) continue;
    if (typeof value === 'string') values[key] = value;
    else if (typeof value === 'number' && tool.digits.has(key) && Number.isSafeInteger(value) && value >= 0)
      values[key] = String(value);
    else if (typeof value === 'number' || typeof value === 'boolean')
      problems.push(`${key} must be a string: send "${key}": ${JSON.stringify(String(value))}`);
    else if (value !== undefined) problems.push(`${key} must be a string, not ${describeType(value)}`);
  }
  if (problems.length === 0) {
    const accepted = Object.fromEntries(Object.entries(values).filter(([key]) => !tool.ignored.includes(key)));
    const result = tool.input.safeParse(accepted);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const key = String(issue.path[0] ?? '');
        if (issue.code === 'invalid_type' && accepted[key] === undefined) {
          const example = tool.endpoint.pathParam === key ? ` such as "${exampleId(tool.endpoint.dataset)}"` : '';
          problems.push(`${key} is required${example}`);
        } else problems.push(`${key} ${issue.message} (got ${quoteValue(accepted[key] ?? '')})`);
      }
    }
  }
  const text = problems.join('; ');
  return problems.length ? { problems: text.endsWith('.') ? text : `${text}.` } : { values };
}

/** The REST request a tool call stands for: path parameter in the path, the rest in the query. */
export function restUrl(tool: ToolDefinition, args: Record<string, string>, site: string): URL {
  const { endpoint } = tool;
  const pathParam = endpoint.pathParam;
  // toWellFormed: a lone surrogate in an argument would make encodeURIComponent throw.
  const path = pathParam
    ? endpoint.path.replace(`{${pathParam}}`, encodeURIComponent(args[pathParam]!.toWellFormed()))
    : endpoint.path;
  const url = new URL(path, site);
  for (const [key, value] of Object.entries(args)) if (key !== pathParam) url.searchParams.set(key, value);
  return url;
}

const TOOL_FOR_PATH = new Map(TOOLS.filter((t) => t.kind !== 'detail').map((t) => [t.endpoint.path, t.name]));

/**
 * A REST error text as an agent should read it: where REST points to a request
 * (`GET /api/v1/<slug>`, `Request …/time-series without date parameters`), the tool to call.
 */
export function forAgents(text: string): string {
  return text
    .replace(/Request (\/api\/v1\/[a-z-]+\/time-series) without date parameters/g, (whole, path: string) => {
      const tool = TOOL_FOR_PATH.get(path);
      return tool ? `Call ${tool} without date arguments` : whole;
    })
    .replace(/GET (\/api\/v1\/[a-z-]+)(?![a-z/-])/g, (whole, path: string) => TOOL_FOR_PATH.get(path) ?? whole);
}
