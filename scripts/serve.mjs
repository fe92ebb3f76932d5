// Serve the production build (`npm start` builds first) on 127.0.0.1:8787 unless HOST/PORT say otherwise.
// /api/* goes straight to the API functions (the same ones Astro's routes call); pages go to the
// Astro Node handler, loaded on the first page request. The server, its timeouts and connection
// caps (configurable: HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS,
// STALLED_TIMEOUT_MS, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_CLIENT, MAX_CONNECTIONS_PER_NETWORK,
// MAX_HEADER_BYTES, MAX_BODY_BYTES) are in src/server/node-server.ts and src/server/limits.ts;
// the docs' limits page lists them.
import module from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? '127.0.0.1';
const buildDir = resolve(process.env.BUILD_DIR ?? 'dist');
// The build compiled the API bundle into this cache (scripts/build-api.ts): a start reads V8's
// code instead of parsing the bundle again. A missing or read-only cache, or a Node without the
// API (before 22.1), only makes a start slower.
module.enableCompileCache?.(resolve(buildDir, '.compile-cache'));
const load = (file) => import(pathToFileURL(resolve(buildDir, file)).href);

const { apiListener, createNodeServer, limitsFromEnv, log, site } = await load('api/node-entry.mjs');
process.env.ASTRO_NODE_AUTOSTART = 'disabled';
let astro;
const pages = (req, res) => (astro ??= load('server/entry.mjs')).then(({ handler }) => handler(req, res));

const limits = limitsFromEnv();
const server = createNodeServer({ api: apiListener, pages, limits, site, log });
server.listen(port, host, () => {
  console.log(`Serving http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  console.log(
    `Limits: ${Object.entries(limits)
      .map(([name, value]) => `${name} ${value}`)
      .join(', ')}`,
  );
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
  });
}
