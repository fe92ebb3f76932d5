// One Vercel function of a Build Output API folder, run as Vercel's Node launcher runs it.
//
// Started by test/support/vercel-output.ts with the function's `.func` folder as cwd (Vercel's
// /var/task) under Node's permission model (it may read that folder and this file, nothing else).
// It imports the handler named by `.vc-config.json` at start-up, so a module that cannot load
// (a missing import, a read outside the folder) kills the process with its error on stderr, and
// then serves the handler on a loopback port, told to the parent over IPC: `{ ready: port }`.
// Failures while answering are printed and told to the parent (`{ failure }`), never swallowed.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH'];
/** Vercel's ceiling on a buffered (non-streamed) function answer. */
const MAX_BUFFERED_BYTES = 4_500_000;

const config = JSON.parse(readFileSync('.vc-config.json', 'utf8'));
const entry = config.handler ?? config.entrypoint;
if (!entry) throw new Error(`.vc-config.json in ${process.cwd()} names no handler nor entrypoint`);
if (config.filePathMap) throw new Error('.vc-config.json has a filePathMap: files outside the function, not run here');
const handle = toNodeHandler(await import(pathToFileURL(resolve(entry)).href), config);

/** Tell the parent, which records it as a failure of the run: a launcher never hides one. */
function fail(error) {
  console.error(error);
  process.send?.({ failure: String(error?.stack ?? error) });
}

/**
 * The shapes Vercel's Node launcher accepts (@vercel/node): the default export unwrapped, then a
 * web handler (`fetch(request)`, method exports like `GET`, or a one-argument function, which
 * `useWebApi` also asks for), else a Node handler `(req, res)`.
 */
function toNodeHandler(module, config) {
  let listener = module;
  for (let i = 0; i < 5 && listener.default; i++) listener = listener.default;
  if (typeof listener.fetch === 'function') return webHandler(() => listener.fetch.bind(listener));
  if (METHODS.some((method) => typeof listener[method] === 'function')) return webHandler((method) => listener[method]);
  if (typeof listener === 'function' && (config.useWebApi || listener.length <= 1)) return webHandler(() => listener);
  if (typeof listener === 'function') return listener;
  throw new Error(`${entry}: Can't detect way to handle request (no fetch, method export or default function)`);
}

/** A web handler behind node:http: a `Request` in, its `Response` written out. */
function webHandler(handlerFor) {
  return async (req, res) => {
    const handler = handlerFor(req.method);
    if (!handler) return void res.writeHead(405).end(); // what Vercel answers a method with no export
    const response = await handler(toRequest(req));
    await writeResponse(response, res);
  };
}

/**
 * The `Request` Vercel's launcher builds (@edge-runtime/node-utils): its URL from the Host header
 * (https only when the port says 443), every header, and the body as a stream for any method but
 * GET and HEAD.
 */
function toRequest(req) {
  const host = req.headers.host;
  const origin = host ? `${host.split(':')[1] === '443' ? 'https' : 'http'}://${host}` : 'https://vercel.com';
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const body = req.method === 'GET' || req.method === 'HEAD' ? null : Readable.toWeb(req);
  return new Request(new URL(req.url, origin), { method: req.method, headers, body, duplex: 'half' });
}

/** Write a `Response`: streamed chunk by chunk when the function may stream, else buffered under Vercel's limit. */
async function writeResponse(response, res) {
  const headers = {};
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  if (config.supportsResponseStreaming) {
    res.writeHead(response.status, headers);
    if (response.body) for await (const chunk of response.body) await write(res, chunk);
    return void res.end();
  }
  const chunks = [];
  let size = 0;
  if (response.body) for await (const chunk of response.body) size += chunks.push(chunk) && chunk.byteLength;
  if (size > MAX_BUFFERED_BYTES) return tooLarge(res, size);
  res.writeHead(response.status, { ...headers, 'content-length': String(size) }).end(Buffer.concat(chunks));
}

/** One chunk, waiting while the socket is full, so a large answer streams at the reader's pace. */
function write(res, chunk) {
  return res.write(chunk) ? undefined : new Promise((done) => res.once('drain', done));
}

/** Vercel's answer to a buffered function body over 4.5 MB. */
function tooLarge(res, size) {
  fail(
    new Error(`FUNCTION_RESPONSE_PAYLOAD_TOO_LARGE: a buffered answer of ${size} bytes (limit ${MAX_BUFFERED_BYTES})`),
  );
  res
    .writeHead(500, {
      'content-type': 'text/plain; charset=utf-8',
      'x-vercel-error': 'FUNCTION_RESPONSE_PAYLOAD_TOO_LARGE',
    })
    .end('An error occurred with this application.\n\nFUNCTION_RESPONSE_PAYLOAD_TOO_LARGE\n');
}

const server = createServer((req, res) => {
  Promise.resolve()
    .then(() => handle(req, res))
    .catch((error) => {
      fail(error);
      // Vercel's answer to a function that threw; once the head is out, only the connection can say it.
      if (res.headersSent) return void res.destroy(error);
      res
        .writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'x-vercel-error': 'FUNCTION_INVOCATION_FAILED' })
        .end('A server error has occurred\n\nFUNCTION_INVOCATION_FAILED\n');
    });
});
server.listen(0, '127.0.0.1', () => process.send({ ready: server.address().port }));
