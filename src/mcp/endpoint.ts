/**
 * POST /api/v1/mcp: Streamable HTTP, stateless, JSON responses, no sessions. 2026-07-28 requests
 * go to the SDK's modern handler; 2025-era requests to a per-request transport answering JSON.
 */
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Handler } from '../api/app.ts';
import { siteUrl } from '../site.ts';
import { HEADERLESS_VERSION, MODERN_VERSION, createRatesMcpServer } from './server.ts';

/** Largest request body accepted: far above any tool call, small enough that no body can exhaust memory. */
export const MAX_MCP_BODY_BYTES = 256 * 1024;

class BodyTooLarge extends Error {}

/** The request with its body read into memory, refusing past the limit without reading the rest. */
async function buffered(request: Request): Promise<Request> {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_MCP_BODY_BYTES) throw new BodyTooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    for await (const chunk of request.body) {
      size += chunk.length;
      if (size > MAX_MCP_BODY_BYTES) throw new BodyTooLarge();
      chunks.push(chunk);
    }
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body });
}

const MCP_HEADERS = 'content-type, accept, mcp-protocol-version, mcp-method, mcp-name, last-event-id';

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function withCors(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set('access-control-allow-origin', '*');
  headers.set('access-control-expose-headers', 'mcp-protocol-version');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export interface McpEndpointOptions {
  /**
   * Host names the endpoint answers to. Set when the server listens on a loopback address, so a
   * web page cannot reach a local server through DNS rebinding; unset for a public deployment.
   */
  allowedHosts?: string[];
  /** The origin of the URLs in tool results (default siteUrl()); never the request's. */
  siteUrl?: string;
}

export function createMcpEndpoint(api: Handler, options: McpEndpointOptions = {}): Handler {
  const site = options.siteUrl ?? siteUrl();
  // The SDK reports every request it refuses here (wrong media type, bad headers, oversized
  // batches…): client mistakes it has already answered. Our own failures are logged where they
  // happen (tool calls, the catch below); the SDK's reports only with MCP_DEBUG set.
  const onerror = (error: Error) => {
    if (process.env.MCP_DEBUG) console.error('mcp (sdk):', error);
  };
  const modern = createMcpHandler(
    () => createRatesMcpServer({ api, version: MODERN_VERSION, site }),
    { legacy: 'reject', onerror },
  );

  async function legacy(request: Request): Promise<Response> {
    const version = request.headers.get('mcp-protocol-version') ?? HEADERLESS_VERSION;
    // JSON-RPC batches went away in 2025-06-18; only header-less (2025-03-26) requests may batch.
    if (version >= '2025-06-18' && (await request.clone().text()).trimStart().startsWith('[')) {
      return jsonRpcError(400, -32600, `Invalid Request: JSON-RPC batches are not supported in protocol version ${version}`);
    }
    const server = createRatesMcpServer({ api, version, site });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      void server.close();
    }
  }

  return async function handleMcp(request: Request): Promise<Response> {
    if (request.method === 'OPTIONS') {
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'POST, OPTIONS',
          'access-control-allow-headers': MCP_HEADERS,
          'access-control-max-age': '600',
        },
      });
    }
    const rejected = options.allowedHosts && hostHeaderValidationResponse(request, options.allowedHosts);
    if (rejected) return rejected;
    if (request.method !== 'POST') {
      return withCors(jsonRpcError(405, -32000, 'Method not allowed: this MCP endpoint is stateless and takes POST only', { allow: 'POST, OPTIONS' }));
    }
    try {
      const whole = await buffered(request);
      return withCors((await isLegacyRequest(whole.clone())) ? await legacy(whole) : await modern.fetch(whole));
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        return withCors(jsonRpcError(413, -32600, `Invalid Request: the body is larger than ${MAX_MCP_BODY_BYTES} bytes`));
      }
      console.error('mcp: request failed:', error);
      return withCors(jsonRpcError(500, -32603, 'Internal error'));
    }
  };
}
