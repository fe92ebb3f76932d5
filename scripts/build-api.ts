/**
 * Build step for `npm start`: bundle src/server/node-entry.ts (the API functions and the data
 * they embed) into <BUILD_DIR>/api/node-entry.mjs, then compile it once into Node's compile
 * cache (<BUILD_DIR>/.compile-cache, which scripts/serve.mjs enables).
 *
 * Both are for the cold start. The packages the API runs on (zod above all, ~95 files) are
 * bundled in: resolving and reading them one by one from node_modules cost ~40 ms of each start.
 * Only packages loaded on a path a cold start does not take stay external: `compression`
 * (CommonJS, for pages and streamed answers) and `@vercel/blob` (only with a Blob token).
 * The compile cache spares V8 re-parsing ~1.8 MB of bundle on every start (~20 ms).
 */
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';

const generatedDir = resolve(process.env.GENERATED_DIR ?? '.generated');
const buildDir = resolve(process.env.BUILD_DIR ?? 'dist');
const outdir = resolve(buildDir, 'api');

/** `@generated/<file>?raw` → the file's text as a string module, as Vite does for Astro. */
const generatedRaw: Plugin = {
  name: 'generated-raw',
  setup(b) {
    b.onResolve({ filter: /^@generated\/.*\?raw$/ }, (args) => ({
      path: resolve(generatedDir, args.path.slice('@generated/'.length, -'?raw'.length)),
      namespace: 'raw',
    }));
    b.onLoad({ filter: /.*/, namespace: 'raw' }, async (args) => ({
      contents: `export default ${JSON.stringify(await readFile(args.path, 'utf8'))};`,
      loader: 'js',
    }));
  },
};

const started = performance.now();
// Chunk names carry content hashes: a rebuild would leave the last build's chunks (and their
// compiled code) beside the new ones.
await rm(outdir, { recursive: true, force: true });
await rm(resolve(buildDir, '.compile-cache'), { recursive: true, force: true });
await build({
  entryPoints: [resolve('src/server/node-entry.ts')],
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: ['compression', '@vercel/blob'],
  plugins: [generatedRaw],
  logLevel: 'warning',
});

// Compiled once into Node's compile cache, by plain Node (scripts/warm-compile-cache.mjs).
await promisify(execFile)(process.execPath, [resolve('scripts/warm-compile-cache.mjs'), buildDir]);
console.log(`build:api: ${outdir}/node-entry.mjs in ${Math.round(performance.now() - started)} ms`);
