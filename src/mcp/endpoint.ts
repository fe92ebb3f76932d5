/**
 * POST /api/v1/mcp: Streamable HTTP, stateless, JSON responses, no sessions. The HTTP rules are
 * here (CORS, Host allow-list, method, media types, the body limit, JSON parsing); the JSON-RPC
 * rules in server.ts and protocol.ts.
 */
import type { Handler } from '../api/app.ts';
import { corsHeaders, defaultLog, preflightHeaders, type CorsPolicy, type Log } from '../api/edge.ts';
import { servedResponse } from '../api/ready.ts';
import { readUpTo } from '../lib/read-up-to.ts';
import { siteUrl } from '../site.ts';
import { catalogLoader } from './catalog.ts';
import { errorText, LIMITS, mcpHeaders, PARSE_ERROR, RpcError, SERVER_ERROR, INVALID_REQUEST } from './protocol.ts';
import { bodyOf, byteLength, createRpc, piecesToSend, type Json, type Piece } from './server.ts';

/** Largest request body accepted: far above any tool call, small enough that no body can exhaust memory. */
export const MAX_MCP_BODY_BYTES = LIMITS.bodyBytes;

/** Any origin may call the endpoint: POST with the protocol's headers, its version header readable. */
const MCP_CORS: CorsPolicy = {
  methods: ['POST', 'OPTIONS'],
  expose: 'mcp-protocol-version, x-request-id',
  allowHeaders: {
    requested: 'fixed',
    list: 'content-type, accept, mcp-protocol-version, mcp-method, mcp-name, last-event-id, x-request-id',
  },
};
const CORS = corsHeaders(MCP_CORS);

export class BodyTooLarge extends Error {}

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
  const bytes = await readUpTo(request.body, LIMITS.bodyBytes);
  if (!bytes) throw new BodyTooLarge();
  return bytes.toString('utf8');
}

/** What the endpoint reads of a request before its body. */
export interface McpHead {
  method: string;
  /** A request header by its lower-case name. */
  header(name: string): string | null;
}

/** One MCP request as the endpoint reads it, whatever carried it (a web Request, Node's request). */
export interface McpInput extends McpHead {
  /** The body as text; throws BodyTooLarge past LIMITS.bodyBytes without reading the rest. */
  body(): Promise<string>;
}

/**
 * One answer: status, headers (without x-request-id, which the outermost layer stamps) and the
 * body in pieces, text and bytes: a web Response encodes the text (webHandler), Node writes it
 * as it is (node.ts).
 */
export interface McpOutput {
  status: number;
  /** Shared between answers: read, never changed. */
  headers: readonly [string, string][];
  body?: Piece[];
}

/** The headers of a JSON answer with no others, shared by every answer of its length (bounded). */
const jsonHeaders = new Map<number, readonly [string, string][]>();
function jsonHeadersOf(length: number): readonly [string, string][] {
  let headers = jsonHeaders.get(length);
  if (!headers) {
    headers = [...CORS, ['content-type', 'application/json'], ['content-length', String(length)]];
    if (jsonHeaders.size >= 64) jsonHeaders.clear();
    jsonHeaders.set(length, headers);
  }
  return headers;
}

function output(status: number, json: Json | undefined, headers: [string, string][] = []): McpOutput {
  if (json === undefined) return { status, headers: [...CORS, ...headers] };
  const body = piecesToSend(json);
  const length = byteLength(body);
  return { status, headers: headers.length ? [...jsonHeadersOf(length), ...headers] : jsonHeadersOf(length), body };
}

const refusal = (status: number, code: number, message: string, headers: [string, string][] = []) =>
  output(status, errorText(null, new RpcError(code, message)), headers);

const PREFLIGHT: McpOutput = { status: 204, headers: preflightHeaders(MCP_CORS, null) };

/** A function of a header's value, remembered for the few values clients send (bounded). */
function remembered<T>(compute: (value: string) => T, kept = 64): (value: string | null) => T {
  const known = new Map<string, T>();
  return (value) => {
    const key = value ?? '';
    let result = known.get(key);
    if (result === undefined && !known.has(key)) {
      result = compute(key);
      if (known.size >= kept) known.clear();
      known.set(key, result);
    }
    return result as T;
  };
}

/** What an Accept header admits: JSON, and an event stream (parameters dropped). */
const acceptance = remembered((accept) => {
  const types = new Set(accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase()));
  return {
    json: types.has('application/json') || types.has('application/*') || types.has('*/*'),
    stream: types.has('text/event-stream') || types.has('text/*') || types.has('*/*'),
  };
});

/** Host names from the allow-list, plus the deployment's own public name (from the site URL). */
export function allowedHostNames(allowedHosts: string[] | undefined, site: string): Set<string> | undefined {
  if (!allowedHosts) return undefined;
  return new Set([...allowedHosts, new URL(site).hostname].map((h) => h.toLowerCase()));
}

const hostNameOf = remembered((host): string | undefined => {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
});

/** A Content-Type's media type, lower case, parameters dropped. */
const mediaType = remembered((type) => type.split(';')[0]!.trim().toLowerCase());

export interface McpEndpointOptions {
  /**
   * Host names the endpoint answers to, set when the server listens on a loopback address, so a
   * web page cannot reach a local server through DNS rebinding; the site URL's host is always
   * allowed too. Unset: every host.
   */
  allowedHosts?: string[];
  /** The origin of the URLs in tool results (default siteUrl()); never the request's. */
  siteUrl?: string;
  /** Where failures are reported (the service passes its own). */
  log?: Log;
}

/**
 * The endpoint with no web objects: the HTTP rules here, the JSON-RPC rules in server.ts. Called
 * whole, it reads the body itself (input.body); a caller that reads the body its own way calls
 * its two steps, and gets an answer from a ready REST answer with no await at all.
 */
export interface McpCore {
  (input: McpInput): Promise<McpOutput>;
  /** The refusal that needs no body (preflight, Host, method), or undefined: read the body. */
  beforeBody(head: McpHead): McpOutput | undefined;
  /** The answer to a request whose body is `text`, or was over the limit (undefined). */
  afterBody(head: McpHead, text: string | undefined): McpOutput | Promise<McpOutput>;
}

export function createMcpCore(api: Handler, options: McpEndpointOptions = {}): McpCore {
  const site = options.siteUrl ?? siteUrl();
  const allowed = allowedHostNames(options.allowedHosts, site);
  const log = options.log ?? defaultLog;
  const rpc = createRpc({ api, site, catalog: catalogLoader(api, site), log });

  function beforeBody(input: McpHead): McpOutput | undefined {
    if (input.method === 'OPTIONS') return PREFLIGHT;
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
      return refusal(405, SERVER_ERROR, 'Method not allowed: this MCP endpoint is stateless and takes POST only', [
        ['allow', MCP_CORS.methods.join(', ')],
      ]);
    }
    return undefined;
  }

  function afterBody(input: McpHead, text: string | undefined): McpOutput | Promise<McpOutput> {
    if (text === undefined)
      return refusal(413, INVALID_REQUEST, `Invalid Request: the body is larger than ${LIMITS.bodyBytes} bytes`);
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
      value = JSON.parse(text);
    } catch {
      return refusal(400, PARSE_ERROR, 'Parse error: the body is not JSON');
    }
    const failed = (error: unknown) => {
      log('mcp: request failed:', error);
      return refusal(500, -32603, 'Internal error');
    };
    try {
      const answer = rpc.handle(value, mcpHeaders(input.header));
      if (answer instanceof Promise) return answer.then(({ status, body }) => output(status, body), failed);
      return output(answer.status, answer.body);
    } catch (error) {
      return failed(error);
    }
  }

  async function serveMcp(input: McpInput): Promise<McpOutput> {
    const early = beforeBody(input);
    if (early) return early;
    let text: string | undefined;
    try {
      text = await input.body();
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
    }
    return afterBody(input, text);
  }
  return Object.assign(serveMcp, { beforeBody, afterBody });
}

/** The endpoint as a web handler (the Astro route, Vercel, tests). */
export function createMcpEndpoint(api: Handler, options: McpEndpointOptions = {}): Handler {
  return webHandler(createMcpCore(api, options));
}

/** A core behind a web handler: the Request read as input, the output as a Response. */
export function webHandler(core: McpCore): Handler {
  return async (request: Request) => {
    const { status, headers, body } = await core({
      method: request.method,
      header: (name) => request.headers.get(name),
      body: () => readBody(request),
    });
    // In bytes, an MCP answer has the shape of a served REST answer, and becomes a Response the same way.
    return servedResponse({ status, headers, body: body && bodyOf(body) });
  };
}
