/**
 * The API reference at /openapi, read from the OpenAPI document the build wrote
 * (`@generated/openapi.json`, made by document.ts) and rendered at build time into plain HTML:
 * every operation by tag with its parameters, request body and responses (their headers linked,
 * their examples collapsed), every component schema as a table of fields, said open or closed, and
 * every shared response header. The page is read without
 * JavaScript (its one script adds the code blocks' Copy buttons); the interactive reference
 * (Scalar, megabytes of script: the weight /openapi states is measured in test/site.test.ts) is
 * its own page, /openapi/interactive, so /openapi costs what a docs page costs.
 */

/** The parts of a JSON Schema (OpenAPI 3.1) the reference shows. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  description?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { summary?: string; description?: string; value?: unknown }>;
}

interface HeaderObject {
  description?: string;
  required?: boolean;
  schema?: Schema;
}

interface ResponseObject {
  description?: string;
  /** Each header by name, or a reference to one of `components.headers`. */
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, MediaType>;
}

interface OperationObject {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { description?: string; required?: boolean; content?: Record<string, MediaType> };
  /** A response, or a reference to one of `components.responses` (the 304s, preflights and refusals every path shares). */
  responses?: Record<string, ResponseObject | { $ref: string }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string; license?: { name: string; identifier?: string } };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  components?: {
    schemas?: Record<string, Schema>;
    responses?: Record<string, ResponseObject>;
    headers?: Record<string, HeaderObject>;
  };
}

export interface ReferenceParameter {
  name: string;
  in: string;
  required: boolean;
  type: string;
  /** Pattern, bounds, allowed values, default: one short phrase each. */
  constraints: string[];
  description: string;
}

export interface ReferenceExample {
  /** What the example answers, e.g. `GET /api/v1/<slug>?termInMonths=12`. */
  title: string;
  /** What the document says of it, such as what was cut from the real answer; '' when nothing. */
  description: string;
  json: string;
}

export interface ReferenceBody {
  contentType: string;
  type: string;
  /** The component schema it names, for a link to #schema-<name>. */
  ref?: string;
  description: string;
  examples: ReferenceExample[];
}

export interface ReferenceResponse {
  status: string;
  description: string;
  /** The headers it carries by name, each with the anchor of the shared header it names, if any. */
  headers: { name: string; anchor?: string }[];
  bodies: ReferenceBody[];
}

/** One of `components.headers`, under the names the responses give it. */
export interface ReferenceHeader {
  key: string;
  anchor: string;
  names: string[];
  type: string;
  description: string;
}

export interface ReferenceOperation {
  /** The operationId, also the operation's anchor. */
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  parameters: ReferenceParameter[];
  /** The request of the first 200 example (`/api/v1/<slug>?termInMonths=12`), for a curl line. */
  exampleRequest?: string;
  requestBody?: ReferenceBody & { required: boolean };
  responses: ReferenceResponse[];
}

export interface ReferenceTag {
  name: string;
  anchor: string;
  description: string;
  operations: ReferenceOperation[];
}

export interface ReferenceField {
  /** Dotted path from the schema's root, `[]` for an array's items: `data[].products[].rates[].rate`. */
  path: string;
  type: string;
  ref?: string;
  required: boolean;
  constraints: string[];
  description: string;
}

export interface ReferenceSchema {
  name: string;
  anchor: string;
  type: string;
  description: string;
  /**
   * `open`: a later release may add fields to it (`additionalProperties` allows them); `closed`: it
   * never has a field beyond those listed (`additionalProperties: false`); `null`: not an object.
   */
  fieldsPolicy: 'open' | 'closed' | null;
  fields: ReferenceField[];
}

export interface StaticReference {
  title: string;
  version: string;
  openapi: string;
  description: string;
  license?: string;
  servers: { url: string; description: string }[];
  tags: ReferenceTag[];
  schemas: ReferenceSchema[];
  headers: ReferenceHeader[];
  operationCount: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export const schemaAnchor = (name: string) => `schema-${name}`;
const headerAnchor = (key: string) => `header-${key}`;
/** The section listing every shared response header. */
export const HEADERS_ANCHOR = 'response-headers';
const tagAnchor = (name: string) =>
  `tag-${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** A short type expression: `string`, `integer | null`, `array of <Type>`, `string (date-time)`. */
export function typeOf(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return refName(schema.$ref);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map(typeOf))].join(' | ');
  if (schema.allOf) return schema.allOf.map(typeOf).join(' & ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? 'object' : 'any';
  return types
    .map((type) => {
      if (type === 'array') return `array of ${typeOf(schema.items)}`;
      if (type === 'string' && schema.format) return `string (${schema.format})`;
      return type;
    })
    .join(' | ');
}

/** The component schema a schema names, directly or as an array's items. */
function refOf(schema: Schema | undefined): string | undefined {
  if (schema?.$ref) return refName(schema.$ref);
  if (schema?.items?.$ref) return refName(schema.items.$ref);
  return undefined;
}

/** What a value must be beyond its type, as short phrases. */
export function constraintsOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const out: string[] = [];
  const json = (value: unknown) => JSON.stringify(value);
  if (schema.enum?.length === 1) out.push(`always ${json(schema.enum[0])}`);
  else if (schema.enum) out.push(`one of ${schema.enum.map(json).join(', ')}`);
  if (schema.pattern !== undefined) out.push(`pattern ${schema.pattern}`);
  if (schema.minimum !== undefined) out.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) out.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) out.push(`≤ ${schema.maximum}`);
  if (schema.exclusiveMaximum !== undefined) out.push(`< ${schema.exclusiveMaximum}`);
  if (schema.minLength !== undefined) out.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  if (schema.minItems !== undefined) out.push(`at least ${schema.minItems} items`);
  if (schema.maxItems !== undefined) out.push(`at most ${schema.maxItems} items`);
  if (schema.default !== undefined) out.push(`default ${json(schema.default)}`);
  return out;
}

/** The object schemas a value may be (itself, an array's items, the branches of a union). */
function objectsIn(schema: Schema | undefined): { schema: Schema; suffix: string }[] {
  if (!schema || schema.$ref) return [];
  if (schema.properties) return [{ schema, suffix: '' }];
  if (schema.items) return objectsIn(schema.items).map((o) => ({ ...o, suffix: `[]${o.suffix}` }));
  return (schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []).flatMap(objectsIn);
}

/** Every field of an object schema, nested fields as dotted paths, each path once. */
export function fieldsOf(schema: Schema): ReferenceField[] {
  const fields: ReferenceField[] = [];
  const seen = new Set<string>();
  const visit = (object: Schema, prefix: string, depth: number) => {
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (seen.has(path)) continue;
      seen.add(path);
      fields.push({
        path,
        type: typeOf(property),
        ref: refOf(property),
        required: object.required?.includes(name) ?? false,
        constraints: constraintsOf(property),
        description: property.description ?? '',
      });
      if (depth < 8) for (const inner of objectsIn(property)) visit(inner.schema, `${path}${inner.suffix}`, depth + 1);
    }
  };
  for (const root of objectsIn(schema)) visit(root.schema, root.suffix, 0);
  return fields;
}

function bodiesOf(content: Record<string, MediaType> | undefined): ReferenceBody[] {
  return Object.entries(content ?? {}).map(([contentType, media]) => {
    const examples: ReferenceExample[] = Object.entries(media.examples ?? {}).map(([name, example]) => ({
      title: example.summary ?? name,
      description: example.description ?? '',
      json: JSON.stringify(example.value, null, 2),
    }));
    if (media.example !== undefined)
      examples.push({ title: 'Example', description: '', json: JSON.stringify(media.example, null, 2) });
    return {
      contentType,
      type: typeOf(media.schema),
      ref: refOf(media.schema),
      description: media.schema?.$ref ? '' : (media.schema?.description ?? ''),
      examples,
    };
  });
}

function operationOf(
  method: string,
  path: string,
  op: OperationObject,
  shared: Record<string, ResponseObject>,
): ReferenceOperation {
  const responses = Object.entries(op.responses ?? {}).map(([status, given]) => {
    const response = '$ref' in given ? (shared[refName(given.$ref)] ?? {}) : given;
    const headers = Object.entries(response.headers ?? {}).map(([name, header]) =>
      '$ref' in header ? { name, anchor: headerAnchor(refName(header.$ref)) } : { name },
    );
    return { status, description: response.description ?? '', headers, bodies: bodiesOf(response.content) };
  });
  const prefix = `${method.toUpperCase()} /`;
  const exampleRequest = responses
    .find((r) => r.status === '200')
    ?.bodies.flatMap((b) => b.examples)
    .find((e) => e.title.startsWith(prefix))
    ?.title.slice(prefix.length - 1);
  return {
    id: op.operationId ?? `${method}-${path}`,
    method: method.toUpperCase(),
    path,
    summary: op.summary ?? `${method.toUpperCase()} ${path}`,
    description: op.description ?? '',
    parameters: (op.parameters ?? []).map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required ?? false,
      type: typeOf(p.schema),
      constraints: constraintsOf(p.schema),
      description: p.description ?? p.schema?.description ?? '',
    })),
    ...(op.requestBody
      ? {
          requestBody: bodiesOf(op.requestBody.content).map((body) => ({
            ...body,
            description: op.requestBody!.description ?? body.description,
            required: op.requestBody!.required ?? false,
          }))[0],
        }
      : {}),
    ...(exampleRequest ? { exampleRequest } : {}),
    responses,
  };
}

/** The reference's content: tags in the document's order (then any others), operations in path order. */
export function staticReference(document: OpenApiDocument): StaticReference {
  const byTag = new Map<string, ReferenceOperation[]>();
  for (const tag of document.tags ?? []) byTag.set(tag.name, []);
  let operationCount = 0;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      operationCount++;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operationOf(method, path, op, document.components?.responses ?? {}));
    }
  }
  const descriptions = new Map((document.tags ?? []).map((t) => [t.name, t.description ?? '']));
  // The names each shared header is sent under (`CacheControlCached` is a `Cache-Control`).
  const headerNames = new Map<string, Set<string>>();
  for (const tag of byTag.values())
    for (const op of tag)
      for (const response of op.responses)
        for (const { name, anchor } of response.headers)
          if (anchor) headerNames.set(anchor, (headerNames.get(anchor) ?? new Set()).add(name));
  return {
    title: document.info.title,
    version: document.info.version,
    openapi: document.openapi,
    description: document.info.description ?? '',
    license: document.info.license?.identifier ?? document.info.license?.name,
    servers: (document.servers ?? []).map((s) => ({ url: s.url, description: s.description ?? '' })),
    tags: [...byTag]
      .filter(([, operations]) => operations.length > 0)
      .map(([name, operations]) => ({
        name,
        anchor: tagAnchor(name),
        description: descriptions.get(name) ?? '',
        operations,
      })),
    schemas: Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => ({
      name,
      anchor: schemaAnchor(name),
      type: typeOf(schema),
      description: schema.description ?? '',
      fieldsPolicy:
        schema.additionalProperties === false ? 'closed' : schema.additionalProperties === undefined ? null : 'open',
      fields: fieldsOf(schema),
    })),
    headers: Object.entries(document.components?.headers ?? {}).map(([key, header]) => ({
      key,
      anchor: headerAnchor(key),
      names: [...(headerNames.get(headerAnchor(key)) ?? [])].sort(),
      type: typeOf(header.schema),
      description: header.description ?? header.schema?.description ?? '',
    })),
    operationCount,
  };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * The document's descriptions as HTML: escaped text, `code` spans, and the docs paths they cite
 * (/docs/ai#limits) as links. Nothing else of Markdown is used in them.
 */
export function inlineHtml(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) =>
      i % 2 === 1
        ? `<code>${escapeHtml(part.slice(1, -1))}</code>`
        : escapeHtml(part).replace(
            /(^|[\s(])(\/docs(?:\/[\w-]+)*(?:#[\w-]+)?)(?=$|[\s),.;:])/g,
            (_, before: string, href: string) => `${before}<a href="${href}">${href}</a>`,
          ),
    )
    .join('');
}
