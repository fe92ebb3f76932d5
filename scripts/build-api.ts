/**
 * Build step for `npm start`: bundle src/server/node-entry.ts (the API functions and the data
 * they embed) into <BUILD_DIR>/api/node-entry.mjs. Packages stay external, as in Astro's server.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';

const generatedDir = resolve(process.env.GENERATED_DIR ?? '.generated');
const outdir = resolve(process.env.BUILD_DIR ?? 'dist', 'api');

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
await build({
  entryPoints: [resolve('src/server/node-entry.ts')],
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  plugins: [generatedRaw],
  logLevel: 'warning',
});
console.log(`build:api: ${outdir}/node-entry.mjs in ${Math.round(performance.now() - started)} ms`);
