/**
 * Build step for Vercel (a no-op elsewhere): after Astro's adapter has written `.vercel/output`,
 * add the function that answers everything under /api — src/server/vercel-function.ts, the same
 * listener as `npm start` — with the history files it reads, and route /api to it ahead of
 * Astro's own function. Astro serves the pages; the API never goes through its page pipeline.
 *
 * What is written (Build Output API v3): `functions/_api.func/` holding `index.mjs` (the entry:
 * the compile cache on, then the bundled listener and its chunks), the compile cache warmed at
 * build (portable, so it holds in Vercel's /var/task), `.vc-config.json` (Node 24, Vercel's Node
 * launcher, which calls the `(req, res)` export; streamed answers), and the history at the same
 * relative path as in the repository, since the function's working directory is its folder; and
 * one route in `config.json`, first after `handle: filesystem`. With WEBSUB_HUB_URL set, one more,
 * first of all: the feed files' WebSub `Link` header (src/build/on-vercel.ts feedHubRoute).
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  API_FUNCTION,
  API_ROUTE_SOURCE,
  buildsForVercel,
  FEED_ROUTE_SOURCE,
  feedHubRoute,
} from '../src/build/on-vercel.ts';
import { websubHub } from '../src/lib/websub.ts';
import { siteUrl } from '../src/site.ts';
import { bundleApi, generatedDir } from './lib/api-bundle.ts';

interface Route {
  src?: string;
  dest?: string;
  handle?: string;
  [key: string]: unknown;
}

if (!buildsForVercel()) {
  console.log('build:vercel-api: not a Vercel build, nothing to do');
  process.exit(0);
}

const started = performance.now();
const output = resolve('.vercel/output');
const funcDir = join(output, 'functions', `${API_FUNCTION}.func`);
await rm(funcDir, { recursive: true, force: true });
await mkdir(funcDir, { recursive: true });
await bundleApi(['src/server/vercel-function.ts'], funcDir, []);
// The entry Vercel's launcher imports: Node's compile cache, written below, on before the listener
// loads (a cache Node cannot use, such as another Node version's, only makes a start slower).
await writeFile(
  join(funcDir, 'index.mjs'),
  [
    "import module from 'node:module';",
    "import { join } from 'node:path';",
    "module.enableCompileCache?.({ directory: join(import.meta.dirname, '.compile-cache'), portable: true });",
    "const { default: listener } = await import('./vercel-function.mjs');",
    'export default listener;',
    '',
  ].join('\n'),
);
await writeFile(
  join(funcDir, '.vc-config.json'),
  `${JSON.stringify(
    {
      runtime: 'nodejs24.x',
      handler: 'index.mjs',
      launcherType: 'Nodejs',
      shouldAddHelpers: false,
      supportsResponseStreaming: true,
    },
    null,
    2,
  )}\n`,
);
await writeFile(join(funcDir, 'package.json'), '{"type":"module"}\n');

const historyDir = JSON.parse(await readFile(join(generatedDir, 'history-dir.json'), 'utf8')) as string;
if (isAbsolute(historyDir)) throw new Error(`the history folder must be relative to the repository: ${historyDir}`);
await cp(resolve(historyDir), join(funcDir, historyDir), { recursive: true });
await promisify(execFile)(process.execPath, [
  resolve('scripts/warm-compile-cache.mjs'),
  funcDir,
  join(funcDir, '.compile-cache'),
  '--portable',
]);

const configPath = join(output, 'config.json');
const config = JSON.parse(await readFile(configPath, 'utf8')) as { routes: Route[] };
const hub = websubHub();
const routes = config.routes.filter((route) => route.dest !== `/${API_FUNCTION}` && route.src !== FEED_ROUTE_SOURCE);
const filesystem = routes.findIndex((route) => route.handle === 'filesystem');
if (filesystem === -1) throw new Error(`${configPath} has no "handle": "filesystem" route to put the API after`);
routes.splice(filesystem + 1, 0, { src: API_ROUTE_SOURCE, dest: `/${API_FUNCTION}` });
if (hub !== undefined) routes.unshift(feedHubRoute(hub, siteUrl()));
await writeFile(configPath, `${JSON.stringify({ ...config, routes }, null, 2)}\n`);
console.log(`build:vercel-api: ${funcDir} in ${Math.round(performance.now() - started)} ms`);
