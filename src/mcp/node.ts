/**
 * The MCP endpoint on Node's own request and response, with no web Request or Response: what a
 * Node server (npm start) can call for /api/v1/mcp, as its fast path does for ready REST answers.
 * The same core as the web handler (endpoint.ts), so the answers are the same; as the outermost
 * layer here it stamps `x-request-id` (src/api/request-id.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID, requestIdFrom } from '../api/request-id.ts';
import type { McpCore, McpOutput } from './endpoint.ts';
import { LIMITS } from './protocol.ts';
import { bodyOf, byteLength, type Piece } from './server.ts';

/**
 * The body as text to `then`, or undefined past the limit (a declared length before reading, a
 * longer stream as it comes); `fail` for a request that breaks off. Callbacks, not a promise: a
 * promise and its turn through the microtask queue cost more per call than the call's own work.
 */
function readBody(
  req: IncomingMessage,
  then: (text: string | undefined) => void,
  fail: (error: unknown) => void,
): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > LIMITS.bodyBytes) {
    then(undefined);
    return;
  }
  // No Content-Length and no Transfer-Encoding: no body, and a stream that has ended already
  // (node-server.ts, optimizeEmptyRequests), so no 'end' will come.
  if (req.readableEnded) {
    then('');
    return;
  }
  // The whole body is read once the loop has done its reads (setImmediate): a small POST comes in
  // the read that brings its headers, so by then the parser holds all of it, taken in one read()
  // with no flowing mode and no 'data' or 'end'. Measured (A/B, 50 connections): 131 to 109 µs of
  // server CPU per tools/call. A body still coming streams in as before.
  setImmediate(() => {
    if (req.destroyed) return fail(aborted());
    if (!req.complete) return stream(req, then, fail);
    // A guard: the parser stops reading once the stream holds its high-water mark, under the limit.
    if (req.readableLength > LIMITS.bodyBytes) return then(undefined);
    const whole = req.readableLength === 0 ? null : (req.read() as Buffer | null);
    then(whole === null ? '' : whole.toString('utf8'));
  });
}

/** A client that went away mid-request: nothing to answer (node-server.ts logs nothing for it). */
const aborted = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

/** The body as it comes (readBody): one that was not whole when the loop's reads were done. */
function stream(req: IncomingMessage, then: (text: string | undefined) => void, fail: (error: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= LIMITS.bodyBytes) return void chunks.push(chunk);
    req.off('data', onData).pause();
    settled = true;
    then(undefined);
  };
  req.on('data', onData);
  req.once('end', () => {
    if (settled) return;
    settled = true;
    then(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
  });
  const broken = (error: unknown) => {
    if (settled) return;
    settled = true;
    fail(error);
  };
  req.once('error', broken);
  req.once('close', () => req.complete || broken(aborted()));
}

const headerOf = (req: IncomingMessage) => (name: string) => {
  const value = req.headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
};

/** Content codings for whole answers (src/server/codings.ts NODE_WHOLE_CODINGS). */
export interface WholeCodings {
  /** The coding for this body and this Accept-Encoding ('identity' for none); not asked when a request has none. */
  negotiate(acceptEncoding: string | undefined, body: readonly Uint8Array[]): string;
  /** Bodies shorter than this go uncompressed. */
  threshold: number;
  /** The body coded: at once when it can be spliced from kept pieces, else later. */
  code(body: readonly Uint8Array[], encoding: string): Uint8Array[] | Promise<Buffer>;
}

/**
 * An answer's headers as the flat list writeHead takes, the server's own first: made once for the
 * headers an answer shares with others (src/mcp/endpoint.ts keeps one list per length), so a
 * call copies a list instead of building it.
 */
const flatLists = new WeakMap<readonly string[], WeakMap<readonly [string, string][], string[]>>();
function flatHeaders(
  first: readonly string[],
  headers: readonly [string, string][],
  coded: boolean,
  varies: boolean,
): readonly string[] {
  const make = () => {
    const flat: string[] = [...first];
    // A coded body's length is the coded one, added when it is known.
    for (const [name, value] of headers) if (!(coded && name === 'content-length')) flat.push(name, value);
    if (varies) flat.push('vary', 'Accept-Encoding');
    return flat;
  };
  if (coded || !varies) return make();
  let lists = flatLists.get(first);
  if (!lists) flatLists.set(first, (lists = new WeakMap()));
  let flat = lists.get(headers);
  if (!flat) lists.set(headers, (flat = make()));
  return flat;
}

export interface McpNodeOptions {
  /** Content codings for answers of `codings.threshold` bytes or more; none without. */
  codings?: WholeCodings;
  /** Headers (names and values in turn) first on every answer: the server's own, such as its security headers. */
  first?: readonly string[];
  /** Told of a failure no answer was written for (default: the response is destroyed). */
  fail?: (error: unknown) => void;
}

/** Answer one request to the MCP endpoint; a failure goes to `options.fail`, never thrown. */
export function serveMcpNode(
  core: McpCore,
  req: IncomingMessage,
  res: ServerResponse,
  options: McpNodeOptions = {},
): void {
  const { codings, first = [] } = options;
  const fail = options.fail ?? (() => void res.destroy());
  const head = { method: req.method ?? 'GET', header: headerOf(req) };
  let tooLarge = false;
  const write = ({ status, headers, body }: McpOutput): void | Promise<void> => {
    // No Accept-Encoding, no coding (as the compression package does): the body is written as
    // text and bytes; a coded one is made of bytes.
    const acceptEncoding = req.headers['accept-encoding'];
    let bytes: Uint8Array[] | undefined;
    let encoding = 'identity';
    if (codings && body && acceptEncoding !== undefined && byteLength(body) >= codings.threshold) {
      bytes = bodyOf(body);
      encoding = codings.negotiate(acceptEncoding, bytes);
    }
    // Every JSON answer varies by Accept-Encoding, coded or not (as the compression package does).
    const flat = [...flatHeaders(first, headers, encoding !== 'identity', codings !== undefined && body !== undefined)];
    if (req.method !== 'OPTIONS') flat.push(REQUEST_ID, requestIdFrom(req.headers[REQUEST_ID] as string | undefined));
    // The rest of a refused body is not read: the connection cannot carry another request.
    if (tooLarge) flat.push('connection', 'close');
    if (!body) return void res.writeHead(status, flat).end();
    // The pieces as they are, in one writev: joining them first would copy the whole answer.
    const writeParts = (parts: readonly Piece[]) => {
      res.writeHead(status, flat);
      res.cork();
      for (const part of parts) res.write(part);
      res.end();
    };
    if (encoding === 'identity') return writeParts(body);
    const writeCoded = (parts: Uint8Array[]) => {
      flat.push('content-encoding', encoding, 'content-length', String(byteLength(parts)));
      writeParts(parts);
    };
    const coded = codings!.code(bytes!, encoding);
    return coded instanceof Promise ? coded.then((whole) => writeCoded([whole])) : writeCoded(coded);
  };
  // An answer now or later, written; whatever fails on the way goes to `fail`.
  const send = (answer: () => McpOutput | Promise<McpOutput>): void => {
    try {
      const output = answer();
      const written = output instanceof Promise ? output.then(write) : write(output);
      if (written instanceof Promise) written.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
  let early: McpOutput | undefined;
  try {
    early = core.beforeBody(head);
  } catch (error) {
    fail(error);
    return;
  }
  if (early) {
    send(() => early);
    return;
  }
  // The body is read here and handed to the core's second step, so an answer made from a ready
  // REST answer is written in the turn the body arrives in.
  readBody(
    req,
    (text) => {
      tooLarge = text === undefined;
      send(() => core.afterBody(head, text));
    },
    fail,
  );
}
