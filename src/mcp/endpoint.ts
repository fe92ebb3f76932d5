/**
 * POST /api/v1/mcp: Streamable HTTP, stateless, JSON responses, no sessions. The HTTP rules of
 * the endpoint are here (Host allow-list, method, media types, the body limit, JSON parsing); the
 * JSON-RPC rules in server.ts and protocol.ts; CORS, coding and the rest of the way out are
 * src/http/way-out.ts's, as for every answer under /api.
 */
import { defaultLog, type Log } from '../lib/log.ts';
import { MCP_CORS } from '../http/cors.ts';
import type { Answer, RequestHead } from '../http/answer.ts';
import { siteUrl } from '../site.ts';
import { catalogLoader } from './catalog.ts';
import {
  errorText,
  INVALID_REQUEST,
  LIMITS,
  mcpHeaders,
  PARSE_ERROR,
  parseBody,
  RpcError,
  SERVER_ERROR,
} from './protocol.ts';
import type { McpDocument } from './resources.ts';
import { createRpc, type Json } from './server.ts';
import type { RestForTools } from './tool.ts';

/** Largest request body accepted: far above any tool call, small enough that no body can exhaust memory. */
export const MAX_MCP_BODY_BYTES = LIMITS.bodyBytes;

/** One MCP request as the endpoint reads it, whatever carried it (Node's request, a web Request). */
export interface McpInput extends RequestHead {
  /** The body as text, or undefined past `limit` bytes (the rest is not read). */
  body(limit: number): Promise<string | undefined>;
}

function output(status: number, json: Json | undefined, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: json === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: json ?? null,
    cache: 'never',
    cors: MCP_CORS,
  };
}

const refusal = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  output(status, errorText(null, new RpcError(code, message)), headers);

/** What an Accept header admits: JSON, and an event stream (parameters dropped). */
function acceptance(accept = '') {
  const types = new Set(accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase()));
  return {
    json: types.has('application/json') || types.has('application/*') || types.has('*/*'),
    stream: types.has('text/event-stream') || types.has('text/*') || types.has('*/*'),
  };
}

/** Host names from the allow-list, plus the deployment's own public name (from the site URL). */
function allowedHostNames(allowedHosts: string[] | undefined, site: string): Set<string> | undefined {
  if (!allowedHosts) return undefined;
  return new Set([...allowedHosts, new URL(site).hostname].map((h) => h.toLowerCase()));
}

function hostNameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** A Content-Type's media type, lower case, parameters dropped. */
const mediaType = (type = '') => type.split(';')[0]!.trim().toLowerCase();

export interface McpEndpointOptions {
  /**
   * Host names the endpoint answers to, set when the server listens on a loopback address or
   * MCP_ALLOWED_HOSTS names more (src/mcp/allowed-hosts.ts), so a web page cannot reach a local
   * server through DNS rebinding; the site URL's host is always allowed too. Unset: every host.
   */
  allowedHosts?: string[];
  /** The origin of the URLs in tool results (default siteUrl()); never the request's. */
  siteUrl?: string;
  /** Where failures are reported (the service passes its own). */
  log?: Log;
  /**
   * The docs pages and the OpenAPI document the build made, offered as resources beside each
   * dataset's newest data (src/mcp/resources.ts); loaded on the first request that needs them.
   */
  documents?: () => Promise<readonly McpDocument[]>;
  /** The clock the prompts' dates are read from (default the system's). */
  now?: () => Date;
}

export type McpCore = (input: McpInput) => Promise<Answer>;

export function createMcpCore(rest: RestForTools, options: McpEndpointOptions = {}): McpCore {
  const site = options.siteUrl ?? siteUrl();
  const allowed = allowedHostNames(options.allowedHosts, site);
  const log = options.log ?? defaultLog;
  const rpc = createRpc({ rest, site, catalog: catalogLoader(rest, site, options.documents), log, now: options.now });

  /** The refusal that needs no body (Host, method), or undefined: read the body. */
  function beforeBody(input: RequestHead): Answer | undefined {
    if (allowed) {
      const host = input.header('host');
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
    if (input.method !== 'POST') {
      return refusal(405, SERVER_ERROR, 'Method not allowed: this MCP endpoint is stateless and takes POST only', {
        allow: MCP_CORS.methods.join(', '),
      });
    }
    return undefined;
  }

  async function afterBody(input: RequestHead, text: string | undefined): Promise<Answer> {
    // The rest of a refused body is not read: the connection cannot carry another request.
    if (text === undefined)
      return refusal(413, INVALID_REQUEST, `Invalid Request: the body is larger than ${LIMITS.bodyBytes} bytes`, {
        connection: 'close',
      });
    const { json, stream } = acceptance(input.header('accept'));
    if (!json || !stream) {
      return refusal(
        406,
        SERVER_ERROR,
        'Not Acceptable: the Accept header must list both application/json and text/event-stream (this server answers application/json)',
      );
    }
    if (mediaType(input.header('content-type')) !== 'application/json')
      return refusal(415, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');

    let value: unknown;
    try {
      value = parseBody(text); // each id kept as sent, to be answered byte for byte
    } catch {
      return refusal(400, PARSE_ERROR, 'Parse error: the body is not JSON');
    }
    try {
      const { status, body } = await rpc.handle(
        value,
        mcpHeaders((name) => input.header(name) ?? null),
      );
      return output(status, body);
    } catch (error) {
      log('mcp: request failed:', error);
      return refusal(500, -32603, 'Internal error');
    }
  }

  return async function serveMcp(input: McpInput): Promise<Answer> {
    return beforeBody(input) ?? afterBody(input, await input.body(LIMITS.bodyBytes));
  };
}
