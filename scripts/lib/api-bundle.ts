/**
 * The API bundled with esbuild, for `npm start` (scripts/build-api.ts) and for the Vercel
 * function (scripts/build-vercel-api.ts): one entry and the modules it loads later (MCP, the Blob
 * store) as chunks beside it, the compiled data of build:data (`@generated/<file>?raw`) inlined
 * as strings, as Vite does for Astro.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';

export const generatedDir = resolve(process.env.GENERATED_DIR ?? '.generated');

/** `@generated/<file>?raw` → the file's text as a string module. */
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

export async function bundleApi(entries: string[], outdir: string, external: string[]): Promise<void> {
  await build({
    entryPoints: entries.map((entry) => resolve(entry)),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external,
    plugins: [generatedRaw],
    // A bundled CommonJS package (@vercel/blob's dependencies in the Vercel function) requires
    // Node's modules; an ES module has no `require` of its own, so each chunk gets one.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}
