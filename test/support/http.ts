/**
 * HTTP on real local sockets: a core or a Node listener served on a free loopback port, and one
 * request through node:http (for what fetch will not send: a Host header of our choosing, a
 * fresh connection per request, the bytes exactly as coded).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { createApiListener } from '../../src/server/api-listener.ts';
import type { McpCore } from '../../src/mcp/endpoint.ts';
import type { Incoming, Service } from '../../src/service.ts';
import { prepare, respond } from '../../src/http/way-out.ts';
import { SITE } from './constants.ts';

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** A Node listener on a free loopback port; close drops open connections and stops listening. */
export async function listen(listener: RequestListener): Promise<Listening> {
  const server = createServer(listener);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Serve an MCP core alone, as the service would route it: for failures a whole service cannot stage. */
export function serveMcpCore(core: McpCore): Promise<Listening> {
  const service = Object.assign(async () => new Response(null, { status: 500 }), {
    serve: async (incoming: Incoming) => ({
      ...(await respond(prepare(await core(incoming), { coding: false }), incoming)),
      requestId: true,
    }),
  });
  return serveService(service);
}

/** Serve the service with the production API listener (src/server/api-listener.ts), request ids stamped as `npm start` does. */
export function serveService(service: Service): Promise<Listening> {
  return listen(createApiListener(service, { stampRequestIds: true, site: SITE }));
}

export interface NodeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as received (still coded when the answer has a Content-Encoding). */
  body: Buffer;
  /** The body as UTF-8 text. */
  text: string;
  /** From sending the request to the end of the answer. */
  ms: number;
}

/**
 * One request through node:http, the answer read whole. `agent: false` opens a connection of its
 * own; `timeoutMs` fails the request when no answer has come by then.
 */
export function nodeRequest(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    agent?: false;
    timeoutMs?: number;
  } = {},
): Promise<NodeAnswer> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers, agent: init.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        done({
          status: res.statusCode!,
          headers: res.headers,
          body,
          text: body.toString('utf8'),
          ms: performance.now() - started,
        });
      });
    });
    if (init.timeoutMs !== undefined) {
      const seconds = init.timeoutMs / 1000;
      req.setTimeout(init.timeoutMs, () => req.destroy(new Error(`no answer from ${url} within ${seconds} s`)));
    }
    req.on('error', fail);
    req.end(init.body);
  });
}

/** The body of an answer as text, decoded from its Content-Encoding (br, gzip or deflate). */
export function decodedText({ headers, body }: { headers: IncomingHttpHeaders; body: Buffer }): string {
  switch (headers['content-encoding']) {
    case 'br':
      return brotliDecompressSync(body).toString();
    case 'gzip':
      return gunzipSync(body).toString();
    case 'deflate':
      return inflateSync(body).toString();
    default:
      return body.toString();
  }
}
