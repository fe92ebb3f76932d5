// Imports every module of a folder with Node's compile cache on, and writes the cache to a
// folder beside them: scripts/build-api.ts runs it for `npm start` (<BUILD_DIR>/api, whose cache
// scripts/serve.mjs enables) and scripts/build-vercel-api.ts for the API function (portable: the
// function is moved to Vercel's /var/task, and the cache is keyed relative to its own folder).
// Plain Node, not tsx, whose loader hooks would compile the files their own way. A Node without
// the API (before 22.10) builds no cache: a start is then only slower.
// Usage: node scripts/warm-compile-cache.mjs <modules dir> <cache dir> [--portable]
import { readdirSync } from 'node:fs';
import module from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, cache, flag] = process.argv.slice(2);
if (!modules || !cache) throw new Error('usage: warm-compile-cache.mjs <modules dir> <cache dir> [--portable]');
if (module.enableCompileCache && module.flushCompileCache) {
  module.enableCompileCache({ directory: resolve(cache), portable: flag === '--portable' });
  for (const file of readdirSync(resolve(modules)).filter((name) => name.endsWith('.mjs'))) {
    await import(pathToFileURL(join(resolve(modules), file)).href);
  }
  module.flushCompileCache();
}
