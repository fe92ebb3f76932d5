/**
 * What every operation of the document shares, from the HTTP rules themselves (src/http): the
 * headers the way out puts on an answer, the 304 of a conditional GET, the CORS preflights, and
 * the refusals `npm start`'s server writes before any endpoint runs. The headers are components,
 * each answer naming those it carries; a header the answer may lack is `required: false`.
 */
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi/dist/index.mjs';
import { DATA_CACHE_CONTROL, NO_STORE, VERCEL_CDN_CACHE_CONTROL } from '../http/caching.ts';
import { CORS_MAX_AGE, MCP_CORS, READ_ONLY_CORS } from '../http/cors.ts';
import { SECURITY_HEADERS } from '../http/security-headers.ts';

type Header = {
  required: boolean;
  description: string;
  schema: Record<string, unknown>;
};

const cased = (name: string) => name.replace(/(^|-)(\w)/g, (_, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
const componentName = (name: string) => cased(name).replaceAll('-', '');

const policyMethods = (policy: typeof READ_ONLY_CORS) => policy.methods.join(', ');

/** Every answer's own security headers (src/http/security-headers.ts), the same on every answer. */
const SECURITY = Object.fromEntries(
  Object.entries(SECURITY_HEADERS).map(([name, value]): [string, Header] => [
    cased(name),
    {
      required: true,
      description: 'The same on every answer (/docs/self-hosting#security).',
      schema: { const: value },
    },
  ]),
);

/** The header components, by component name, each with the header name answers carry it under. */
const HEADERS: Record<string, { name: string } & Header> = {
  ETag: {
    name: 'ETag',
    required: true,
    description:
      'A strong tag of the data and the request: send it back in `If-None-Match` and an unchanged answer is a 304 with no body. Each content coding has its own (/docs/caching).',
    schema: { type: 'string', pattern: '^"[^"]+"$' },
  },
  ETagMaybe: {
    name: 'ETag',
    required: false,
    description: 'As `ETag`, on every answer of the time series but the one without dates.',
    schema: { type: 'string', pattern: '^"[^"]+"$' },
  },
  CacheControlCached: {
    name: 'Cache-Control',
    required: true,
    description:
      'The answer depends on the method and URL alone, so browsers and shared caches may keep it (/docs/caching#what-the-server-sends).',
    schema: { const: DATA_CACHE_CONTROL },
  },
  CacheControlNoStore: {
    name: 'Cache-Control',
    required: true,
    description: 'Kept by no cache: it says what is true now, or a failure.',
    schema: { const: NO_STORE },
  },
  CacheControlEither: {
    name: 'Cache-Control',
    required: true,
    description:
      'Cacheable when the endpoint refused the request; `no-store` when the server did, before any endpoint.',
    schema: { enum: [DATA_CACHE_CONTROL, NO_STORE] },
  },
  VercelCdnCacheControl: {
    name: 'Vercel-CDN-Cache-Control',
    required: false,
    description:
      "Read by Vercel's CDN alone, which keeps the answer for the life of the deployment; sent with every answer whose `Cache-Control` is not `no-store`.",
    schema: { const: VERCEL_CDN_CACHE_CONTROL },
  },
  VaryCoding: {
    name: 'Vary',
    required: false,
    description:
      "`npm start` codes answers by `Accept-Encoding` (/docs/caching#compression-npm-start); Vercel's CDN sets its own.",
    schema: { const: 'Accept-Encoding' },
  },
  VaryPreflight: {
    name: 'Vary',
    required: true,
    description: 'The allowed headers echo `Access-Control-Request-Headers`.',
    schema: { const: 'access-control-request-headers' },
  },
  RequestId: {
    name: 'X-Request-Id',
    required: true,
    description:
      'The `x-request-id` the request sent, when it is safe to echo, else a new one (/docs/concepts#x-request-id).',
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  RequestIdMaybe: {
    name: 'X-Request-Id',
    required: false,
    description:
      'As on the endpoint’s other answers, but absent on a 400 for a parameter of the wrong format and on an answer the server writes outside the endpoint (/docs/concepts#x-request-id).',
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  Allow: {
    name: 'Allow',
    required: true,
    description: 'The methods the MCP endpoint takes.',
    schema: { const: policyMethods(MCP_CORS) },
  },
  RetryAfter: {
    name: 'Retry-After',
    required: false,
    description: 'Seconds to wait: on a 503 for too many open connections (/docs/limits#connections).',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  AccessControlAllowOrigin: {
    name: 'Access-Control-Allow-Origin',
    required: true,
    description: 'Any origin may read the answer (/docs/concepts#cors).',
    schema: { const: '*' },
  },
  AccessControlExposeHeaders: {
    name: 'Access-Control-Expose-Headers',
    required: true,
    description: `What a page on another origin may read: \`${READ_ONLY_CORS.expose}\` on the REST API and the refusals, \`${MCP_CORS.expose}\` on MCP.`,
    schema: { enum: [READ_ONLY_CORS.expose, MCP_CORS.expose] },
  },
  AccessControlAllowMethods: {
    name: 'Access-Control-Allow-Methods',
    required: true,
    description: 'The methods the path takes.',
    schema: { enum: [policyMethods(READ_ONLY_CORS), policyMethods(MCP_CORS)] },
  },
  AccessControlAllowHeaders: {
    name: 'Access-Control-Allow-Headers',
    required: true,
    description: `On the REST API the headers \`Access-Control-Request-Headers\` asked for, else \`${READ_ONLY_CORS.allowHeaders.list}\`; on MCP \`${MCP_CORS.allowHeaders.list}\`.`,
    schema: { type: 'string' },
  },
  AccessControlMaxAge: {
    name: 'Access-Control-Max-Age',
    required: true,
    description: 'Seconds a browser may keep this preflight.',
    schema: { const: CORS_MAX_AGE },
  },
  ...Object.fromEntries(Object.entries(SECURITY).map(([name, header]) => [componentName(name), { ...header, name }])),
};

const ref = (type: 'headers' | 'responses', name: string) => ({ $ref: `#/components/${type}/${name}` });

/** What an answer carries beyond its body, in the terms of the rules that set it. */
export interface AnswerHeaders {
  /** Cacheable (`data`), never kept (`never`), or either (a 400, which the server may write before the endpoint). */
  cache: 'data' | 'never' | 'either';
  /** `always`, `maybe` (RequestIdMaybe says when not) or `never` (paths outside /api/v1, the search, refusals). */
  requestId: 'always' | 'maybe' | 'never';
  etag?: 'always' | 'maybe';
  allow?: boolean;
  retryAfter?: boolean;
  /** The `Vary` it may carry: by coding (an answer with a body), the preflight's, or none. */
  vary?: 'coding' | 'preflight' | 'none';
  preflight?: boolean;
}

/** The headers object of one answer: references to the components above. */
export function answerHeaders(spec: AnswerHeaders): Record<string, { $ref: string }> {
  const names: string[] = [];
  if (spec.etag) names.push(spec.etag === 'always' ? 'ETag' : 'ETagMaybe');
  names.push({ data: 'CacheControlCached', never: 'CacheControlNoStore', either: 'CacheControlEither' }[spec.cache]);
  if (spec.cache !== 'never') names.push('VercelCdnCacheControl');
  const vary = spec.vary ?? 'coding';
  if (vary !== 'none') names.push(vary === 'coding' ? 'VaryCoding' : 'VaryPreflight');
  if (spec.requestId !== 'never') names.push(spec.requestId === 'always' ? 'RequestId' : 'RequestIdMaybe');
  if (spec.allow) names.push('Allow');
  if (spec.retryAfter) names.push('RetryAfter');
  names.push('AccessControlAllowOrigin', 'AccessControlExposeHeaders');
  if (spec.preflight) names.push('AccessControlAllowMethods', 'AccessControlAllowHeaders', 'AccessControlMaxAge');
  names.push(...Object.keys(SECURITY).map(componentName));
  return Object.fromEntries(names.map((component) => [HEADERS[component]!.name, ref('headers', component)]));
}

/** What sets an endpoint's headers: whether its path carries request ids, its answers are cached, they have ETags. */
export interface PathRules {
  ids: boolean;
  cached: boolean;
  etag?: 'always' | 'maybe';
}

/** The REST data endpoints under /api/v1: ids, cached, ETags. */
export const DATA_RULES: PathRules = { ids: true, cached: true, etag: 'always' };

/** A 200's headers on a path of these rules. */
export const successHeaders = (rules: PathRules) =>
  answerHeaders({
    cache: rules.cached ? 'data' : 'never',
    requestId: rules.ids ? 'always' : 'never',
    ...(rules.etag ? { etag: rules.etag } : {}),
  });

/**
 * An error's headers on a path of these rules: a 400 may be the server's own refusal (not cached,
 * no id) or a parameter of the wrong format (no id); a 500 is never cached and, written by the
 * server when answering failed, carries no id.
 */
export function errorHeaders(status: number, rules: PathRules) {
  const cache = !rules.cached || status >= 500 ? 'never' : status === 400 ? 'either' : 'data';
  const requestId = !rules.ids ? 'never' : status === 404 ? 'always' : 'maybe';
  return answerHeaders({ cache, requestId });
}

/** A conditional GET whose `If-None-Match` names the answer's ETag: no body, the same headers. */
export const notModified = (requestId: AnswerHeaders['requestId']): ResponseConfig => ({
  description:
    'Not modified: `If-None-Match` names this answer’s ETag, so the copy the client holds is current. No body.',
  headers: answerHeaders({ cache: 'data', etag: 'always', requestId }),
});

/** The shared responses, by name: the refusals before any endpoint, and the two preflights. */
export const REFUSED = ref('responses', 'Refused');
const PREFLIGHT = ref('responses', 'Preflight');
const MCP_PREFLIGHT = ref('responses', 'McpPreflight');

/** Registers the header components and the shared responses; `error` is the Error schema's reference. */
export function registerHttpComponents(registry: OpenAPIRegistry, error: object): void {
  for (const [component, { name: _, ...header }] of Object.entries(HEADERS))
    registry.registerComponent('headers', component, header);
  registry.registerComponent('responses', 'Refused', {
    description:
      "Refused by `npm start`'s server before any endpoint runs (/docs/limits), in the error body: 400 for a request it cannot read " +
      '(its framing, its Host or its target), 408 for a request head not sent in time, 413 for a body over its limit (the MCP endpoint has its own), ' +
      '417 for an `Expect` other than 100-continue, 431 for headers over their limit, 503 with `Retry-After` for too many open connections, ' +
      'and 500 when answering failed. Vercel sets its own limits.',
    headers: answerHeaders({ cache: 'never', requestId: 'never', retryAfter: true, vary: 'none' }),
    content: { 'application/json': { schema: error } },
  });
  registry.registerComponent('responses', 'Preflight', {
    description: `The CORS preflight: no body (/docs/concepts#cors). Browsers may keep it ${CORS_MAX_AGE} seconds.`,
    headers: answerHeaders({ cache: 'never', requestId: 'never', vary: 'preflight', preflight: true }),
  });
  registry.registerComponent('responses', 'McpPreflight', {
    description: `The CORS preflight of the MCP endpoint: no body. Browsers may keep it ${CORS_MAX_AGE} seconds.`,
    headers: answerHeaders({ cache: 'never', requestId: 'never', vary: 'none', preflight: true }),
  });
}

/**
 * Every path's OPTIONS: its CORS preflight, named after the operation it goes before (the one
 * with a success on that path), hidden from the interactive reference as they are all alike.
 * Called once every other operation is registered.
 */
export function registerPreflights(registry: OpenAPIRegistry): void {
  const routes = registry.definitions.flatMap((d) => (d.type === 'route' ? [d.route] : []));
  const done = new Set<string>();
  for (const route of routes) {
    if (done.has(route.path) || !Object.keys(route.responses).some((status) => status.startsWith('2'))) continue;
    done.add(route.path);
    // The MCP endpoint is the one path taken by POST, under its own CORS policy.
    const mcp = route.method === 'post';
    const id = route.operationId!;
    registry.registerPath({
      method: 'options',
      path: route.path,
      operationId: `preflight${id[0]!.toUpperCase()}${id.slice(1)}`,
      tags: route.tags,
      summary: `Preflight: ${route.summary}`,
      description: `What a browser asks before a cross-origin request with headers of its own: the methods (${policyMethods(mcp ? MCP_CORS : READ_ONLY_CORS)}) and headers it may send.`,
      'x-scalar-ignore': true,
      ...(route.request?.params ? { request: { params: route.request.params } } : {}),
      responses: { 204: mcp ? MCP_PREFLIGHT : PREFLIGHT, 400: REFUSED, default: REFUSED },
    });
  }
}
