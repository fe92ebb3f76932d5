/**
 * A `(Request) => Promise<Response>` handler on a Node HTTP server: the request as a web
 * Request, the Response written back with backpressure, so a streamed time series never
 * piles up in memory behind a slow client.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Readable } from 'node:stream';

type Handler = (request: Request) => Promise<Response>;

export function toNodeListener(handler: Handler) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    const method = req.method ?? 'GET';
    const request = new Request(`${scheme}://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' }),
    } as RequestInit);
    handler(request)
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (!response.body) return void res.end();
        for await (const chunk of response.body) {
          if (res.destroyed) break;
          if (!res.write(chunk)) await once(res, 'drain');
        }
        res.end();
      })
      .catch((error: unknown) => {
        console.error('server: request failed:', error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end();
      });
  };
}
