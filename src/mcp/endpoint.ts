/**
 * POST /api/v1/mcp: Streamable HTTP, stateless, JSON responses, no sessions. The HTTP rules are
 * here (CORS, Host allow-list, method, media types, the body limit, JSON parsing); the JSON-RPC
 * rules in server.ts and protocol.ts.
 */
import type { Handler } from '../api/app.ts';
import { siteUrl } from '../site.ts';
import { catalogLoader } from './catalog.ts';
import { errorText, LIMITS, mcpHeaders, PARSE_ERROR, RpcError, SERVER_ERROR, INVALID_REQUEST } from './protocol.ts';
import { bodyOf, createRpc, type Json } from './server.ts';

/** Largest request body accepted: far above any tool call, small enough that no body can exhaust memory. */
export const MAX_MCP_BODY_BYTES = LIMITS.bodyBytes;

const MCP_HEADERS = 'content-type, accept, mcp-protocol-version, mcp-method, mcp-name, last-event-id, x-request-id';
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'mcp-protocol-version, x-request-id',
};

class BodyTooLarge extends Error {}

/** The body as text, refusing past the limit without reading the rest. */
async function readBody(request: Request): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > LIMITS.bodyBytes) throw new BodyTooLarge();
  // text() before any look at request.body: Node adapters (npm start's) read a body of a declared
  // length straight from the socket then, without building a web stream for it.
  if (declared !== null) {
    // The HTTP parser holds a body to its declared length; checked again for any other source.
    const text = await request.text();
    if (text.length > LIMITS.bodyBytes) throw new BodyTooLarge();
    return text;
  }
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > LIMITS.bodyBytes) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? new TextDecoder().decode(chunks[0]) : Buffer.concat(chunks).toString('utf8');
}

function answer(status: number, json: Json | undefined, headers: Record<string, string> = {}): Response {
  if (json === undefined) return new Response(null, { status, headers: { ...CORS, ...headers } });
  const { body, length } = bodyOf(json);
  return new Response(body, {
    status,
    headers: { ...CORS, 'content-type': 'application/json', 'content-length': String(length), ...headers },
  });
}

const refusal = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  answer(status, errorText(null, new RpcError(code, message)), headers);

/** The media types an Accept header lists (parameters dropped). */
const acceptedTypes = (accept: string | null) =>
  new Set((accept ?? '').split(',').map((part) => part.split(';')[0]!.trim().toLowerCase()));

/** Host names from the allow-list, plus the deployment's own public name (from the site URL). */
export function allowedHostNames(allowedHosts: string[] | undefined, site: string): Set<string> | undefined {
  if (!allowedHosts) return undefined;
  return new Set([...allowedHosts, new URL(site).hostname].map((h) => h.toLowerCase()));
}

function hostNameOf(host: string | null): string | undefined {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export interface McpEndpointOptions {
  /**
   * Host names the endpoint answers to, set when the server listens on a loopback address, so a
   * web page cannot reach a local server through DNS rebinding; the site URL's host is always
   * allowed too. Unset: every host.
   */
  allowedHosts?: string[];
  /** The origin of the URLs in tool results (default siteUrl()); never the request's. */
  siteUrl?: string;
}

export function createMcpEndpoint(api: Handler, options: McpEndpointOptions = {}): Handler {
  const site = options.siteUrl ?? siteUrl();
  const allowed = allowedHostNames(options.allowedHosts, site);
  const rpc = createRpc({ api, site, catalog: catalogLoader(api, site) });

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
    if (allowed) {
      const host = request.headers.get('host');
      const name = hostNameOf(host);
      if (!name || !allowed.has(name)) {
        const names = [...allowed].join(', ');
        return refusal(
          403,
          SERVER_ERROR,
          `Forbidden: Invalid Host ${JSON.stringify((host ?? '').slice(0, 100))}. This server answers MCP requests for ${names} only (DNS-rebinding protection); set MCP_ALLOWED_HOSTS to add names.`,
        );
      }
    }
    if (request.method !== 'POST') {
      return refusal(405, SERVER_ERROR, 'Method not allowed: this MCP endpoint is stateless and takes POST only', {
        allow: 'POST, OPTIONS',
      });
    }
    let text: string;
    try {
      text = await readBody(request);
    } catch (error) {
      if (error instanceof BodyTooLarge)
        return refusal(413, INVALID_REQUEST, `Invalid Request: the body is larger than ${LIMITS.bodyBytes} bytes`);
      throw error;
    }
    const accepts = acceptedTypes(request.headers.get('accept'));
    const json = accepts.has('application/json') || accepts.has('application/*') || accepts.has('*/*');
    const stream = accepts.has('text/event-stream') || accepts.has('text/*') || accepts.has('*/*');
    if (!json || !stream) {
      return refusal(
        406,
        SERVER_ERROR,
        'Not Acceptable: the Accept header must list both application/json and text/event-stream (this server answers application/json)',
      );
    }
    const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json')
      return refusal(415, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');

    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return refusal(400, PARSE_ERROR, 'Parse error: the body is not JSON');
    }
    try {
      const { status, body } = await rpc.handle(value, mcpHeaders(request.headers));
      return answer(status, body);
    } catch (error) {
      console.error('mcp: request failed:', error);
      return refusal(500, -32603, 'Internal error');
    }
  };
}
