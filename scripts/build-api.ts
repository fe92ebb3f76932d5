/**
 * Build step for `npm start`: bundle src/server/node-entry.ts (the server, the API and the data
 * it embeds) into <BUILD_DIR>/api/node-entry.mjs, then compile it once into Node's compile
 * cache (<BUILD_DIR>/.compile-cache, which scripts/serve.mjs enables).
 *
 * Both are for the cold start. The packages the API runs on (zod above all, ~95 files) are
 * bundled in: resolving and reading them one by one from node_modules cost ~40 ms of each start.
 * Only packages loaded on a path a cold start does not take stay external: `compression`
 * (CommonJS, for pages) and `@vercel/blob` (only with a Blob token).
 * The compile cache spares V8 re-parsing ~1.8 MB of bundle on every start (~20 ms).
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { bundleApi } from './lib/api-bundle.ts';

const buildDir = resolve(process.env.BUILD_DIR ?? 'dist');
const outdir = resolve(buildDir, 'api');

const started = performance.now();
// Chunk names carry content hashes: a rebuild would leave the last build's chunks (and their
// compiled code) beside the new ones.
await rm(outdir, { recursive: true, force: true });
await rm(resolve(buildDir, '.compile-cache'), { recursive: true, force: true });
// The Vercel function's entry too: the suite serves it as Vercel's launcher would (test/cdn-cache.test.ts).
await bundleApi(['src/server/node-entry.ts', 'src/server/vercel-function.ts'], outdir, ['compression', '@vercel/blob']);

// Compiled once into Node's compile cache, by plain Node (scripts/warm-compile-cache.mjs).
await promisify(execFile)(process.execPath, [
  resolve('scripts/warm-compile-cache.mjs'),
  outdir,
  resolve(buildDir, '.compile-cache'),
]);
console.log(`build:api: ${outdir}/node-entry.mjs in ${Math.round(performance.now() - started)} ms`);
