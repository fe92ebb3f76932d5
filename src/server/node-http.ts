/**
 * A `(Request) => Promise<Response>` handler on a Node HTTP server, through @hono/node-server's
 * request listener (a well-kept adapter, used by Hono on Node): the request as a web Request, the
 * Response written back with backpressure, so a streamed time series never piles up in memory
 * behind a slow client; an unread request body is drained within bounds. Whatever a client sends,
 * the answer comes from here: a request that cannot become a web Request is a JSON 400, a handler
 * failure a JSON 500, and nothing is thrown outside this path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Handler } from '../api/app.ts';
import { defaultLog, type Log } from '../api/edge.ts';
import { siteUrl } from '../site.ts';
import { clientGone, edgeErrorResponse, FAILED, type EdgeError } from './edge-errors.ts';

const UNREADABLE: EdgeError = {
  status: 400,
  message: 'Invalid request',
  hint: 'The request line or Host header cannot form a URL. Send a path starting with "/" and one Host header such as 127.0.0.1:8787.',
};

/** `site` is the origin of `documentationUrl` in the errors answered here. */
export function toNodeListener(handler: Handler, site: string = siteUrl(), log: Log = defaultLog) {
  const listener = getRequestListener(
    // The adapter lets some Host values through unparsed (`1.2.3.256`); the core needs a URL.
    (request: Request) => (URL.canParse(request.url) ? handler(request) : edgeErrorResponse(UNREADABLE, site)),
    {
      // Leave the global Request and Response alone: Astro's pages share this process.
      overrideGlobalObjects: false,
      // An HTTP/1.0 request may come without Host.
      hostname: 'localhost',
      errorHandler: (error: unknown) => {
        if (error instanceof RequestError) return edgeErrorResponse(UNREADABLE, site);
        // A client that went away mid-request (the answer is never written): not our failure.
        if (!clientGone(error)) log('server: request failed:', error);
        return edgeErrorResponse(FAILED, site);
      },
    },
  );
  return (req: IncomingMessage, res: ServerResponse): void => {
    listener(req, res).catch((error: unknown) => {
      log('server: response failed:', error);
      res.destroy();
    });
  };
}
