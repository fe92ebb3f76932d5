/**
 * The MCP wire rules this endpoint keeps: protocol versions, JSON-RPC codes, the limits, and the
 * classification of one message into its protocol version (versionOf; the versions are tabled
 * at /docs/ai#protocol-versions). Plain data and functions, no SDK: the endpoint is a small, fixed
 * server, and owning these rules keeps each of them exact.
 */

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/** Every version this server speaks, newest first: what server/discover and -32022 list. */
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, ...LEGACY_VERSIONS];
/** The version a legacy request has when it sends no MCP-Protocol-Version header. */
export const HEADERLESS_VERSION = '2025-03-26';
/** What `initialize` answers when the client asks for a version this server does not speak. */
export const FALLBACK_LEGACY_VERSION = '2025-11-25';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** resources/read of a URI no resource has, before 2026-07-28; from then on it is INVALID_PARAMS (SEP-2164). */
export const RESOURCE_NOT_FOUND = -32002;
/** Transport-level refusals (wrong HTTP method, media type, Host) and the limits below. */
export const SERVER_ERROR = -32000;
const HEADER_MISMATCH = -32020;
const UNSUPPORTED_VERSION = -32022;

/** Versions are dates, so they compare as strings. */
export const atLeast = (version: string, since: string) => version >= since;

/**
 * Limits on the work one request may cause, each far above what an agent can use and far below
 * what hurts the server (bench/RESULTS.md, MCP attacks; content/docs/ai.md, Limits).
 */
export const LIMITS = {
  /** Request body: larger bodies get 413 without the rest being read. */
  bodyBytes: 256 * 1024,
  /** Messages in one JSON-RPC batch (protocol 2025-03-26 without a version header only). */
  batchMessages: 100,
  /** tools/call requests in one batch; the calls past it get a -32000 error each. */
  batchToolCalls: 20,
  /** The JSON one tool result may hold (the REST body); a larger one is an isError result asking for a narrower call. */
  resultBytes: 1024 * 1024,
  /** The JSON-RPC response bytes one HTTP request may produce; calls past it get a -32000 error each. */
  responseBytes: 4 * 1024 * 1024,
  /**
   * Tool calls the process works on at once; further calls wait their turn. Work is one thread
   * anyway, so this costs no throughput; it bounds the memory in flight, and the pauses that
   * memory causes, so health and REST stay quick while an agent (or an attacker) asks for a lot.
   */
  concurrentToolCalls: 4,
} as const;

export const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** The HTTP status when this error answers the whole request (2026-07-28 and transport rules). */
    readonly status = 200,
  ) {
    super(message);
  }
}

/** JSON text written as it is by JSON.stringify (JSON.rawJSON, Node 21 and later). */
export interface RawJson {
  readonly rawJSON: string;
}
const RAW = JSON as typeof JSON & {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
};

/** A request's id: as parsed, or (from a body, parseBody) its JSON text as sent. */
export type JsonRpcId = string | number | RawJson;
const isId = (value: unknown): value is JsonRpcId =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || RAW.isRawJSON(value);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export type Message =
  | { kind: 'request'; id: JsonRpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response' };

/** The JSON-RPC shape of one message, or the -32600 error. */
export function readMessage(value: unknown): Message | RpcError {
  const invalid = (why: string) => new RpcError(INVALID_REQUEST, `Invalid Request: ${why}`, undefined, 400);
  if (!isPlainObject(value)) return invalid('a JSON-RPC message is an object');
  if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');
  if ('method' in value) {
    if (typeof value.method !== 'string') return invalid('"method" must be a string');
    if (value.params !== undefined && !isPlainObject(value.params)) return invalid('"params" must be an object');
    if (!('id' in value)) return { kind: 'notification', method: value.method, params: value.params };
    if (!isId(value.id)) return invalid('"id" must be a string or a number');
    return { kind: 'request', id: value.id, method: value.method, params: value.params };
  }
  if (('result' in value || 'error' in value) && isId(value.id)) return { kind: 'response' };
  return invalid('neither a request, a notification nor a response');
}

export interface McpHeaders {
  version?: string;
  method?: string;
  name?: string;
}

/** The MCP headers, each with optional whitespace removed; absent or empty is undefined. */
export function mcpHeaders(header: (name: string) => string | null): McpHeaders {
  const read = (name: string) => header(name)?.trim() || undefined;
  return { version: read('mcp-protocol-version'), method: read('mcp-method'), name: read('mcp-name') };
}

const mismatch = (message: string) => new RpcError(HEADER_MISMATCH, `Header mismatch: ${message}`, undefined, 400);
const unsupported = (requested: string) =>
  new RpcError(
    UNSUPPORTED_VERSION,
    `Unsupported protocol version: ${requested}. This server supports ${SUPPORTED_VERSIONS.join(', ')}.`,
    { supported: SUPPORTED_VERSIONS, requested },
    400,
  );

/**
 * The protocol version one request or notification is served in, or why it is refused.
 *
 * The version named in `params._meta` decides (a 2026-07-28 request must name it; a request may
 * also name a legacy version there); the MCP-Protocol-Version header must agree with it. Without
 * a `_meta` version, the header decides, and no header means 2025-03-26. `initialize` is the
 * legacy handshake: its version is negotiated from its params, not read from the header.
 * A 2026-07-28 message must carry MCP-Protocol-Version and Mcp-Method (and Mcp-Name for
 * tools/call, prompts/get and resources/read), equal to the body.
 */
export function versionOf(message: Exclude<Message, { kind: 'response' }>, headers: McpHeaders): string | RpcError {
  const params = isPlainObject(message.params) ? message.params : undefined;
  const meta = params && isPlainObject(params._meta) ? params._meta : undefined;
  const claimed = meta && Object.hasOwn(meta, PROTOCOL_VERSION_KEY) ? meta[PROTOCOL_VERSION_KEY] : undefined;

  if (message.method === 'initialize' && claimed !== MODERN_VERSION) {
    if (headers.version === MODERN_VERSION)
      return mismatch(`initialize is the legacy handshake, but MCP-Protocol-Version names ${MODERN_VERSION}`);
    return FALLBACK_LEGACY_VERSION; // the handshake negotiates its own version
  }

  let version: string;
  if (claimed !== undefined) {
    if (typeof claimed !== 'string')
      return new RpcError(
        INVALID_PARAMS,
        `Invalid params: _meta["${PROTOCOL_VERSION_KEY}"] must be a protocol version string`,
        { missing: [PROTOCOL_VERSION_KEY] },
        400,
      );
    if (headers.version !== undefined && headers.version !== claimed) {
      return mismatch(
        `the body's _meta names protocol version ${claimed}, the MCP-Protocol-Version header ${headers.version}`,
      );
    }
    if (!SUPPORTED_VERSIONS.includes(claimed)) return unsupported(claimed);
    version = claimed;
  } else if (headers.version === MODERN_VERSION) {
    const missing = meta
      ? [PROTOCOL_VERSION_KEY, ...(isPlainObject(meta[CLIENT_CAPABILITIES_KEY]) ? [] : [CLIENT_CAPABILITIES_KEY])]
      : ['_meta'];
    return new RpcError(
      INVALID_PARAMS,
      `Invalid params: protocol ${MODERN_VERSION} needs params._meta with "${PROTOCOL_VERSION_KEY}" and "${CLIENT_CAPABILITIES_KEY}"; missing: ${missing.join(', ')}`,
      { missing },
      400,
    );
  } else if (headers.version !== undefined) {
    if (!SUPPORTED_VERSIONS.includes(headers.version)) return unsupported(headers.version);
    version = headers.version;
  } else {
    version = HEADERLESS_VERSION;
  }

  if (version !== MODERN_VERSION) return version;
  if (message.kind === 'request' && !isPlainObject(meta![CLIENT_CAPABILITIES_KEY])) {
    return new RpcError(
      INVALID_PARAMS,
      `Invalid params: _meta["${CLIENT_CAPABILITIES_KEY}"] must be an object (the client's capabilities, {} for none)`,
      { missing: [CLIENT_CAPABILITIES_KEY] },
      400,
    );
  }
  if (headers.version === undefined)
    return mismatch(`protocol ${MODERN_VERSION} needs the MCP-Protocol-Version header, equal to the _meta version`);
  if (headers.method === undefined)
    return mismatch(
      `protocol ${MODERN_VERSION} needs the Mcp-Method header, equal to the body's method (${message.method})`,
    );
  if (headers.method !== message.method)
    return mismatch(`the body's method is ${message.method}, the Mcp-Method header ${headers.method}`);
  const field = Object.hasOwn(NAMED_BY, message.method) ? NAMED_BY[message.method] : undefined;
  const named = field === undefined ? undefined : params?.[field];
  // An empty name is one no header can carry (an empty header is an absent one): it needs none.
  if (typeof named === 'string' && (headers.name ?? '') !== named) {
    if (headers.name === undefined)
      return mismatch(`${message.method} needs the Mcp-Name header, equal to params.${field} (${named.slice(0, 200)})`);
    return mismatch(`params.${field} is ${named.slice(0, 200)}, the Mcp-Name header ${headers.name.slice(0, 200)}`);
  }
  return version;
}

/**
 * The body field a 2026-07-28 request's Mcp-Name header repeats, by method (SEP-2243): the tool's
 * or the prompt's name, the resource's URI.
 */
const NAMED_BY: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

const CLOSE = Buffer.from('}');

/**
 * A result's JSON-RPC response: the caller's id around the result's JSON, text or UTF-8 bytes (a
 * kept result, sent as it is: the bytes are a whole JSON value, so the response is valid JSON
 * whatever the id).
 */
export function resultText(id: JsonRpcId, result: string | Uint8Array): string | readonly Uint8Array[] {
  const open = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  if (typeof result === 'string') return `${open}${result}}`;
  // In parts, written as they are: the kept result is not copied per call.
  return [Buffer.from(open), result, CLOSE];
}

export function errorText(id: JsonRpcId | null, error: RpcError): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
  });
}

/**
 * A request body as JSON, each message's `id` (the body's, or each of a batch's) kept as the JSON
 * text it was sent as, so it is answered byte for byte as sent: `9007199254740993` is not a double
 * (it would come back `9007199254740992`), and `1.0`, `1e3`, `-0` or `"\u0041"` come back so
 * written. An id that is not a valid one as parsed (`1e400` is Infinity) is left as parsed, for
 * readMessage to refuse. Throws as JSON.parse does.
 */
export function parseBody(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const sources = idSources(text);
  const keep = (message: unknown, source: string | undefined) => {
    if (!isPlainObject(message) || source === undefined) return;
    const { id } = message;
    // The text read must be the id parsed: a string or finite number equal to it, or it is not used.
    if ((typeof id === 'string' || typeof id === 'number') && isId(id) && Object.is(JSON.parse(source), id))
      message.id = RAW.rawJSON(source);
  };
  if (Array.isArray(value)) for (const [i, message] of value.entries()) keep(message, sources[i]);
  else keep(value, sources[0]);
  return value;
}

/**
 * The JSON text of the `id` member of the top-level object, or of each top-level array element
 * (undefined where there is none), in a text JSON.parse accepted: one pass, no value built, so a
 * 256 KiB body costs a scan of it. A repeated `id` is the last, as JSON.parse keeps the last.
 */
function idSources(text: string): (string | undefined)[] {
  const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d];
  const ENDS_SCALAR = ',}] \t\n\r';
  const space = (i: number) => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
    return i;
  };
  /** Past the string starting at `i` (its opening quote). */
  const string = (i: number) => {
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) return i + 1;
      if (c === BACKSLASH) i++;
    }
    return i;
  };
  /** Past the value starting at `i`: a string, an object or array (by depth), or a number or literal. */
  const skip = (i: number) => {
    const first = text.charCodeAt(i);
    if (first === QUOTE) return string(i);
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      while (i < text.length && !ENDS_SCALAR.includes(text[i]!)) i++;
      return i;
    }
    for (let depth = 0; i < text.length; ) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = string(i);
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
      i++;
    }
    return i;
  };
  /** The `id` member's text of the object starting at `i`, and where the object ends. */
  const object = (i: number): { id: string | undefined; end: number } => {
    let id: string | undefined;
    i = space(i + 1);
    if (text[i] === '}') return { id, end: i + 1 };
    for (;;) {
      const keyEnd = string(i);
      const key = text.slice(i, keyEnd);
      const start = space(space(keyEnd) + 1); // past the colon
      const end = skip(start);
      if (key === '"id"' || (key.includes('\\') && JSON.parse(key) === 'id')) id = text.slice(start, end);
      i = space(end);
      if (text[i] !== ',') return { id, end: i + 1 };
      i = space(i + 1);
    }
  };

  let i = space(0);
  if (text[i] === '{') return [object(i).id];
  if (text[i] !== '[') return [];
  const ids: (string | undefined)[] = [];
  i = space(i + 1);
  if (text[i] === ']') return ids;
  for (;;) {
    if (text[i] === '{') {
      const { id, end } = object(i);
      ids.push(id);
      i = end;
    } else {
      ids.push(undefined);
      i = skip(i);
    }
    i = space(i);
    if (text[i] !== ',') return ids;
    i = space(i + 1);
  }
}

/** The id a refusal of this message answers with: its own when that id is valid (even if the rest is not), else null. */
export const idOf = (value: unknown): JsonRpcId | null => (isPlainObject(value) && isId(value.id) ? value.id : null);
