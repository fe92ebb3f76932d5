/**
 * MCP requests as the tests (and the bench) send them to /api/v1/mcp: the `_meta` and headers a
 * 2026-07-28 request must carry, the request builders, and a POST that reads the answer whole.
 * The protocol rules themselves are on the docs site's AI page (/docs/ai).
 */

/** The MCP endpoint's path. */
export const MCP_PATH = '/api/v1/mcp';
/** The newest protocol version: headers and `_meta` say it on every request. */
export const MODERN = '2026-07-28';
/** Every protocol version the server speaks, newest first. */
export const VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
/** The versions before 2026-07-28, which negotiate in `initialize`. */
export const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** The `_meta` a request of protocol `version` carries in its params. */
export const metaFor = (version: string) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': {},
});
/** The `_meta` of a 2026-07-28 request. */
export const META = metaFor(MODERN);

/** Content-Type and Accept of every MCP POST. */
export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A request as fetch, node:http and autocannon take it. */
export interface McpRequest {
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}

/**
 * A 2026-07-28 request with every header right: MCP-Protocol-Version, Mcp-Method, Mcp-Name for a
 * tool call or a prompt (its name) and for a resource read (its URI), and `_meta` in params.
 * `headers` are added last (an override); `meta` replaces `_meta`.
 */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: { id?: number | string; headers?: Record<string, string>; meta?: Record<string, unknown> } = {},
): McpRequest {
  const named = method === 'resources/read' ? params.uri : params.name;
  const name: Record<string, string> = typeof named === 'string' ? { 'mcp-name': named } : {};
  return {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...name, ...options.headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: { ...params, _meta: options.meta ?? META },
    }),
  };
}

/** A JSON-RPC tools/call message with no `_meta` (what a 2025-era client sends). */
export const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** An MCP answer read whole: the body as text, its size, and its JSON (undefined when empty). */
export interface McpAnswer {
  response: Response;
  status: number;
  headers: Headers;
  text: string;
  bytes: number;
  json: any;
}

/** POST a built request to `base`'s MCP endpoint. */
export async function sendMcp(base: string, request: McpRequest): Promise<McpAnswer> {
  const response = await fetch(`${base}${MCP_PATH}`, request);
  const text = await response.text();
  return {
    response,
    status: response.status,
    headers: response.headers,
    text,
    bytes: Buffer.byteLength(text),
    json: text ? JSON.parse(text) : undefined,
  };
}

/** POST a JSON-RPC body (a string is sent as it is) with JSON_HEADERS, `headers` added. */
export function postMcp(base: string, body: unknown, headers: Record<string, string> = {}): Promise<McpAnswer> {
  return sendMcp(base, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
