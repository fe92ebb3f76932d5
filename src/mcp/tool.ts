/**
 * What an MCP tool is. Each tool is declared once, in the table (src/mcp/tool-table.ts), with its
 * arguments (a strict zod object of strings), its description, its result's schema and its call;
 * `tools/list`, the docs' tool table, the instructions and the tests all read that table.
 *
 * A call is one of two kinds:
 * - `forward`: the tool is a REST endpoint's twin, and its result is that endpoint's answer
 *   (src/mcp/rest-tools.ts). The server reuses the kept REST answer of the same second.
 * - `call`: the tool answers itself, reading the REST API through `ToolContext.json`; it returns
 *   the result's JSON value or throws an ApiError, whose body becomes an error result.
 */
import { z } from 'zod';
import type { Dataset } from '../datasets.ts';
import { forAgents } from './for-agents.ts';
import type { SizedAnswer } from './sizes.ts';

export type JsonSchema = {
  type: 'object';
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
} & Record<string, unknown>;

/**
 * A REST answer as the tools read it: its status and body (bytes or a stream), no headers — what a
 * tool reads is never put through the way out (src/service.ts) — and the kept answer's room for results.
 */
export interface RestAnswer {
  status: number;
  body: Uint8Array | AsyncIterable<Uint8Array> | null;
  /** Results made from a kept answer, reused while it is kept; absent when the answer is not kept. */
  derived?: Map<string, unknown>;
}

/** What the tools read of the REST API: its answers to GET, as src/service.ts keeps them. */
export interface RestForTools {
  /** The kept answer to GET of this path and query, if there is one this second. */
  kept(target: string): RestAnswer | undefined;
  /** The answer to GET of this path and query: the kept one, or one made now. */
  get(target: string): Promise<RestAnswer>;
}

/** What a tool's own `call` may use. */
export interface ToolContext {
  /** The JSON body of a REST GET that answered 200; any other answer is thrown as its ApiError. */
  json(target: string): Promise<unknown>;
  /** The deployment's origin, for URLs in a result. */
  site: string;
}

/** Arguments after validation: every value is a string, as in a REST query. */
export type Arguments = Record<string, string>;

interface ToolBase {
  /** snake_case, unique in the table. */
  name: string;
  title: string;
  /** What the tool does, in sentences an agent acts on. */
  description: string;
  /** The arguments (strings), each with `.describe()`; strict, so an unknown argument is named. */
  input: z.ZodObject;
  /** The result's schema (the tool's outputSchema). */
  output: z.ZodType;
  /** Arguments that work: the tests call every tool with them, and the messages quote them. */
  example: Arguments;
  /** Arguments accepted and ignored (as their REST twin does). */
  ignored?: readonly string[];
  /** Arguments that are strings of digits, for which a JSON number is accepted too. */
  digits?: ReadonlySet<string>;
  /** Arguments that are decimal numbers written as strings (a rate), for which a JSON number is accepted too. */
  decimals?: ReadonlySet<string>;
  /** The dataset a tool is about, if one: the catalog adds its measured sizes to the description. */
  dataset?: Dataset;
  /** Which of the dataset's answers it gives, for the sizes its description states. */
  sizes?: SizedAnswer;
  /** A tool of no dataset: the REST request whose answer's size its description states, measured as the datasets' are. */
  measured?: string;
  /**
   * REST statuses besides 2xx whose body is the result, not an error: health's 503 is a health
   * body like its 200, and the answer is the information.
   */
  resultStatuses?: readonly number[];
}

export type ToolSpec = ToolBase &
  (
    | { /** The REST request (path and query) whose answer is the result. */ forward(args: Arguments): string }
    | { call(args: Arguments, context: ToolContext): Promise<unknown> }
  );

export type Tool = ToolSpec & ToolSchemas;
/** A tool that answers itself. */
export type OwnTool = Extract<Tool, { call: unknown }>;

interface ToolSchemas {
  ignored: readonly string[];
  digits: ReadonlySet<string>;
  decimals: ReadonlySet<string>;
  /** No argument is required: `{}` is valid without a look at the schema. */
  takesNothingRequired: boolean;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

export const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  // No $schema: clients validate with their own draft; the keywords used here mean the same in all.
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest as JsonSchema;
};

/** A tool as the table holds it: its JSON schemas made once, from its zod schemas. */
export function defineTool(spec: ToolSpec & { inputSchema?: JsonSchema }): Tool {
  const digits = spec.digits ?? new Set<string>();
  const decimals = spec.decimals ?? new Set<string>();
  const inputSchema = spec.inputSchema ?? jsonSchemaOf(spec.input);
  for (const [name, property] of Object.entries(inputSchema.properties ?? {})) {
    // An argument's description shared with REST points to a request (GET /api/v1/…): here, to a tool.
    if (typeof property.description === 'string') property.description = forAgents(property.description);
    if (digits.has(name))
      property.description =
        `${property.description ?? ''} A string of digits such as "12"; a JSON number (12) is accepted too.`.trim();
    if (decimals.has(name))
      property.description =
        `${property.description ?? ''} A number as a string such as "6.5"; a JSON number (6.5) is accepted too.`.trim();
  }
  return {
    ...spec,
    ignored: spec.ignored ?? [],
    digits,
    decimals,
    takesNothingRequired: spec.input.safeParse({}).success,
    inputSchema,
    outputSchema: jsonSchemaOf(spec.output),
  };
}

const isEmptyObject = (value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

/** A caller's value quoted for a message, cut short so a huge value cannot bloat the answer. */
function quoteValue(value: unknown): string {
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
 * The arguments as strings, or what is wrong with them, said so that an agent can send the call
 * again right: the arguments the tool takes, and the exact string form.
 */
export function readArguments(tool: Tool, args: unknown): { values: Arguments } | { problems: string } {
  const takes = () => {
    const names = [...Object.keys(tool.input.shape), ...tool.ignored];
    return names.length ? `${tool.name} takes: ${names.join(', ')}.` : `${tool.name} takes no arguments.`;
  };
  if (args === undefined) args = {};
  if (tool.takesNothingRequired && isEmptyObject(args)) return { values: {} };
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return { problems: `arguments must be an object of named strings, not ${describeType(args)}. ${takes()}` };

  const problems: string[] = [];
  const values: Arguments = {};
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
    // Written as JavaScript writes it ("6.5"), then checked by the argument's own format like any string.
    else if (typeof value === 'number' && tool.decimals.has(key) && Number.isFinite(value)) values[key] = String(value);
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
          const example = tool.example[key] === undefined ? '' : ` such as "${tool.example[key]}"`;
          problems.push(`${key} is required${example}`);
        } else problems.push(`${key} ${issue.message} (got ${quoteValue(accepted[key] ?? '')})`);
      }
    }
  }
  const text = problems.join('; ');
  return problems.length ? { problems: text.endsWith('.') ? text : `${text}.` } : { values };
}
