/**
 * Every request under /api on Node's own request and response: `npm start`'s server and the
 * Vercel function both run this listener, so production answers by the same path as the bench
 * and the tests. It reads the request, has the service answer it — `serve` (src/service.ts) takes
 * the request and returns what is written, a kept answer, routing and the way out all within it —
 * and writes that.
 *
 * Where it is the outermost layer (`npm start`) it stamps `x-request-id` on the answers that carry
 * one (src/http/request-id.ts); on Vercel the routing middleware does, before the CDN cache.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultLog, type Log } from '../lib/log.ts';
import { REQUEST_ID, requestIdFrom } from '../http/request-id.ts';
import { writeOutgoing } from '../http/node-writer.ts';
import { isMcpPath } from '../endpoints.ts';
import type { Incoming, Sent, Service } from '../service.ts';
import { askForBody } from './continue.ts';
import { clientGone, FAILED, sendEdgeError } from './edge-errors.ts';

export interface ApiListenerOptions {
  /** Stamp `x-request-id` here (`npm start`), or leave it to an outer layer (Vercel's middleware). */
  stampRequestIds: boolean;
  /** The origin of `documentationUrl` in the errors answered here. */
  site: string;
  log?: Log;
}

/** A client that went away mid-body. */
const aborted = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

/**
 * The body as text, or undefined past `limit` (a declared length before reading — and before
 * asking a client that expects 100 Continue for it — a longer stream as it comes: reading stops
 * and the rest stays unread). Rejects when the client goes away.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve(undefined);
  if (req.readableEnded) return Promise.resolve('');
  askForBody(req);
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).pause();
      done(undefined);
    };
    req.on('data', onData);
    req.once('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.once('error', fail);
    req.once('close', () => req.complete || fail(aborted()));
  });
}

/** Does the request come with a body? */
const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

export function createApiListener(service: Service, options: ApiListenerOptions) {
  const log = options.log ?? defaultLog;

  return function apiListener(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? '/';
    const incoming: Incoming = {
      method: req.method ?? 'GET',
      target,
      header: (name) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      body: (limit) => readBody(req, limit),
    };
    const failed = (error: unknown) => {
      if (!clientGone(error)) log('server: API request failed:', error);
      if (res.headersSent || req.destroyed) res.destroy();
      else sendEdgeError(res, FAILED, options.site, incoming.method);
    };
    const write = (out: Sent | Promise<Sent>) => {
      if (out instanceof Promise) return void out.then(write, failed);
      const stamp = out.requestId && options.stampRequestIds;
      writeOutgoing(res, out, stamp ? requestIdFrom(req.headers[REQUEST_ID] as string | undefined) : undefined, failed);
    };

    // MCP reads its own body, within its own limit. Nothing else takes one: it is left unread and
    // the connection closed after the answer, which is written a promise's turn later, once Node
    // has parsed what came with the head: a malformed body still gets its 400 from the server's
    // clientError, even where a kept answer is ready at once.
    const unread = hasBody(req) && !isMcpPath(target.split('?', 1)[0]!);
    if (unread) res.setHeader('connection', 'close');
    let out: Sent | Promise<Sent>;
    try {
      out = service.serve(incoming);
    } catch (error) {
      failed(error);
      return;
    }
    write(unread ? Promise.resolve(out) : out);
  };
}
