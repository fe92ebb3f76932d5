/** Writes the root middleware.js from src/server/vercel-middleware.ts (see scripts/lib/middleware-bundle.ts). */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { writeFile } from 'node:fs/promises';
import { MIDDLEWARE_FILE, middlewareSource } from './lib/middleware-bundle.ts';

const source = await middlewareSource();
await writeFile(MIDDLEWARE_FILE, source);
console.log(`build:middleware: ${MIDDLEWARE_FILE} (${(Buffer.byteLength(source) / 1024).toFixed(1)} KB)`);
