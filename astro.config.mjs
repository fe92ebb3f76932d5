// @ts-check
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig, passthroughImageService } from 'astro/config';
import node from '@astrojs/node';
import vercel from '@astrojs/vercel';
import { siteUrl } from './src/site.ts';

// Vercel sets VERCEL=1 during its builds; everywhere else (npm start, tests) the Node adapter
// serves the same build locally. ASTRO_ADAPTER=vercel builds the Vercel output by hand.
const onVercel =
  process.env.ASTRO_ADAPTER === 'vercel' || (process.env.VERCEL === '1' && process.env.ASTRO_ADAPTER !== 'node');

// Where build:data left the compiled data (pages import it as @generated/…) and where the site
// is built; both can move so that separate builds (tests) do not share folders.
const generatedDir = resolve(process.env.GENERATED_DIR ?? '.generated');
const buildDir = resolve(process.env.BUILD_DIR ?? 'dist');

/**
 * The history files the API reads at run time (src/server/runtime.ts): build:data has written them
 * when `astro build` loads this file. The Vercel adapter copies them into the function at the same
 * path relative to the repository, which is the function's working directory there.
 */
function historyFiles() {
  try {
    return readdirSync(resolve(generatedDir, 'history'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return []; // no build:data yet (astro check, astro dev before it)
  }
}

export default defineConfig({
  site: siteUrl(),
  outDir: buildDir,
  cacheDir: `${buildDir}-cache`,
  output: 'static',
  adapter: onVercel ? vercel({ includeFiles: historyFiles() }) : node({ mode: 'standalone' }),
  // The API is public and read-only; Astro's origin check would turn cross-site POSTs (MCP) into 403s.
  security: { checkOrigin: false },
  // No image processing: keeps sharp out of the serverless function.
  image: { service: passthroughImageService() },
  server: { port: 8787, host: '127.0.0.1' },
  // Let the API answer CORS preflights itself in `astro dev` too.
  // No inlined scripts (assetsInlineLimit 0), so the Content-Security-Policy can say script-src 'self'.
  vite: {
    server: { cors: false },
    resolve: { alias: { '@generated': generatedDir } },
    build: { assetsInlineLimit: 0 },
  },
});
