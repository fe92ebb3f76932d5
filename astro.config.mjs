// @ts-check
import { resolve } from 'node:path';
import { defineConfig, passthroughImageService } from 'astro/config';
import node from '@astrojs/node';
import vercel from '@astrojs/vercel';
import { buildsForVercel } from './src/build/on-vercel.ts';
import { siteUrl } from './src/site.ts';

const onVercel = buildsForVercel();

// Where build:data left the compiled data (pages import it as @generated/…) and where the site
// is built; both can move so that separate builds (tests) do not share folders.
const generatedDir = resolve(process.env.GENERATED_DIR ?? '.generated');
const buildDir = resolve(process.env.BUILD_DIR ?? 'dist');

/**
 * /api is answered by the API listener (src/server/api-listener.ts) ahead of Astro, in `npm start`
 * and in the Vercel function (scripts/build-vercel-api.ts). Only `astro dev` routes it through
 * Astro, to the same service.
 */
const devApi = {
  name: 'rates-dev-api',
  hooks: {
    'astro:config:setup': ({ command, injectRoute }) => {
      if (command !== 'dev') return;
      injectRoute({ pattern: '/api/[...path]', entrypoint: './src/server/dev-api-route.ts' });
      injectRoute({ pattern: '/feeds/[...path]', entrypoint: './src/server/dev-api-route.ts' });
    },
  },
};

export default defineConfig({
  site: siteUrl(),
  outDir: buildDir,
  cacheDir: `${buildDir}-cache`,
  output: 'static',
  adapter: onVercel ? vercel() : node({ mode: 'standalone' }),
  integrations: [devApi],
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
