// Serve the production build (`npm start` builds first) on 127.0.0.1:8787 unless HOST/PORT say otherwise.
// The Astro Node handler answers everything; this server in front of it compresses responses for
// clients that accept it (brotli or gzip), which the adapter's own server does not.
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import compression from 'compression';

const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? '127.0.0.1';
process.env.ASTRO_NODE_AUTOSTART = 'disabled';
const { handler } = await import(pathToFileURL(resolve(process.env.BUILD_DIR ?? 'dist', 'server/entry.mjs')).href);

// The package's defaults (brotli quality 4, gzip level 6) give most of the size win cheaply.
const compress = compression({ threshold: 1024 });
const server = createServer((req, res) => compress(req, res, () => handler(req, res)));
server.listen(port, host, () => console.log(`Serving http://${host.includes(':') ? `[${host}]` : host}:${port}`));

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
  });
}
