/**
 * The MCP server: one JSON-RPC message (or a 2025-03-26 batch) in, the answer out, following the
 * version the message is served in (versionOf in protocol.ts): `structuredContent` and
 * `outputSchema` from 2025-06-18; a bad argument is an `isError` result from 2025-11-25 and -32602
 * before; an unknown tool is -32601 "Tool not found" before 2025-11-25 and -32602 from then on;
 * 2026-07-28 results carry `resultType` and the server information. resources/read and prompts/get
 * keep the same version and header rules as tools/call (resources.ts, prompts.ts). Stateless: nothing is kept
 * between requests, and everything that does not depend on the request is built once (catalog.ts).
 */
import type { Log } from '../lib/log.ts';
import { readUpTo } from '../lib/read-up-to.ts';
import { ApiError } from '../api/responses.ts';
import type { ErrorCode } from '../schemas/errors.ts';
import { DATA_CACHE_CONTROL } from '../http/caching.ts';
import { MODERN_RESULT_FIELDS, ONE_HOUR, type Catalog } from './catalog.ts';
import { PROMPT_BY_NAME, PROMPTS, readPromptArguments } from './prompts.ts';
import { unknownResourceMessage, type Resource } from './resources.ts';
import { changesNarrowing, narrowing } from './sizes.ts';
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
  RESOURCE_NOT_FOUND,
  resultText,
  RpcError,
  SERVER_ERROR,
  versionOf,
  type JsonRpcId,
  type McpHeaders,
  type Message,
} from './protocol.ts';
import { forAgents } from './for-agents.ts';
import {
  readArguments,
  type Arguments,
  type OwnTool,
  type RestAnswer,
  type RestForTools,
  type Tool,
  type ToolContext,
} from './tool.ts';
import { TOOL_BY_NAME, TOOLS } from './tool-table.ts';
import { INVALID_REQUEST as INVALID_REQUEST_MESSAGE } from '../api/query.ts';

export { HEADERLESS_VERSION, LEGACY_VERSIONS, MODERN_VERSION } from './protocol.ts';

/**
 * JSON text, or the same text as UTF-8 bytes: a kept tool result (encoded once), or a response in
 * parts (the caller's id, then a kept result: src/mcp/protocol.ts resultText).
 */
export type Json = string | Uint8Array | readonly Uint8Array[];

/** Bytes of JSON text in any of its forms. */
const sizeOf = (json: Json): number =>
  typeof json === 'string'
    ? Buffer.byteLength(json)
    : json instanceof Uint8Array
      ? json.length
      : json.reduce((n, part) => n + part.length, 0);

/** The answer to one MCP message or batch, before the endpoint's HTTP rules. */
export interface RpcAnswer {
  status: number;
  /** JSON, or undefined for 202 with no body. */
  body?: Json;
}

type Request = Extract<Message, { kind: 'request' }>;
/** A result as JSON, or a JSON-RPC error. */
type Outcome = string | Uint8Array | RpcError;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const documentationUrl = (site: string, anchor: string) => `${site}/docs/ai#${anchor}`;

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

/** A tool result: one text item holding the REST body as a JSON string; from 2025-06-18 the same JSON as structuredContent. */
function toolResult(version: string, body: string, isError: boolean): string {
  const structured = !isError && atLeast(version, '2025-06-18');
  return (
    `{"content":[{"type":"text","text":${JSON.stringify(body)}}]` +
    (structured ? `,"structuredContent":${body}` : '') +
    (isError ? ',"isError":true' : '') +
    (version === MODERN_VERSION ? `,${MODERN_RESULT_FIELDS}` : '') +
    '}'
  );
}

/** The list methods, with the catalog's list each answers. */
const LISTS: Readonly<Record<string, (catalog: Catalog, version: string) => Promise<string> | string>> = {
  'tools/list': (catalog, version) => catalog.toolsList(version),
  'resources/list': async (catalog, version) => (await catalog.resources()).list(version),
  'resources/templates/list': (catalog, version) => catalog.templatesList(version),
  'prompts/list': (catalog, version) => catalog.promptsList(version),
};

/** How long a dataset's data resource may be reused: as long as a browser keeps its REST answer. */
const DATA_MAX_AGE_MS = Number(/max-age=(\d+)/.exec(DATA_CACHE_CONTROL)![1]) * 1000;

export function createRpc(options: {
  rest: RestForTools;
  site: string;
  catalog: () => Promise<Catalog>;
  log: Log;
  /** The clock the prompts' dates are read from. */
  now?: () => Date;
}) {
  const { rest, site, log } = options;
  const now = options.now ?? (() => new Date());
  const inTurn = semaphore(LIMITS.concurrentToolCalls);

  /** A bad argument: an isError result from 2025-11-25 on (the model reads it and corrects the call), -32602 before. */
  function badArguments(version: string, message: string, hint: string): Outcome {
    if (!atLeast(version, '2025-11-25'))
      return new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${message === INVALID_REQUEST_MESSAGE ? '' : `${message}. `}${hint}`,
      );
    return toolResult(version, JSON.stringify(new ApiError('invalid_request', message, hint).body(site)), true);
  }

  async function callTool(version: string, params: Record<string, unknown>, inBatch: boolean): Promise<Outcome> {
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
    if ('call' in tool) return inTurn(() => ownResult(version, tool, args.values), inBatch);
    return fromRestAnswer(tool.forward(args.values), inBatch, 'tool', (answer) => resultOf(version, tool, answer));
  }

  /**
   * What a REST answer makes of a call (a twin's result, a data resource's contents). A call whose
   * REST answer is kept is answered now: it holds no memory past this turn, so it needs no place in
   * the semaphore (a batch's calls still take turns).
   */
  function fromRestAnswer(
    target: string,
    inBatch: boolean,
    what: string,
    make: (answer: RestAnswer) => Promise<Outcome>,
  ): Promise<Outcome> {
    const kept = inBatch ? undefined : rest.kept(target);
    if (kept) return make(kept);
    return inTurn(async () => {
      let answer: RestAnswer;
      try {
        answer = await rest.get(target);
      } catch (error) {
        log(`mcp: ${what} failed:`, error);
        return new RpcError(INTERNAL_ERROR, 'Internal error');
      }
      return make(answer);
    }, inBatch);
  }

  /** What a tool's own call reads the REST API with: a 200's JSON, or the REST error thrown. */
  const context: ToolContext = {
    site,
    async json(target) {
      const { status, body } = await rest.get(target);
      const raw = body === null || body instanceof Uint8Array ? body : await readUpTo(body, LIMITS.responseBytes);
      if (raw === undefined)
        throw new ApiError('invalid_request', 'Result too large', `${target} is over ${mib(LIMITS.responseBytes)}.`);
      const value = JSON.parse(Buffer.from(raw ?? []).toString('utf8')) as {
        error: ErrorCode;
        message: string;
        hint: string;
      };
      if (status === 200) return value;
      throw new ApiError(value.error, value.message, value.hint);
    },
  };

  /** The result of a tool that answers itself: its JSON value, or the ApiError it threw as the REST body it stands for. */
  async function ownResult(version: string, tool: OwnTool, args: Arguments): Promise<Outcome> {
    let text: string;
    try {
      text = JSON.stringify(await tool.call(args, context));
    } catch (error) {
      if (!(error instanceof ApiError)) {
        log('mcp: tool failed:', error);
        return new RpcError(INTERNAL_ERROR, 'Internal error');
      }
      text = JSON.stringify(error.body(site));
      return fromRest(version, tool, error.status, Buffer.from(text));
    }
    if (Buffer.byteLength(text) > LIMITS.resultBytes) return toolResult(version, await tooLarge(tool), true);
    return toolResult(version, text, false);
  }

  /**
   * The result of a call from its REST answer. A kept answer's result is made once per version
   * and reused while the answer is kept: the result is a function of the REST answer and the
   * version alone (the caller's JSON-RPC id goes around it, in resultText).
   */
  async function resultOf(version: string, tool: Tool, answer: RestAnswer): Promise<Outcome> {
    const key = `mcp ${version}`;
    const known = answer.derived?.get(key) as Outcome | undefined;
    if (known !== undefined) return known;
    const outcome = await outcomeOf(version, tool, answer);
    if (!answer.derived || outcome instanceof RpcError) return outcome;
    // Kept as bytes: every call in the answer's second sends them as they are, after its own id.
    const bytes = typeof outcome === 'string' ? Buffer.from(outcome) : outcome;
    answer.derived.set(key, bytes);
    return bytes;
  }

  async function outcomeOf(version: string, tool: Tool, { status, body }: RestAnswer): Promise<Outcome> {
    const raw =
      body === null || body instanceof Uint8Array
        ? body !== null && body.length > LIMITS.resultBytes
          ? undefined
          : (body ?? new Uint8Array(0))
        : await readUpTo(body, LIMITS.resultBytes);
    if (raw === undefined) return toolResult(version, await tooLarge(tool), true);
    return fromRest(version, tool, status, raw);
  }

  /** A REST body within the result limit, as a result: the body itself, or the error it states. */
  function fromRest(version: string, tool: Tool, status: number, raw: Uint8Array): Outcome {
    const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
    if ((status >= 200 && status < 300) || tool.resultStatuses?.includes(status))
      return toolResult(version, text, false);
    const body = JSON.parse(text) as { message: string; hint: string };
    // REST's own argument rules (the date combinations) are argument errors here too.
    if (status === 400) return badArguments(version, forAgents(body.message), forAgents(body.hint));
    return toolResult(
      version,
      JSON.stringify({ ...body, message: forAgents(body.message), hint: forAgents(body.hint) }),
      true,
    );
  }

  async function tooLarge(tool: Tool): Promise<string> {
    const { dataset } = tool;
    const sizes = dataset && (await options.catalog()).sizes.get(dataset.slug);
    const narrower = dataset && (tool.sizes === 'changes' ? changesNarrowing(dataset) : narrowing(dataset, sizes));
    const how =
      (tool.sizes === 'timeSeries' || tool.sizes === 'changes') && narrower
        ? `${narrower[0]!.toUpperCase()}${narrower.slice(1)}.`
        : 'Call a narrower tool.';
    const error = new ApiError(
      'invalid_request',
      'Result too large',
      `This result is over ${mib(LIMITS.resultBytes)}, the most one tool result may hold. ${how}`,
    );
    return JSON.stringify({ ...error.body(site), documentationUrl: documentationUrl(site, 'limits') });
  }

  /** A resource's contents (its text, whole) as the result of resources/read. */
  function contentsResult(version: string, resource: Resource, text: string): string {
    const content = { uri: resource.uri, mimeType: resource.mimeType, text };
    // A dataset's data may change with a deployment: the hint is its REST answer's browser max-age.
    const hints = 'text' in resource ? ONE_HOUR : { ttlMs: DATA_MAX_AGE_MS, cacheScope: 'public' };
    const modern = version === MODERN_VERSION ? `,${JSON.stringify(hints).slice(1, -1)},${MODERN_RESULT_FIELDS}` : '';
    return `{"contents":[${JSON.stringify(content)}]${modern}}`;
  }

  /**
   * resources/read: a document's text, or a dataset's newest data read through the REST core as its
   * list tool reads it (the kept answer of the same second, the result made once per version).
   */
  async function readResource(version: string, params: Record<string, unknown>, inBatch: boolean): Promise<Outcome> {
    const { uri } = params;
    if (typeof uri !== 'string')
      return new RpcError(
        INVALID_PARAMS,
        'Invalid params: resources/read needs params.uri, the URI of a resource (resources/list lists them)',
      );
    const { byUri } = await (await options.catalog()).resources();
    const resource = byUri.get(uri);
    if (!resource)
      // -32002 until 2026-07-28, which answers it as the invalid params it is (SEP-2164).
      return new RpcError(
        version === MODERN_VERSION ? INVALID_PARAMS : RESOURCE_NOT_FOUND,
        unknownResourceMessage(uri, byUri.size),
        uri.length <= 2048 ? { uri } : undefined,
      );
    if ('text' in resource) return contentsResult(version, resource, resource.text);
    return fromRestAnswer(resource.target, inBatch, 'resource', (answer) => dataContents(version, resource, answer));
  }

  async function dataContents(version: string, resource: Resource, answer: RestAnswer): Promise<Outcome> {
    const key = `mcp resource ${version}`;
    const known = answer.derived?.get(key) as Uint8Array | undefined;
    if (known !== undefined) return known;
    const { status, body } = answer;
    const raw = body === null || body instanceof Uint8Array ? body : await readUpTo(body, LIMITS.responseBytes);
    if (raw === undefined)
      return new RpcError(INTERNAL_ERROR, `Internal error: the data is over ${mib(LIMITS.responseBytes)}`);
    const text = Buffer.from(raw ?? []).toString('utf8');
    if (status !== 200) {
      // No data to read now (a store that failed to load): REST's reason, and a hint to retry.
      const { message, hint } = JSON.parse(text) as { message: string; hint: string };
      return new RpcError(INTERNAL_ERROR, `Internal error: ${forAgents(message)}. ${forAgents(hint)}`);
    }
    const bytes = Buffer.from(contentsResult(version, resource, text));
    answer.derived?.set(key, bytes);
    return bytes;
  }

  /** prompts/get: the prompt's message from its arguments; a missing or wrong argument, or no such prompt, is -32602. */
  function getPrompt(version: string, params: Record<string, unknown>): Outcome {
    const { name } = params;
    if (typeof name !== 'string')
      return new RpcError(
        INVALID_PARAMS,
        'Invalid params: prompts/get needs params.name, the name of a prompt (prompts/list lists them)',
      );
    const prompt = PROMPT_BY_NAME.get(name);
    if (!prompt)
      return new RpcError(
        INVALID_PARAMS,
        `Invalid params: there is no prompt named ${JSON.stringify(name.slice(0, 80))}. The prompts: ${PROMPTS.map((p) => p.name).join(', ')}.`,
      );
    const args = readPromptArguments(prompt, params.arguments);
    if ('problem' in args) return new RpcError(INVALID_PARAMS, `Invalid params: ${args.problem}`);
    const today = now().toISOString().slice(0, 10);
    const result = {
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args.values, args.dataset, today) } }],
    };
    const text = JSON.stringify(result);
    return version === MODERN_VERSION ? `${text.slice(0, -1)},${MODERN_RESULT_FIELDS}}` : text;
  }

  function dispatch(request: Request, version: string, inBatch = false): Promise<Outcome> {
    const params = isObject(request.params) ? request.params : {};
    if (request.method === 'tools/call') return callTool(version, params, inBatch);
    if (request.method === 'resources/read') return readResource(version, params, inBatch);
    if (request.method === 'prompts/get') return Promise.resolve(getPrompt(version, params));
    return catalogMethod(request, params, version);
  }

  /** The lists every version has: tools, resources, resource templates (none) and prompts, each one page. */
  async function list(method: string, params: Record<string, unknown>, version: string): Promise<Outcome | undefined> {
    const answer = Object.hasOwn(LISTS, method) ? LISTS[method] : undefined; // never a prototype's member
    if (answer === undefined) return undefined;
    // The lists are short, so each is one page: no cursor was ever given (tools/list ignores one, as it always has).
    if (params.cursor !== undefined && method !== 'tools/list')
      return new RpcError(INVALID_PARAMS, `Invalid params: ${method} answers in one page; send it without a cursor`);
    return answer(await options.catalog(), version);
  }

  /** Every method but tools/call, resources/read and prompts/get. */
  async function catalogMethod(request: Request, params: Record<string, unknown>, version: string): Promise<Outcome> {
    const listed = await list(request.method, params, version);
    if (listed !== undefined) return listed;
    if (version === MODERN_VERSION) {
      switch (request.method) {
        case 'server/discover':
          return (await options.catalog()).discover;
        default:
          return new RpcError(
            METHOD_NOT_FOUND,
            `Method not found: ${request.method.slice(0, 80)} (protocol ${MODERN_VERSION} has server/discover, ${Object.keys(LISTS).join(', ')}, tools/call, resources/read and prompts/get)`,
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
      default:
        return new RpcError(METHOD_NOT_FOUND, 'Method not found');
    }
  }

  const reply = (id: JsonRpcId, outcome: Outcome): Json =>
    outcome instanceof RpcError ? errorText(id, outcome) : resultText(id, outcome);
  const refuse = (value: unknown, error: RpcError): RpcAnswer => ({
    status: error.status === 200 ? 400 : error.status,
    body: errorText(idOf(value), error),
  });

  async function single(value: unknown, headers: McpHeaders): Promise<RpcAnswer> {
    const message = readMessage(value);
    if (message instanceof RpcError) return refuse(value, message);
    if (message.kind === 'response') return { status: 202 };
    const version = versionOf(message, headers);
    if (version instanceof RpcError) return refuse(value, version);
    if (message.kind === 'notification') return { status: 202 };
    const outcome = await dispatch(message, version);
    return { status: outcome instanceof RpcError ? outcome.status : 200, body: reply(message.id, outcome) };
  }

  const limitError = (message: string, limit: keyof typeof LIMITS) =>
    new RpcError(SERVER_ERROR, message, { limit, max: LIMITS[limit] });

  /** A 2025-03-26 batch: each message answered in turn, within the batch limits. */
  async function batch(values: unknown[], headers: McpHeaders): Promise<RpcAnswer> {
    const refuseAll = (why: string, limit?: keyof typeof LIMITS): RpcAnswer => ({
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
      if (bytes + sizeOf(answer) + 1 > LIMITS.responseBytes)
        answer = reply(message.id, limitError(budgetMessage(bytes), 'responseBytes'));
      bytes += sizeOf(answer) + 1;
      answers.push(answer);
    }
    if (answers.length === 0) return { status: 202 };
    const text = (json: Json) =>
      typeof json === 'string'
        ? json
        : Buffer.from(json instanceof Uint8Array ? json : Buffer.concat(json)).toString('utf8');
    return { status: 200, body: `[${answers.map(text).join(',')}]` };
  }

  const budgetMessage = (used: number) =>
    `Limit exceeded: the answer to one request may hold at most ${mib(LIMITS.responseBytes)}, and the answers before this one hold ${mib(used)}. ` +
    'Send this call in a request of its own, or narrow it (a time series: institutionId or issuerId, or a shorter startDate–endDate range).';

  return {
    /** The answer to one parsed JSON body (a message or a batch). */
    handle(value: unknown, headers: McpHeaders): Promise<RpcAnswer> {
      return Array.isArray(value) ? batch(value, headers) : single(value, headers);
    },
  };
}
