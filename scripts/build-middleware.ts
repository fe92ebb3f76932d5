/**
 * Writes the root middleware.js from src/server/vercel-middleware.ts (see scripts/lib/middleware-bundle.ts).
 * `npm run build` runs it first, so every local build leaves the file current. It writes only when the
 * bundle changed, and then through a rename: test builds run `npm run build` in the checkout while
 * test/vercel-middleware.test.ts reads the file, which must never see it half written.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { readFile, rename, writeFile } from 'node:fs/promises';
import { MIDDLEWARE_FILE, middlewareSource } from './lib/middleware-bundle.ts';

const source = await middlewareSource();
const size = `${(Buffer.byteLength(source) / 1024).toFixed(1)} KB`;
const current = await readFile(MIDDLEWARE_FILE, 'utf8').catch(() => undefined);
if (current === source) {
  console.log(`build:middleware: ${MIDDLEWARE_FILE} is current (${size})`);
} else {
  const temporary = `${MIDDLEWARE_FILE}.${process.pid}.tmp`;
  await writeFile(temporary, source);
  await rename(temporary, MIDDLEWARE_FILE);
  console.log(`build:middleware: ${MIDDLEWARE_FILE} written (${size}); commit it`);
}
