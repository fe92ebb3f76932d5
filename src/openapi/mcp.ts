/**
 * The MCP endpoint in the OpenAPI document (src/openapi/document.ts calls this): POST with every
 * answer it gives, a JSON-RPC message or a batch's array among them, GET and DELETE (405: no
 * event stream, no session), and its preflight. The JSON-RPC rules are src/mcp's; /docs/ai says them.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi/dist/index.mjs';
import { z } from 'zod';
import { MCP_PATH } from '../endpoints.ts';
import { LEGACY_VERSIONS, LIMITS, MODERN_VERSION } from '../mcp/protocol.ts';
import { TOOLS } from '../mcp/tool-table.ts';
import { PROMPTS } from '../mcp/prompts.ts';
import { answerHeaders, REFUSED } from './http.ts';

const kib = (bytes: number) => `${bytes / 1024} KiB`;
const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

const JSON_TYPE = 'application/json';
const TAG = 'MCP';

const JsonRpcId = z.union([z.string(), z.number(), z.null()]);

const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId.optional(),
    method: z.string().optional(),
  })
  .meta({
    description: 'A JSON-RPC 2.0 request, notification or (protocol 2025-03-26 without a version header) a batch.',
  });

const JsonRpcError = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId,
    error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  })
  .meta({ id: 'JsonRpcError', description: 'A JSON-RPC error response.' });

const JsonRpcResult = z
  .looseObject({ jsonrpc: z.literal('2.0'), id: JsonRpcId, result: z.looseObject({}) })
  .meta({ description: 'A JSON-RPC result: the method’s answer (a tool’s result holds its REST answer).' });

const JsonRpcResponse = z
  .union([JsonRpcResult, JsonRpcError])
  .meta({ id: 'JsonRpcResponse', description: 'A JSON-RPC response: a result, or an error.' });

/** MCP's answers: never cached, every one with a request id, readable cross-origin as MCP's CORS policy says. */
const mcpHeaders = (requestId: 'always' | 'maybe' = 'always', options: { allow?: boolean; vary?: 'none' } = {}) =>
  answerHeaders({ cache: 'never', requestId, ...options });

const rpcError = (description: string) => ({
  description,
  headers: mcpHeaders(),
  content: { [JSON_TYPE]: { schema: JsonRpcError } },
});

/** A 400 or 500 the endpoint writes as JSON-RPC, or `npm start`'s server before it (or when answering failed) as the error body. */
const rpcOrServerError = (description: string, error: z.ZodType) => ({
  description: `${description} A request the server refuses before the endpoint, or an answer it fails to write, has the error body and no request id.`,
  headers: mcpHeaders('maybe'),
  content: { [JSON_TYPE]: { schema: z.union([JsonRpcError, error]) } },
});

const HOST_REFUSAL =
  'The `Host` header names a host this server does not answer MCP for (-32000 `Invalid Host`): a server listening on a loopback address answers ' +
  "only `localhost`, `127.0.0.1`, `[::1]` and its site URL's host (DNS-rebinding protection; `MCP_ALLOWED_HOSTS` adds names to these, on any address).";

/** The 405 of GET and DELETE: the endpoint is stateless, with no event stream and no session. */
const notAllowed = (method: string, why: string) => ({
  403: rpcError(HOST_REFUSAL),
  405: {
    description: `${method}: ${why} (-32000), with \`Allow\`.`,
    headers: mcpHeaders('always', { allow: true }),
    content: { [JSON_TYPE]: { schema: JsonRpcError } },
  },
  default: REFUSED,
});

/** `error`: the Error schema, for the answers `npm start`'s server writes on this path. */
export function registerMcpPaths(registry: OpenAPIRegistry, error: z.ZodType): void {
  registry.registerPath({
    method: 'post',
    path: MCP_PATH,
    operationId: 'sendMcpMessage',
    tags: [TAG],
    summary: 'Send a Model Context Protocol message',
    description:
      `Streamable HTTP carrying JSON-RPC 2.0, stateless, JSON responses. Protocol ${MODERN_VERSION} (per-request \`_meta\` and the ` +
      `\`MCP-Protocol-Version\`, \`Mcp-Method\` and \`Mcp-Name\` headers) and the legacy versions ${LEGACY_VERSIONS.join(', ')} ` +
      `(\`initialize\` first). ${TOOLS.length} read-only tools over the same data, each dataset's list, detail, time series and best open rates among them; ` +
      `every docs page as Markdown, this document and each dataset's newest data as resources (\`resources/list\`, \`resources/read\`); ` +
      `${PROMPTS.length} prompts (\`prompts/list\`, \`prompts/get\`). GET and DELETE answer 405. ` +
      `Limits: a body of ${kib(LIMITS.bodyBytes)}, a batch of ${LIMITS.batchMessages} messages with at most ${LIMITS.batchToolCalls} tools/call ` +
      `and ${mib(LIMITS.responseBytes)} of answers, a tool result of ${mib(LIMITS.resultBytes)} (/docs/ai#limits). ` +
      'Every answer but the preflight carries `x-request-id`.',
    request: { body: { content: { [JSON_TYPE]: { schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]) } } } },
    responses: {
      200: {
        description:
          'A JSON-RPC response — a result, or an error that does not refuse the whole request (a tool that failed, a method a legacy version lacks) — or, for a batch, the array of its responses in order.',
        headers: mcpHeaders(),
        content: { [JSON_TYPE]: { schema: z.union([JsonRpcResponse, z.array(JsonRpcResponse).min(1)]) } },
      },
      202: {
        description: 'Only notifications or responses were sent: accepted, no body.',
        headers: mcpHeaders('always', { vary: 'none' }),
      },
      400: rpcOrServerError(
        `Parse error (-32700), invalid request (-32600, also a batch over ${LIMITS.batchMessages} messages), a header mismatch (-32020), a missing \`_meta\` field (-32602) ` +
          'or an unsupported version (-32022, the supported versions in `error.data.supported`).',
        error,
      ),
      403: rpcError(`${HOST_REFUSAL} Carries the CORS headers.`),
      404: rpcError(`Unknown method (-32601), protocol ${MODERN_VERSION}.`),
      406: rpcError('The `Accept` header does not list both application/json and text/event-stream (-32000).'),
      413: rpcError(`A body over ${kib(LIMITS.bodyBytes)} (-32600), refused without reading the rest.`),
      415: rpcError('A `Content-Type` other than application/json (-32000).'),
      500: rpcOrServerError(
        'Internal error (-32603): the server failed; nothing of the cause is in the answer.',
        error,
      ),
      default: REFUSED,
    },
  });
  registry.registerPath({
    method: 'get',
    path: MCP_PATH,
    operationId: 'openMcpEventStream',
    tags: [TAG],
    summary: 'Open an event stream (not offered)',
    description:
      'Streamable HTTP lets a client open a stream of server messages with GET; this server sends none, and answers 405 as the transport asks.',
    responses: notAllowed('GET', 'no event stream is offered: the endpoint is stateless and takes POST only'),
  });
  registry.registerPath({
    method: 'delete',
    path: MCP_PATH,
    operationId: 'deleteMcpSession',
    tags: [TAG],
    summary: 'End a session (none is kept)',
    description: 'Streamable HTTP lets a client end its session with DELETE; this server keeps none, and answers 405.',
    responses: notAllowed('DELETE', 'no session is kept: the endpoint is stateless and takes POST only'),
  });
}
