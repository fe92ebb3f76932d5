/**
 * The MCP endpoint on Node's own request and response, with no web Request or Response: what a
 * Node server (npm start) can call for /api/v1/mcp, as its fast path does for ready REST answers.
 * The same core as the web handler (endpoint.ts), so the answers are the same; as the outermost
 * layer here it stamps `x-request-id` (src/api/request-id.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID, requestIdFrom } from '../api/request-id.ts';
import { BodyTooLarge, type McpCore } from './endpoint.ts';
import { LIMITS } from './protocol.ts';

/** The body as text, refusing past the limit: a declared length before reading, a longer stream as it comes. */
async function readBody(req: IncomingMessage): Promise<string> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > LIMITS.bodyBytes) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMITS.bodyBytes) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

const headerOf = (req: IncomingMessage) => (name: string) => {
  const value = req.headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
};

export async function serveMcpNode(core: McpCore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let tooLarge = false;
  const { status, headers, body } = await core({
    method: req.method ?? 'GET',
    header: headerOf(req),
    body: () =>
      readBody(req).catch((error: unknown) => {
        tooLarge = error instanceof BodyTooLarge;
        throw error;
      }),
  });
  const flat: string[] = [];
  for (const [name, value] of headers) flat.push(name, value);
  if (req.method !== 'OPTIONS') flat.push(REQUEST_ID, requestIdFrom(req.headers[REQUEST_ID] as string | undefined));
  // The rest of a refused body is not read: the connection cannot carry another request.
  if (tooLarge) flat.push('connection', 'close');
  res.writeHead(status, flat);
  if (!body) return void res.end();
  res.cork();
  for (const part of body) res.write(part);
  res.end();
}
