/**
 * The MCP server: one JSON-RPC message (or a 2025-03-26 batch) in, the answer out, following the
 * version the message is served in (spec §4.7): `structuredContent` and `outputSchema` from
 * 2025-06-18; a bad argument is an `isError` result from 2025-11-25 and -32602 before; an unknown
 * tool is -32601 "Tool not found" before 2025-11-25 and -32602 from then on; 2026-07-28 results
 * carry `resultType` and the server information. Stateless: nothing is kept between requests, and
 * everything that does not depend on the request is built once (catalog.ts).
 */
import type { Handler } from '../api/app.ts';
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

export { HEADERLESS_VERSION, LEGACY_VERSIONS, MODERN_VERSION } from './protocol.ts';

export interface Answer {
  status: number;
  /** JSON text, or undefined for 202 with no body. */
  body?: string;
}

type Request = Extract<Message, { kind: 'request' }>;
/** A result as JSON text, or a JSON-RPC error. */
type Outcome = string | RpcError;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const documentationUrl = (site: string, anchor: string) => `${site}/docs/ai#${anchor}`;

/**
 * REST bodies as JSON strings (the text item), with the part before `"timestamp":"` quoted once
 * per ETag and kept: an answer of the same data differs only in its timestamp, so a repeated
 * call quotes a few bytes instead of the whole body. Bounded in count and size.
 */
const QUOTED_KEPT = 64;
const QUOTED_MAX_CHARS = 128 * 1024;
const quotedHeads = new Map<string, { head: string; quoted: string }>();
function quoted(text: string, etag: string | null): string {
  const cut = etag && text.length <= QUOTED_MAX_CHARS ? text.lastIndexOf('"timestamp":"') : -1;
  if (cut < 0) return JSON.stringify(text);
  const head = text.slice(0, cut);
  let kept = quotedHeads.get(etag!);
  if (!kept || kept.head !== head) {
    kept = { head, quoted: JSON.stringify(head).slice(0, -1) };
    if (quotedHeads.size >= QUOTED_KEPT) quotedHeads.delete(quotedHeads.keys().next().value!);
    quotedHeads.set(etag!, kept);
  }
  return kept.quoted + JSON.stringify(text.slice(cut)).slice(1);
}

/**
 * At most `size` tasks at once, the others waiting in order; and each task starts in a turn of
 * the event loop of its own. The REST core answers from memory, so a batch of calls would
 * otherwise run as one unbroken chain of promises, and every other request (health too) would
 * wait for the whole batch.
 */
function semaphore(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (free > 0) free--;
    else await new Promise<void>((turn) => waiting.push(turn));
    try {
      await new Promise((turn) => setImmediate(turn));
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

export function createRpc(options: { api: Handler; site: string; catalog: () => Promise<Catalog> }) {
  const { api, site } = options;
  const inTurn = semaphore(LIMITS.concurrentToolCalls);

  /** A tool result: one text item, from 2025-06-18 the same JSON as structuredContent (spliced in as it is, not parsed and written again). */
  function toolResult(version: string, text: string, isError: boolean, etag: string | null = null): string {
    const content = `"content":[{"type":"text","text":${quoted(text, etag)}}]`;
    const structured = !isError && atLeast(version, '2025-06-18') ? `,"structuredContent":${text}` : '';
    const modern = version === MODERN_VERSION ? `,${MODERN_RESULT_FIELDS}` : '';
    return `{${content}${structured}${isError ? ',"isError":true' : ''}${modern}}`;
  }

  /** A bad argument: an isError result from 2025-11-25 on (the model reads it and corrects the call), -32602 before. */
  function badArguments(version: string, message: string, hint: string): Outcome {
    if (!atLeast(version, '2025-11-25')) return new RpcError(INVALID_PARAMS, `Invalid params: ${message === 'Invalid arguments' ? '' : `${message}. `}${hint}`);
    return toolResult(version, JSON.stringify(new ApiError('invalid_request', message, hint).body(site)), true);
  }

  /** The REST body, read up to the result limit: past it the read stops, and the rest is never made. */
  async function readLimited(response: Response): Promise<string | undefined> {
    if (!response.body) return '';
    const declared = response.headers.get('content-length');
    if (declared !== null && Number(declared) <= LIMITS.resultBytes) return response.text();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > LIMITS.resultBytes) {
        await response.body.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(chunk);
    }
    return chunks.length === 1 ? new TextDecoder().decode(chunks[0]) : Buffer.concat(chunks).toString('utf8');
  }

  async function callTool(version: string, params: Record<string, unknown>): Promise<Outcome> {
    const { name } = params;
    if (typeof name !== 'string') return new RpcError(INVALID_PARAMS, 'Invalid params: tools/call needs params.name, the name of a tool (tools/list lists them)');
    const tool = TOOL_BY_NAME.get(name);
    if (!tool) {
      if (!atLeast(version, '2025-11-25')) return new RpcError(METHOD_NOT_FOUND, 'Tool not found');
      return new RpcError(INVALID_PARAMS, `Invalid params: there is no tool named ${JSON.stringify(name.slice(0, 80))}. The tools: ${TOOLS.map((t) => t.name).join(', ')}.`);
    }
    const args = readArguments(tool, params.arguments);
    if ('problems' in args) return badArguments(version, 'Invalid arguments', args.problems);

    return inTurn(() => callRest(version, tool, args.values));
  }

  async function callRest(version: string, tool: ToolDefinition, values: Record<string, string>): Promise<Outcome> {
    let response: Response;
    let text: string | undefined;
    try {
      response = await api(new Request(restUrl(tool, values, site)));
      text = await readLimited(response);
    } catch (error) {
      console.error('mcp: tool failed:', error);
      return new RpcError(INTERNAL_ERROR, 'Internal error');
    }
    if (text === undefined) return toolResult(version, await tooLarge(tool), true);
    if (response.ok) return toolResult(version, text, false, response.headers.get('etag'));
    const body = JSON.parse(text) as { message: string; hint: string };
    // REST's own argument rules (the date combinations) are argument errors here too.
    if (response.status === 400) return badArguments(version, forAgents(body.message), forAgents(body.hint));
    return toolResult(version, JSON.stringify({ ...body, message: forAgents(body.message), hint: forAgents(body.hint) }), true);
  }

  async function tooLarge(tool: ToolDefinition): Promise<string> {
    const dataset = tool.endpoint.dataset;
    const sizes = (await options.catalog()).sizes.get(dataset.slug);
    const narrower = narrowing(dataset, sizes);
    const how = tool.kind === 'timeSeries' ? `${narrower[0]!.toUpperCase()}${narrower.slice(1)}.` : 'Call a narrower tool.';
    const error = new ApiError('invalid_request', 'Result too large', `This result is over ${mib(LIMITS.resultBytes)}, the most one tool result may hold. ${how}`);
    return JSON.stringify({ ...error.body(site), documentationUrl: documentationUrl(site, 'limits') });
  }

  async function dispatch(request: Request, version: string): Promise<Outcome> {
    const params = isObject(request.params) ? request.params : {};
    if (version === MODERN_VERSION) {
      switch (request.method) {
        case 'server/discover':
          return (await options.catalog()).discover;
        case 'tools/list':
          return (await options.catalog()).toolsList(version);
        case 'tools/call':
          return callTool(version, params);
        default:
          return new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method.slice(0, 80)} (protocol ${MODERN_VERSION} has server/discover, tools/list and tools/call)`, undefined, 404);
      }
    }
    switch (request.method) {
      case 'initialize': {
        const asked = params.protocolVersion;
        if (typeof asked !== 'string') return new RpcError(INVALID_PARAMS, 'Invalid params: initialize needs params.protocolVersion');
        return (await options.catalog()).initialize((LEGACY_VERSIONS as readonly string[]).includes(asked) ? asked : FALLBACK_LEGACY_VERSION);
      }
      case 'ping':
        return '{}';
      case 'tools/list':
        return (await options.catalog()).toolsList(version);
      case 'tools/call':
        return callTool(version, params);
      default:
        return new RpcError(METHOD_NOT_FOUND, 'Method not found');
    }
  }

  const reply = (id: JsonRpcId, outcome: Outcome) => (typeof outcome === 'string' ? resultText(id, outcome) : errorText(id, outcome));
  const refuse = (value: unknown, error: RpcError): Answer => ({ status: error.status === 200 ? 400 : error.status, body: errorText(idOf(value), error) });

  async function single(value: unknown, headers: McpHeaders): Promise<Answer> {
    const message = readMessage(value);
    if (message instanceof RpcError) return refuse(value, message);
    if (message.kind === 'response') return { status: 202 };
    const version = versionOf(message, headers);
    if (version instanceof RpcError) return refuse(value, version);
    if (message.kind === 'notification') return { status: 202 };
    const outcome = await dispatch(message, version);
    return { status: outcome instanceof RpcError ? outcome.status : 200, body: reply(message.id, outcome) };
  }

  const limitError = (message: string, limit: keyof typeof LIMITS) => new RpcError(SERVER_ERROR, message, { limit, max: LIMITS[limit] });

  /** A 2025-03-26 batch: each message answered in turn, within the batch limits. */
  async function batch(values: unknown[], headers: McpHeaders): Promise<Answer> {
    const refuseAll = (why: string, limit?: keyof typeof LIMITS): Answer => ({
      status: 400,
      body: errorText(null, new RpcError(INVALID_REQUEST, `Invalid Request: ${why}`, limit ? { limit, max: LIMITS[limit] } : undefined)),
    });
    if (headers.version !== undefined && headers.version !== '2025-03-26' && headers.version !== '2024-11-05') {
      return refuseAll(`JSON-RPC batches are not supported in protocol version ${headers.version.slice(0, 40)} (only in 2025-03-26 and earlier); send one message per request`);
    }
    if (values.length === 0) return refuseAll('empty JSON-RPC batch');
    if (values.length > LIMITS.batchMessages) return refuseAll(`a batch may hold at most ${LIMITS.batchMessages} messages (this one has ${values.length}); send the rest in further requests`, 'batchMessages');
    const messages: [Exclude<Message, { kind: 'response' }>, string | RpcError][] = [];
    for (const [index, value] of values.entries()) {
      const message = readMessage(value);
      if (message instanceof RpcError) return refuseAll(`message ${index} of the batch: ${message.message.replace(/^Invalid Request: /, '')}`);
      if (message.kind === 'response') continue;
      const version = versionOf(message, headers);
      if (version === MODERN_VERSION) return refuseAll(`message ${index} of the batch is a ${MODERN_VERSION} message; batches are a 2025-03-26 feature`);
      messages.push([message, version]);
    }

    const answers: string[] = [];
    let calls = 0;
    let bytes = 2;
    for (const [message, version] of messages) {
      if (message.kind === 'notification') continue;
      let outcome: Outcome;
      if (version instanceof RpcError) outcome = version;
      else if (message.method === 'tools/call' && ++calls > LIMITS.batchToolCalls) {
        outcome = limitError(`Limit exceeded: a batch may hold at most ${LIMITS.batchToolCalls} tools/call requests, and this is call ${calls}. Send the remaining calls in another request.`, 'batchToolCalls');
      } else if (bytes >= LIMITS.responseBytes) {
        outcome = limitError(budgetMessage(bytes), 'responseBytes');
      } else outcome = await dispatch(message, version);
      let answer = reply(message.id, outcome);
      const size = Buffer.byteLength(answer) + 1;
      if (bytes + size > LIMITS.responseBytes) answer = reply(message.id, limitError(budgetMessage(bytes), 'responseBytes'));
      bytes += Buffer.byteLength(answer) + 1;
      answers.push(answer);
    }
    return answers.length ? { status: 200, body: `[${answers.join(',')}]` } : { status: 202 };
  }

  const budgetMessage = (used: number) =>
    `Limit exceeded: the answer to one request may hold at most ${mib(LIMITS.responseBytes)}, and the answers before this one hold ${mib(used)}. ` +
    'Send this call in a request of its own, or narrow it (a time series: institutionId or issuerId, or a shorter startDate–endDate range).';

  return {
    /** The answer to one parsed JSON body (a message or a batch). */
    handle(value: unknown, headers: McpHeaders): Promise<Answer> {
      return Array.isArray(value) ? batch(value, headers) : single(value, headers);
    },
  };
}
