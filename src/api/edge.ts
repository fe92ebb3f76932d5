/**
 * The HTTP edge every JSON endpoint shares — REST (/api/v1), MCP (/api/v1/mcp), docs search
 * (/api/search) and the OpenAPI document: who may read it from another origin (CORS), the
 * preflight, HEAD, and the logger failures go to. Each endpoint names its methods and headers in
 * a policy; the rules are written once, here. The error body is src/api/responses.ts (the MCP
 * endpoint answers JSON-RPC errors instead, as the protocol requires), and the request id is
 * src/api/request-id.ts, stamped by the outermost layer of each deployment.
 */
import { ALLOWED_METHODS } from './routes.ts';

/** Browsers may keep a preflight's answer this long (seconds), the same for every endpoint. */
export const CORS_MAX_AGE = '600';

/** Where server-side failures are reported (never to the caller); console.error unless injected. */
export type Log = (message: string, error?: unknown) => void;
export const defaultLog: Log = (message, error) => console.error(message, error);

export interface CorsPolicy {
  /** The methods the endpoint takes, OPTIONS included. */
  methods: readonly string[];
  /** Response headers a page on another origin may read. */
  expose: string;
  /** Request headers a preflight allows: the ones it asks for, else these. */
  allowHeaders: { requested: 'echo' | 'fixed'; list: string };
}

/** /api/v1 and the docs search: GET, HEAD, OPTIONS; the ETag and request id readable. */
export const READ_ONLY_CORS: CorsPolicy = {
  methods: ALLOWED_METHODS,
  expose: 'x-request-id, etag',
  allowHeaders: { requested: 'echo', list: 'content-type, x-request-id' },
};

/** The headers on every answer under the policy but the preflight's. */
export function corsHeaders(policy: CorsPolicy): [string, string][] {
  return [
    ['access-control-allow-origin', '*'],
    ['access-control-expose-headers', policy.expose],
  ];
}

/** The preflight's headers (204, no body). */
export function preflightHeaders(policy: CorsPolicy, requested: string | null): [string, string][] {
  const echo = policy.allowHeaders.requested === 'echo';
  return [
    ['access-control-allow-origin', '*'],
    ['access-control-allow-methods', policy.methods.join(', ')],
    ['access-control-max-age', CORS_MAX_AGE],
    ...(echo ? ([['vary', 'access-control-request-headers']] as [string, string][]) : []),
    ['access-control-allow-headers', (echo ? requested : null) ?? policy.allowHeaders.list],
  ];
}

export function withCors(response: Response, policy: CorsPolicy = READ_ONLY_CORS): Response {
  for (const [name, value] of corsHeaders(policy)) response.headers.set(name, value);
  return response;
}

export function preflight(request: Request, policy: CorsPolicy = READ_ONLY_CORS): Response {
  const headers = preflightHeaders(policy, request.headers.get('access-control-request-headers'));
  return new Response(null, { status: 204, headers });
}

/** HEAD: the same status and headers as GET would have, and no body. */
export async function headOf(response: Response): Promise<Response> {
  await response.body?.cancel();
  return new Response(null, { status: response.status, headers: response.headers });
}
