/**
 * Who may read each endpoint under /api from another origin (CORS), as a policy per endpoint —
 * the read-only API and docs search, and MCP. The way out (way-out.ts) applies the policy to
 * every answer; a preflight is answered from it.
 */
import type { Answer, CorsPolicy } from './answer.ts';
import { ALLOWED_METHODS } from '../paths.ts';

/** Browsers may keep a preflight's answer this long (seconds), the same for every endpoint. */
export const CORS_MAX_AGE = '600';

/** /api/v1 and the docs search: GET, HEAD, OPTIONS; the ETag and request id readable. */
export const READ_ONLY_CORS: CorsPolicy = {
  methods: ALLOWED_METHODS,
  expose: 'x-request-id, etag',
  allowHeaders: { requested: 'echo', list: 'content-type, x-request-id' },
};

/** MCP: POST with the protocol's headers, its version header readable. */
export const MCP_CORS: CorsPolicy = {
  methods: ['POST', 'OPTIONS'],
  expose: 'mcp-protocol-version, x-request-id',
  allowHeaders: {
    requested: 'fixed',
    list: 'content-type, accept, mcp-protocol-version, mcp-method, mcp-name, last-event-id, x-request-id',
  },
};

/** The headers on every answer under the policy. */
export function corsHeaders(policy: CorsPolicy): [string, string][] {
  return [
    ['access-control-allow-origin', '*'],
    ['access-control-expose-headers', policy.expose],
  ];
}

/** A preflight's answer (204, no body): the policy's methods and headers, kept by browsers CORS_MAX_AGE seconds. */
export function preflightAnswer(policy: CorsPolicy, requested: string | undefined): Answer {
  const echo = policy.allowHeaders.requested === 'echo';
  return {
    status: 204,
    headers: {
      'access-control-allow-methods': policy.methods.join(', '),
      'access-control-max-age': CORS_MAX_AGE,
      ...(echo ? { vary: 'access-control-request-headers' } : {}),
      'access-control-allow-headers': (echo ? requested : undefined) ?? policy.allowHeaders.list,
    },
    body: null,
    cache: 'never',
    cors: policy,
  };
}
