// Serve the production build (`npm start` builds first) on 127.0.0.1:8787 unless HOST/PORT say otherwise.
// /api/* goes straight to the API functions (the same ones Astro's routes call); pages go to the
// Astro Node handler, loaded on the first page request. Responses are compressed (brotli or gzip)
// for clients that accept it.
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import compression from 'compression';

const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? '127.0.0.1';
const buildDir = resolve(process.env.BUILD_DIR ?? 'dist');
const load = (file) => import(pathToFileURL(resolve(buildDir, file)).href);

const { apiListener, SECURITY_HEADERS } = await load('api/node-entry.mjs');
process.env.ASTRO_NODE_AUTOSTART = 'disabled';
let astro;
const pages = (req, res) => (astro ??= load('server/entry.mjs')).then(({ handler }) => handler(req, res));

// The package's defaults (brotli quality 4, gzip level 6) give most of the size win cheaply.
const compress = compression({ threshold: 1024 });
const server = createServer((req, res) => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  compress(req, res, () => (req.url?.startsWith('/api/') ? apiListener(req, res) : pages(req, res)));
});
server.listen(port, host, () => console.log(`Serving http://${host.includes(':') ? `[${host}]` : host}:${port}`));

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
  });
}
