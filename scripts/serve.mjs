// Serve the production build (`npm start` builds first) on 127.0.0.1:8787 unless HOST/PORT say otherwise.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

process.env.PORT ??= '8787';
process.env.HOST ??= '127.0.0.1';
await import(pathToFileURL(resolve(process.env.BUILD_DIR ?? 'dist', 'server/entry.mjs')).href);
