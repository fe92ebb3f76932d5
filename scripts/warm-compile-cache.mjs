// Run by scripts/build-api.ts after bundling: imports every module of <BUILD_DIR>/api with Node's
// compile cache on, and writes the cache to <BUILD_DIR>/.compile-cache, which scripts/serve.mjs
// enables. Plain Node, not tsx, whose loader hooks would compile the files their own way. A Node
// without the API (before 22.10) builds no cache: a start is then only slower.
// Usage: node scripts/warm-compile-cache.mjs <BUILD_DIR>
import { readdirSync } from 'node:fs';
import module from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const buildDir = resolve(process.argv[2] ?? 'dist');
if (module.enableCompileCache && module.flushCompileCache) {
  module.enableCompileCache(join(buildDir, '.compile-cache'));
  const dir = join(buildDir, 'api');
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.mjs'))) {
    await import(pathToFileURL(join(dir, file)).href);
  }
  module.flushCompileCache();
}
