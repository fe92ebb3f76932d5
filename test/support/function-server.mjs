// The Vercel function's listener (src/server/vercel-function.ts, as build:api bundles it into
// <BUILD_DIR>/api) on a plain node:http server, as Vercel's Node launcher calls a `(req, res)`
// export: no server limits, no request-id stamp, nothing in front. Usage: BUILD_DIR=… PORT=… node this.
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const entry = resolve(process.env.BUILD_DIR ?? 'dist', 'api', 'vercel-function.mjs');
const { default: listener } = await import(pathToFileURL(entry).href);
const port = Number(process.env.PORT);
createServer(listener).listen(port, process.env.HOST ?? '127.0.0.1', () => console.log(`Serving on ${port}`));
