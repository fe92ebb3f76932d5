/**
 * The JavaScript a built page loads at once: its module scripts and every module they import
 * statically, read from the build's client folder (chunks imported dynamically load later, on
 * demand, and are not counted). The sizes the site states of a page's scripts are measured here.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Static `import … from "./x.js"` and `import "./x.js"`, as Vite writes them in a minified chunk. */
const STATIC_IMPORT = /(?:^|[;}\n])\s*import\s*(?:[^"'();]*?from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;

export async function scriptWeight(
  clientDir: string,
  page: string,
): Promise<{ files: number; bytes: number; gzipBytes: number }> {
  const html = await readFile(join(clientDir, page, 'index.html'), 'utf8');
  const queue = [...html.matchAll(/<script type="module" src="(\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  let bytes = 0;
  let gzipBytes = 0;
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const body = await readFile(join(clientDir, path));
    bytes += body.length;
    gzipBytes += gzipSync(body).length;
    for (const [, spec] of body.toString('utf8').matchAll(STATIC_IMPORT)) queue.push(posix.join(dirname(path), spec!));
  }
  return { files: seen.size, bytes, gzipBytes };
}

/** "3.4 MB of JavaScript, 1.0 MB gzip-compressed": a weight as the pages state it, in decimal megabytes. */
export const scriptWeightWords = ({ bytes, gzipBytes }: { bytes: number; gzipBytes: number }) =>
  `${(bytes / 1e6).toFixed(1)} MB of JavaScript, ${(gzipBytes / 1e6).toFixed(1)} MB gzip-compressed`;
