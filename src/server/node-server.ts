/**
 * The HTTP server of `npm start` (scripts/serve.mjs): Node's http server with the limits of
 * limits.ts, every answer of its own in the documented JSON error body, and the routing — /api/*
 * to the API listener (api-listener.ts, which writes what the service's `serve` makes, through
 * src/http/way-out.ts, as these refusals are made), pages to Astro behind compression and the
 * security headers.
 *
 * Limits, and what a client sees when it passes one:
 * - head not sent within headersTimeoutMs, or the whole request within requestTimeoutMs: 408;
 * - request line and headers over maxHeaderBytes: 431; bad framing (conflicting Content-Length
 *   and Transfer-Encoding, bad chunks, a method Node does not know): 400 — all from Node's
 *   `clientError`, answered here with the JSON body and `connection: close`;
 * - a declared body over maxBodyBytes: 413, before routing (the MCP endpoint has its own limit);
 * - `Expect: 100-continue` with a declared body over maxBodyBytes: the 413 at once, never a
 *   `100 Continue`; otherwise `100 Continue` is written when the body is read (only MCP reads one),
 *   and an endpoint that takes no body answers at once. Any other expectation: 417;
 * - no progress either way for stalledTimeoutMs (above all, a client that stops reading a long
 *   answer): the connection is dropped (stall-watch.ts);
 * - an idle keep-alive connection: closed after keepAliveTimeoutMs;
 * - over maxConnections open at once, over maxConnectionsPerClient from one client address, or
 *   over maxConnectionsPerNetwork from its network (an IPv4 /24, an IPv6 /64; client-network.ts):
 *   503 with `retry-after`, and closed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { constants as zlibConstants } from 'node:zlib';
import { defaultLog, type Log } from '../lib/log.ts';
import { websubHub } from '../lib/websub.ts';
import { isMcpPath } from '../endpoints.ts';
import { SERVICE_PATH } from '../paths.ts';
import { clientAddress, networkOf } from './client-network.ts';
import { awaitContinue } from './continue.ts';
import { relayDrain } from './drain-relay.ts';
import { bodyTooLarge, rawEdgeError, sendEdgeError, type EdgeError } from './edge-errors.ts';
import type { ServerLimits } from './limits.ts';
import { servePage } from './page-requests.ts';
import { originForm, unusableRequest } from './request-checks.ts';
import { SECURITY_HEADERS } from '../http/security-headers.ts';
import { StallWatch } from './stall-watch.ts';

const SECURITY = Object.entries(SECURITY_HEADERS);

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface NodeServerOptions {
  /** Every request under /api (api-listener.ts). */
  api: Listener;
  /** Everything else: Astro's Node handler. */
  pages: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  limits: ServerLimits;
  /** The origin of `documentationUrl` in error bodies. */
  site: string;
  log?: Log;
  /** The WebSub hub the feed files' `Link` header names (default WEBSUB_HUB_URL, src/lib/websub.ts); given as undefined, none. */
  websubHub?: string;
}

/** An `Expect` other than 100-continue, the one this server knows (RFC 9110, 10.1.1). */
const EXPECTATION_FAILED: EdgeError = {
  status: 417,
  message: 'Expectation failed',
  hint: 'The only expectation this server meets is "Expect: 100-continue"; send the request without any other.',
};

/** Node's clientError codes, as the status Node itself would answer. */
function clientErrorFor(error: NodeJS.ErrnoException, limits: ServerLimits): EdgeError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        message: 'Request header fields too large',
        hint: `The request line and headers together may be at most ${limits.maxHeaderBytes} bytes.`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'Chunk extensions too large', hint: 'Send the body without chunk extensions.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        message: 'Request timeout',
        hint: `Send the request head within ${limits.headersTimeoutMs} ms and the whole request within ${limits.requestTimeoutMs} ms.`,
      };
    default:
      return {
        status: 400,
        message: 'Bad request',
        hint: 'The request could not be parsed as HTTP/1.1 (request line, headers, Content-Length or chunked framing). The limits are listed at /docs/limits.',
      };
  }
}

/** Write a whole answer on a bare socket and close it; the client gets a moment to read it, no more. */
function closeWith(socket: Socket, message: Uint8Array): void {
  socket.on('error', () => {}); // a client that resets meanwhile is no concern of ours
  if (!socket.writable) return void socket.destroy();
  socket.end(message, () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}

export function createNodeServer(options: NodeServerOptions): Server {
  const { api, pages, limits, site, log = defaultLog } = options;
  // Read at start, so a WEBSUB_HUB_URL that is not a URL stops the server before it listens.
  const hub = 'websubHub' in options ? options.websubHub : websubHub();
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // Node checks the head and request deadlines on this interval (30 s by default, which would
    // let a slow client overstay them by as much).
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    // A missing Host is answered by unusableRequest, with the JSON body rather than Node's empty 400.
    requireHostHeader: false,
    // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112, 6.3), and
    // Node gives it an ended body stream at once: no 'data', 'end' or 'close' to run per GET
    // (Node 24.12+; older versions ignore it). What reads a body checks readableEnded.
    optimizeEmptyRequests: true,
  });
  // A client that half-closes once its request is sent (a body sent with end()) still gets its
  // answer: Node's server, by default, drops the requests in flight when the client's side ends, so
  // only an answer made before the FIN arrived got through. With this, it finishes them, then ends.
  Object.assign(server, { httpAllowHalfOpen: true }); // node:http's own switch, missing from its types
  // A connection with a request in flight that makes no progress: watched from the request to its
  // settling, rather than by the socket's own timeout (server.timeout, off), which keeps it late.
  const stalls = new StallWatch(limits.stalledTimeoutMs);

  // The connection cap, with an answer: Node's own server.maxConnections closes the socket
  // without a word. node:http serves a connection from its 'connection' listener, so the gate
  // takes that listener's place and hands it the connections under the cap.
  const [serveConnection] = server.listeners('connection') as ((socket: Socket) => void)[];
  if (!serveConnection)
    throw new Error('node:http registers no connection listener: the connection cap cannot be installed');
  server.removeListener('connection', serveConnection);
  const refusal = (hint: string) =>
    rawEdgeError({ status: 503, message: 'Too many connections', hint, headers: { 'retry-after': '1' } }, site);
  const overall = refusal(
    `The server is at its limit of ${limits.maxConnections} open connections; retry in a moment.`,
  );
  const perClient = refusal(
    `This client address has ${limits.maxConnectionsPerClient} connections open, the most one client may hold; reuse them, or retry once one closes.`,
  );
  const perNetwork = refusal(
    `This client's network (its IPv4 /24 or IPv6 /64) has ${limits.maxConnectionsPerNetwork} connections open, the most one network may hold; reuse them, or retry once one closes.`,
  );
  let open = 0;
  /** Open connections by client address, and by client network: an entry lives while it has one open. */
  const byClient = new Map<string, number>();
  const byNetwork = new Map<string, number>();
  const release = (counts: Map<string, number>, key: string) => {
    const left = counts.get(key)! - 1;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  };
  server.on('connection', (socket: Socket) => {
    const client = clientAddress(socket.remoteAddress ?? '');
    const network = networkOf(client);
    const mine = byClient.get(client) ?? 0;
    const ours = byNetwork.get(network) ?? 0;
    const over =
      open >= limits.maxConnections
        ? overall
        : mine >= limits.maxConnectionsPerClient
          ? perClient
          : ours >= limits.maxConnectionsPerNetwork
            ? perNetwork
            : undefined;
    if (over) {
      socket.resume(); // read and discard what it sends, so closing does not reset before it reads the 503
      return closeWith(socket, over);
    }
    open++;
    byClient.set(client, mine + 1);
    byNetwork.set(network, ours + 1);
    socket.once('close', () => {
      stalls.unwatch(socket);
      open--;
      release(byClient, client);
      release(byNetwork, network);
    });
    serveConnection.call(server, socket);
  });

  // The response in flight on each connection: an error answer may be written on the socket only
  // while no response has started there.
  const inFlight = new WeakMap<Socket, ServerResponse>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight.get(socket)?.headersSent)
      return void socket.destroy();
    closeWith(socket, rawEdgeError(clientErrorFor(error, limits), site));
  });
  // CONNECT never reaches 'request'; without this listener Node closes the connection silently.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    closeWith(
      socket,
      rawEdgeError(
        {
          status: 405,
          message: 'Method not allowed',
          hint: 'This server is not a proxy and does not take CONNECT: use GET.',
          headers: { allow: 'GET, HEAD' },
        },
        site,
      ),
    );
  });

  // Loaded with the first page: /api answers are coded by the way out (src/http/coding.ts). Its
  // defaults (brotli quality 4, gzip level 6) give most of the size win cheaply; brotli's window
  // is held to 256 KiB, so a page streamed to a client that stops reading keeps little memory.
  let compress: Promise<Middleware> | undefined;
  const compression = () =>
    (compress ??= import('compression').then(
      ({ default: make }) =>
        make({ threshold: 1024, brotli: { params: { [zlibConstants.BROTLI_PARAM_LGWIN]: 18 } } }) as Middleware,
    ));

  /** A request, with what its `Expect` asks: nothing, `100 Continue` before its body, or something else. */
  const serve = (req: IncomingMessage, res: ServerResponse, expects: 'nothing' | 'continue' | 'other') => {
    const socket = req.socket;
    inFlight.set(socket, res);
    stalls.watch(socket);
    // Settled once the answer is sent and the request read to its end (a slow body may outlive an early answer).
    const settle = () => {
      if (inFlight.get(socket) !== res) return;
      inFlight.delete(socket);
      stalls.unwatch(socket);
    };
    res.once('finish', () => (req.complete || req.readableEnded ? settle() : req.once('end', settle)));
    const unusable = unusableRequest(req);
    if (unusable) {
      res.setHeader('connection', 'close');
      sendEdgeError(res, unusable, site, req.method);
      return;
    }
    if (expects === 'other') {
      res.setHeader('connection', 'close');
      sendEdgeError(res, EXPECTATION_FAILED, site, req.method);
      return;
    }
    req.url = originForm(req.url!);
    const declared = Number(req.headers['content-length'] ?? 0);
    // MCP states its own, smaller limit in its own error (src/mcp/protocol.ts LIMITS).
    if (declared > limits.maxBodyBytes && !isMcpPath(req.url.split('?', 1)[0]!)) {
      // Refused before routing (and before a client that expects 100 Continue sends its body);
      // closing spares reading a body nobody wants.
      res.setHeader('connection', 'close');
      sendEdgeError(res, bodyTooLarge(limits.maxBodyBytes), site, req.method);
      return;
    }
    if (expects === 'continue') awaitContinue(req, res);
    if (SERVICE_PATH.test(req.url)) return api(req, res);
    for (const [name, value] of SECURITY) res.setHeader(name, value);
    // HEAD is coded as its GET would be (compression leaves HEAD alone: its headers would describe
    // the uncoded page); Node sends no body for HEAD whatever is written.
    const asGet = req.method === 'HEAD' ? (Object.create(req, { method: { value: 'GET' } }) as IncomingMessage) : req;
    compression().then((compress) =>
      compress(asGet, res, () => {
        relayDrain(res);
        servePage(req, res, pages, site, log, hub);
      }),
    );
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => serve(req, res, 'nothing'));
  // With a listener here Node leaves `100 Continue` to us (without one it writes it at once, before
  // any limit is checked); and answers another expectation with our body rather than its bare 417.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => serve(req, res, 'continue'));
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => serve(req, res, 'other'));
  return server;
}
