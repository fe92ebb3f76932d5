/**
 * The twelve MCP tools, derived from the dataset table and the REST endpoints: each tool is one
 * REST endpoint, its arguments are that endpoint's parameters (all strings), validated by the
 * same zod schemas, and its result is the REST response.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DATASETS, type Dataset } from '../datasets.ts';
import { endpointsOf, entityIdParam, operationName, type DataEndpoint, type EndpointKind } from '../endpoints.ts';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  endpoint: DataEndpoint;
  /** Strict: an argument the tool does not take is a bad argument. */
  input: z.ZodObject;
}

function describeTool(dataset: Dataset, kind: EndpointKind): Pick<ToolDefinition, 'title' | 'description'> {
  const { entity, title } = dataset;
  const filters = dataset.filters.map((f) => ` Optional ${f.name}: ${f.description}`).join('');
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
        description: `The newest ${dataset.label} of one ${entity.kind}, by ${entity.param} (e.g. ${entity.prefix}:${entity.prefix === 'issuer' ? 'amex' : 'anz'}).${filters}`,
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

/** Path parameter (detail tools) plus the endpoint's query parameters; ignored REST parameters are not offered. */
function inputOf(endpoint: DataEndpoint): z.ZodObject {
  return endpoint.pathParam
    ? z.strictObject({ [endpoint.pathParam]: entityIdParam(endpoint.dataset), ...endpoint.query.shape })
    : endpoint.query;
}

export const TOOLS: ToolDefinition[] = DATASETS.flatMap((dataset) =>
  (['list', 'detail', 'timeSeries'] as const).map((kind) => {
    const endpoint = endpointsOf(dataset)[kind];
    return { name: operationName(endpoint), ...describeTool(dataset, kind), endpoint, input: inputOf(endpoint) };
  }),
);

/** The REST request a tool call stands for: path parameter in the path, the rest in the query. */
export function restUrl(tool: ToolDefinition, args: Record<string, string>, site: string): URL {
  const { endpoint } = tool;
  const pathParam = endpoint.pathParam;
  // toWellFormed: a lone surrogate in an argument would make encodeURIComponent throw.
  const path = pathParam ? endpoint.path.replace(`{${pathParam}}`, encodeURIComponent(args[pathParam]!.toWellFormed())) : endpoint.path;
  const url = new URL(path, site);
  for (const [key, value] of Object.entries(args)) if (key !== pathParam) url.searchParams.set(key, value);
  return url;
}

/** The JSON Schema an agent sees, from the same zod object that validates the call. */
export function inputSchemaOf(tool: ToolDefinition): Tool['inputSchema'] {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, { target: 'draft-2020-12' }) as Record<string, unknown>;
  return schema as Tool['inputSchema'];
}
