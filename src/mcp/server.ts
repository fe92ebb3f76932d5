/**
 * The MCP server: one JSON-RPC message (or a 2025-03-26 batch) in, the answer out, following the
 * version the message is served in (versionOf in protocol.ts): `structuredContent` and
 * `outputSchema` from 2025-06-18; a bad argument is an `isError` result from 2025-11-25 and -32602
 * before; an unknown tool is -32601 "Tool not found" before 2025-11-25 and -32602 from then on;
 * 2026-07-28 results carry `resultType` and the server information. Stateless: nothing is kept
 * between requests, and everything that does not depend on the request is built once (catalog.ts).
 */
import type { Core, Handler } from '../api/app.ts';
import { stampOf, type ReadyAnswer } from '../api/ready.ts';
import type { Log } from '../api/edge.ts';
import { keepBytes } from '../lib/kept-bytes.ts';
import { readUpTo } from '../lib/read-up-to.ts';
import { ApiError } from '../api/responses.ts';
import { MODERN_RESULT_FIELDS, narrowing, type Catalog } from './catalog.ts';
import {
  atLeast,
  errorText,
  FALLBACK_LEGACY_VERSION,
  idOf,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  LEGACY_VERSIONS,
  LIMITS,
  METHOD_NOT_FOUND,
  mib,
  MODERN_VERSION,
  readMessage,
  resultText,
  RpcError,
  SERVER_ERROR,
  versionOf,
  type JsonRpcId,
  type McpHeaders,
  type Message,
} from './protocol.ts';
import { forAgents, readArguments, restUrl, TOOL_BY_NAME, TOOLS, type ToolDefinition } from './tools.ts';
import { INVALID_REQUEST as INVALID_REQUEST_MESSAGE } from '../api/query.ts';

export { HEADERLESS_VERSION, LEGACY_VERSIONS, MODERN_VERSION } from './protocol.ts';

/** A piece of JSON text: a string, or bytes already encoded (kept, or made once). */
export type Piece = string | Uint8Array;
/** JSON text: one string, or pieces joined only when sent. */
export type Json = string | Piece[];

const piecesOf = (json: Json) => (typeof json === 'string' ? [json] : json);
export const byteLength = (json: Json) =>
  piecesOf(json).reduce((n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : p.byteLength), 0);

/**
 * The body as it is sent: adjacent strings joined, bytes as they are. Joining the pieces into one
 * buffer costs more than the writes it saves (bench), and a leading string goes out with the
 * response head in one chunk (node:http joins them), so it is never encoded on its own.
 */
export function piecesToSend(json: Json): Piece[] {
  const pieces: Piece[] = [];
  let text = '';
  for (const piece of piecesOf(json)) {
    if (typeof piece === 'string') text += piece;
    else {
      if (text) pieces.push(text);
      text = '';
      pieces.push(piece);
    }
  }
  if (text) pieces.push(text);
  return pieces;
}

/** The body in bytes: each string encoded, bytes as they are (for a web Response, or a coding). */
export const bodyOf = (json: Json): Uint8Array[] =>
  piecesToSend(json).map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));

export interface Answer {
  status: number;
  /** JSON, or undefined for 202 with no body. */
  body?: Json;
}

type Request = Extract<Message, { kind: 'request' }>;
/** A result as JSON, or a JSON-RPC error. */
type Outcome = Json | RpcError;
/**
 * A value now, or later. A tool call answered from a ready REST answer is worked out with no
 * await at all: under load, each turn through the promise queue costs more than the call itself.
 */
type Maybe<T> = T | Promise<T>;
const then = <T, U>(value: Maybe<T>, next: (value: T) => U): Maybe<U> =>
  value instanceof Promise ? value.then(next) : next(value);

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const documentationUrl = (site: string, anchor: string) => `${site}/docs/ai#${anchor}`;

/**
 * The REST body as the text item needs it (a JSON string) and as structuredContent (as it is).
 * An answer of the same data differs only from its `"timestamp":"` on, so the part before it is
 * kept per ETag, as bytes both raw and quoted: a repeated call copies bytes instead of quoting
 * and encoding the whole body again. Bounded in count and size.
 */
const KEPT = 64;
const KEPT_MAX_BYTES = 128 * 1024;
const TIMESTAMP = Buffer.from('"timestamp":"');
const kept = new Map<string, { head: Buffer; quoted: Buffer }>();

function bodyPieces(raw: Buffer, etag: string | null): { quoted: Json; raw: Json } {
  const cut = etag && raw.byteLength <= KEPT_MAX_BYTES ? raw.lastIndexOf(TIMESTAMP) : -1;
  if (cut < 0) {
    const text = raw.toString('utf8');
    return { quoted: JSON.stringify(text), raw: text };
  }
  const head = raw.subarray(0, cut);
  let known = kept.get(etag!);
  if (!known?.head.equals(head)) {
    known = {
      head: keepBytes(Buffer.from(head)),
      quoted: keepBytes(Buffer.from(JSON.stringify(head.toString('utf8')).slice(0, -1))),
    };
    if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
    kept.set(etag!, known);
  }
  const tail = raw.subarray(cut).toString('utf8');
  return { quoted: [known.quoted, JSON.stringify(tail).slice(1)], raw: [known.head, tail] };
}

/**
 * At most `size` tasks at once, the others waiting in order; a task of a batch starts in a turn
 * of the event loop of its own. The REST core answers from memory, so a batch of calls would
 * otherwise run as one unbroken chain of promises, and every other request (health too) would
 * wait for the whole batch. A call of its own arrives in an I/O turn already and needs none.
 */
function semaphore(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>, ownTurn: boolean): Promise<T> {
    if (free > 0) free--;
    else await new Promise<void>((turn) => waiting.push(turn));
    try {
      if (ownTurn) await new Promise((turn) => setImmediate(turn));
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/**
 * The REST request of a URL. A GET request has no body to use up and the core only reads it, so
 * one request object per URL is kept and passed again (bounded).
 */
const REQUESTS_KEPT = 256;
const requests = new Map<string, globalThis.Request>();
function restRequest(url: URL): globalThis.Request {
  const key = url.href;
  let request = requests.get(key);
  if (!request) {
    request = new globalThis.Request(key);
    if (requests.size >= REQUESTS_KEPT) requests.delete(requests.keys().next().value!);
    requests.set(key, request);
  }
  return request;
}

/**
 * A ready REST answer as the two forms a result needs, with no copy of its body: its head as it is
 * and quoted (made once per ready answer, kept while the core keeps the answer).
 */
const quotedHeads = new WeakMap<ReadyAnswer, Buffer>();
function quotedHead(kept: ReadyAnswer): Buffer {
  let quoted = quotedHeads.get(kept);
  if (!quoted) {
    const head = Buffer.from(kept.head.buffer, kept.head.byteOffset, kept.head.byteLength).toString('utf8');
    quotedHeads.set(kept, (quoted = keepBytes(Buffer.from(JSON.stringify(head).slice(0, -1)))));
    keepBytes(kept.head);
  }
  return quoted;
}

/** A tool result's JSON around its two copies of the body: the text item's string, then structuredContent. */
const TEXT_OPEN = '{"content":[{"type":"text","text":';
/** What closes a tool result in this version, after its text item (or after structuredContent). */
const resultEnd = (version: string, isError: boolean) =>
  `${isError ? ',"isError":true' : ''}${version === MODERN_VERSION ? `,${MODERN_RESULT_FIELDS}` : ''}}`;
/** What follows the text item's string: structuredContent opened, or the result closed. */
const afterText = (version: string, isError: boolean, structured: boolean) =>
  structured ? '}],"structuredContent":' : `}]${resultEnd(version, isError)}`;

/**
 * What follows each head in a result from a ready answer: the call's timestamp and `"}` (a
 * timestamp has no character JSON escapes) and the result's own punctuation. The same for every
 * call of a version in a millisecond, so encoded once per millisecond and version.
 */
interface ReadyTails {
  stamp: string;
  /** After the quoted head: the text item's end, and `structuredContent` opened or the result closed. */
  quoted: Buffer;
  /** After the head as it is (from 2025-06-18): the result closed. */
  raw: Buffer;
}
const readyTails = new Map<string, ReadyTails>();
function tailsAt(version: string, stamp: string): ReadyTails {
  let tails = readyTails.get(version);
  if (tails?.stamp !== stamp) {
    tails = {
      stamp,
      quoted: Buffer.from(`${stamp}\\"}"${afterText(version, false, atLeast(version, '2025-06-18'))}`),
      raw: Buffer.from(`${stamp}"}${resultEnd(version, false)}`),
    };
    readyTails.set(version, tails); // one entry per protocol version at most
  }
  return tails;
}

/** A call's REST request: its URL, and its path and query as the core keys ready answers. */
interface RestTarget {
  url: URL;
  key: string;
}

/** The REST core the tools call: any handler, and where it is the core itself, its ready answers. */
type RestApi = Handler & Partial<Pick<Core, 'readyAnswer' | 'serveReady' | 'now'>>;

export function createRpc(options: { api: RestApi; site: string; catalog: () => Promise<Catalog>; log: Log }) {
  const { api, site, log } = options;
  const ready = api.readyAnswer && api.serveReady && api.now ? (api as Core) : undefined;
  const inTurn = semaphore(LIMITS.concurrentToolCalls);

  /**
   * The REST request of a call, remembered for the calls agents repeat (at most 256 calls whose
   * arguments are at most 256 characters in JSON): parsing a URL costs more than the rest of a
   * call answered from a ready answer.
   */
  const TARGETS_KEPT = 256;
  const TARGET_MEMO_CHARS = 256;
  const targets = new Map<string, RestTarget>();
  function restTarget(tool: ToolDefinition, values: Record<string, string>): RestTarget {
    let memo = tool.name;
    for (const _ in values) {
      memo = `${tool.name} ${JSON.stringify(values)}`;
      break;
    }
    let target = targets.get(memo);
    if (!target) {
      const url = restUrl(tool, values, site);
      target = { url, key: `${url.pathname}${url.search}` };
      if (memo.length > TARGET_MEMO_CHARS) return target;
      if (targets.size >= TARGETS_KEPT) targets.delete(targets.keys().next().value!);
      targets.set(memo, target);
    }
    return target;
  }

  /** A tool result: one text item, from 2025-06-18 the same JSON as structuredContent (spliced in as it is, not parsed and written again). */
  function toolResult(version: string, body: string | { quoted: Json; raw: Json }, isError: boolean): Json {
    const { quoted, raw } = typeof body === 'string' ? { quoted: JSON.stringify(body), raw: body } : body;
    const structured = !isError && atLeast(version, '2025-06-18');
    return [
      TEXT_OPEN,
      ...piecesOf(quoted),
      afterText(version, isError, structured),
      ...(structured ? [...piecesOf(raw), resultEnd(version, isError)] : []),
    ];
  }

  /** A bad argument: an isError result from 2025-11-25 on (the model reads it and corrects the call), -32602 before. */
  function badArguments(version: string, message: string, hint: string): Outcome {
    if (!atLeast(version, '2025-11-25'))
      return new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${message === INVALID_REQUEST_MESSAGE ? '' : `${message}. `}${hint}`,
      );
    return toolResult(version, JSON.stringify(new ApiError('invalid_request', message, hint).body(site)), true);
  }

  function callTool(version: string, params: Record<string, unknown>, inBatch: boolean): Maybe<Outcome> {
    const { name } = params;
    if (typeof name !== 'string')
      return new RpcError(
        INVALID_PARAMS,
        'Invalid params: tools/call needs params.name, the name of a tool (tools/list lists them)',
      );
    const tool = TOOL_BY_NAME.get(name);
    if (!tool) {
      if (!atLeast(version, '2025-11-25')) return new RpcError(METHOD_NOT_FOUND, 'Tool not found');
      return new RpcError(
        INVALID_PARAMS,
        `Invalid params: there is no tool named ${JSON.stringify(name.slice(0, 80))}. The tools: ${TOOLS.map((t) => t.name).join(', ')}.`,
      );
    }
    const args = readArguments(tool, params.arguments);
    // The REST endpoint's message for the same mistake (the body a tool returns is the REST body); the hint names the tool's arguments.
    if ('problems' in args) return badArguments(version, INVALID_REQUEST_MESSAGE, args.problems);
    const target = restTarget(tool, args.values);
    // A call of its own whose REST answer is ready is answered at once: no memory is held past
    // this turn, so it needs no place in the semaphore (a batch's calls still take turns).
    const now = inBatch ? undefined : readyResult(version, target);
    return now ?? inTurn(async () => readyResult(version, target) ?? callRest(version, tool, target.url), inBatch);
  }

  /** The result from the core's ready answer to a call, when it keeps one that a result may hold. */
  function readyResult(version: string, target: RestTarget): Outcome | undefined {
    const kept = ready?.readyAnswer(target.key);
    // A timestamp and `"}` follow the head: 26 bytes.
    if (!kept?.stamped || kept.status < 200 || kept.status >= 300 || kept.head.length + 26 > LIMITS.resultBytes)
      return undefined;
    // toolResult's pieces, with everything but the opening made before this call.
    const tails = tailsAt(version, stampOf(ready!.now()));
    if (!atLeast(version, '2025-06-18')) return [TEXT_OPEN, quotedHead(kept), tails.quoted];
    return [TEXT_OPEN, quotedHead(kept), tails.quoted, kept.head, tails.raw];
  }

  /**
   * The REST answer to a URL (other than a ready result, readyResult): from the core's ready
   * answer when it keeps one (no Request, Response or stream), else through the core as any
   * caller; the body undefined past the result limit.
   */
  async function restAnswer(url: URL): Promise<{ status: number; etag: string | null; raw: Buffer | undefined }> {
    const kept = ready?.readyAnswer(`${url.pathname}${url.search}`);
    if (kept) {
      const served = ready!.serveReady(kept, { method: 'GET' });
      const parts = served.body ?? [];
      const one = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      const raw = Buffer.from(one.buffer, one.byteOffset, one.byteLength);
      const etag = served.headers.find(([name]) => name === 'etag')?.[1] ?? null;
      return { status: served.status, etag, raw: raw.length > LIMITS.resultBytes ? undefined : raw };
    }
    const response = await api(restRequest(url));
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      raw: await readUpTo(response.body, LIMITS.resultBytes),
    };
  }

  async function callRest(version: string, tool: ToolDefinition, url: URL): Promise<Outcome> {
    let answer: Awaited<ReturnType<typeof restAnswer>>;
    try {
      answer = await restAnswer(url);
    } catch (error) {
      log('mcp: tool failed:', error);
      return new RpcError(INTERNAL_ERROR, 'Internal error');
    }
    const { status, etag, raw } = answer;
    if (raw === undefined) return toolResult(version, await tooLarge(tool), true);
    if (status >= 200 && status < 300) return toolResult(version, bodyPieces(raw, etag), false);
    const body = JSON.parse(raw.toString('utf8')) as { message: string; hint: string };
    // REST's own argument rules (the date combinations) are argument errors here too.
    if (status === 400) return badArguments(version, forAgents(body.message), forAgents(body.hint));
    return toolResult(
      version,
      JSON.stringify({ ...body, message: forAgents(body.message), hint: forAgents(body.hint) }),
      true,
    );
  }

  async function tooLarge(tool: ToolDefinition): Promise<string> {
    const dataset = tool.endpoint.dataset;
    const sizes = (await options.catalog()).sizes.get(dataset.slug);
    const narrower = narrowing(dataset, sizes);
    const how =
      tool.kind === 'timeSeries' ? `${narrower[0]!.toUpperCase()}${narrower.slice(1)}.` : 'Call a narrower tool.';
    const error = new ApiError(
      'invalid_request',
      'Result too large',
      `This result is over ${mib(LIMITS.resultBytes)}, the most one tool result may hold. ${how}`,
    );
    return JSON.stringify({ ...error.body(site), documentationUrl: documentationUrl(site, 'limits') });
  }

  function dispatch(request: Request, version: string, inBatch = false): Maybe<Outcome> {
    const params = isObject(request.params) ? request.params : {};
    if (request.method === 'tools/call') return callTool(version, params, inBatch);
    return catalogMethod(request, params, version);
  }

  /** Every method but tools/call. */
  async function catalogMethod(request: Request, params: Record<string, unknown>, version: string): Promise<Outcome> {
    if (version === MODERN_VERSION) {
      switch (request.method) {
        case 'server/discover':
          return (await options.catalog()).discover;
        case 'tools/list':
          return (await options.catalog()).toolsList(version);
        default:
          return new RpcError(
            METHOD_NOT_FOUND,
            `Method not found: ${request.method.slice(0, 80)} (protocol ${MODERN_VERSION} has server/discover, tools/list and tools/call)`,
            undefined,
            404,
          );
      }
    }
    switch (request.method) {
      case 'initialize': {
        const asked = params.protocolVersion;
        if (typeof asked !== 'string')
          return new RpcError(INVALID_PARAMS, 'Invalid params: initialize needs params.protocolVersion');
        return (await options.catalog()).initialize(
          (LEGACY_VERSIONS as readonly string[]).includes(asked) ? asked : FALLBACK_LEGACY_VERSION,
        );
      }
      case 'ping':
        return '{}';
      case 'tools/list':
        return (await options.catalog()).toolsList(version);
      default:
        return new RpcError(METHOD_NOT_FOUND, 'Method not found');
    }
  }

  const reply = (id: JsonRpcId, outcome: Outcome): Json =>
    outcome instanceof RpcError ? errorText(id, outcome) : resultText(id, outcome);
  const refuse = (value: unknown, error: RpcError): Answer => ({
    status: error.status === 200 ? 400 : error.status,
    body: errorText(idOf(value), error),
  });

  function single(value: unknown, headers: McpHeaders): Maybe<Answer> {
    const message = readMessage(value);
    if (message instanceof RpcError) return refuse(value, message);
    if (message.kind === 'response') return { status: 202 };
    const version = versionOf(message, headers);
    if (version instanceof RpcError) return refuse(value, version);
    if (message.kind === 'notification') return { status: 202 };
    return then(dispatch(message, version), (outcome) => ({
      status: outcome instanceof RpcError ? outcome.status : 200,
      body: reply(message.id, outcome),
    }));
  }

  const limitError = (message: string, limit: keyof typeof LIMITS) =>
    new RpcError(SERVER_ERROR, message, { limit, max: LIMITS[limit] });

  /** A 2025-03-26 batch: each message answered in turn, within the batch limits. */
  async function batch(values: unknown[], headers: McpHeaders): Promise<Answer> {
    const refuseAll = (why: string, limit?: keyof typeof LIMITS): Answer => ({
      status: 400,
      body: errorText(
        null,
        new RpcError(INVALID_REQUEST, `Invalid Request: ${why}`, limit ? { limit, max: LIMITS[limit] } : undefined),
      ),
    });
    if (headers.version !== undefined && headers.version !== '2025-03-26' && headers.version !== '2024-11-05') {
      return refuseAll(
        `JSON-RPC batches are not supported in protocol version ${headers.version.slice(0, 40)} (only in 2025-03-26 and earlier); send one message per request`,
      );
    }
    if (values.length === 0) return refuseAll('empty JSON-RPC batch');
    if (values.length > LIMITS.batchMessages)
      return refuseAll(
        `a batch may hold at most ${LIMITS.batchMessages} messages (this one has ${values.length}); send the rest in further requests`,
        'batchMessages',
      );
    const messages: [Exclude<Message, { kind: 'response' }>, string | RpcError][] = [];
    for (const [index, value] of values.entries()) {
      const message = readMessage(value);
      if (message instanceof RpcError)
        return refuseAll(`message ${index} of the batch: ${message.message.replace(/^Invalid Request: /, '')}`);
      if (message.kind === 'response') continue;
      const version = versionOf(message, headers);
      if (version === MODERN_VERSION)
        return refuseAll(
          `message ${index} of the batch is a ${MODERN_VERSION} message; batches are a 2025-03-26 feature`,
        );
      messages.push([message, version]);
    }

    const answers: Json[] = [];
    let calls = 0;
    let bytes = 2;
    for (const [message, version] of messages) {
      if (message.kind === 'notification') continue;
      let outcome: Outcome;
      if (version instanceof RpcError) outcome = version;
      else if (message.method === 'tools/call' && ++calls > LIMITS.batchToolCalls) {
        outcome = limitError(
          `Limit exceeded: a batch may hold at most ${LIMITS.batchToolCalls} tools/call requests, and this is call ${calls}. Send the remaining calls in another request.`,
          'batchToolCalls',
        );
      } else if (bytes >= LIMITS.responseBytes) {
        outcome = limitError(budgetMessage(bytes), 'responseBytes');
      } else outcome = await dispatch(message, version, true);
      let answer = reply(message.id, outcome);
      if (bytes + byteLength(answer) + 1 > LIMITS.responseBytes)
        answer = reply(message.id, limitError(budgetMessage(bytes), 'responseBytes'));
      bytes += byteLength(answer) + 1;
      answers.push(answer);
    }
    if (answers.length === 0) return { status: 202 };
    return { status: 200, body: ['[', ...answers.flatMap((a, i) => (i ? [',', ...piecesOf(a)] : piecesOf(a))), ']'] };
  }

  const budgetMessage = (used: number) =>
    `Limit exceeded: the answer to one request may hold at most ${mib(LIMITS.responseBytes)}, and the answers before this one hold ${mib(used)}. ` +
    'Send this call in a request of its own, or narrow it (a time series: institutionId or issuerId, or a shorter startDate–endDate range).';

  return {
    /** The answer to one parsed JSON body (a message or a batch): at once when nothing had to wait. */
    handle(value: unknown, headers: McpHeaders): Maybe<Answer> {
      return Array.isArray(value) ? batch(value, headers) : single(value, headers);
    },
  };
}
