/**
 * The middleware Vercel runs is the committed root middleware.js, found before any build command
 * runs: it must be the current bundle of src/server/vercel-middleware.ts, and import nothing the
 * deployment does not ship (only packages, which Vercel's build puts in the middleware function).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { MIDDLEWARE_FILE, middlewareSource } from '../scripts/lib/middleware-bundle.ts';
import { ROOT } from './support/constants.ts';

const committed = () => readFile(resolve(ROOT, MIDDLEWARE_FILE), 'utf8');

/** Every module specifier the file imports, statically or dynamically. */
function specifiers(source: string): string[] {
  const found = [
    ...source.matchAll(/\bimport\s*(?:[^'"()]*?\bfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/g),
  ];
  return found.map((m) => (m[1] ?? m[2])!);
}

describe('middleware.js, the request-id stamp Vercel runs before its CDN', () => {
  it('is the bundle of src/server/vercel-middleware.ts as it is now (else: npm run build:middleware)', async () => {
    expect(await committed(), 'middleware.js is stale: run `npm run build:middleware` and commit it').toBe(
      await middlewareSource(ROOT),
    );
  });

  it("imports only the project's runtime packages, never a source file", async () => {
    const source = await committed();
    const pkg = JSON.parse(await readFile(resolve(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const imported = specifiers(source);
    expect(imported.length).toBeGreaterThan(0);
    for (const specifier of imported) {
      expect(specifier, 'a relative import would need a file Vercel does not ship').not.toMatch(/^[./]/);
      expect(Object.keys(pkg.dependencies), specifier).toContain(specifier.split('/')[0]);
    }
  });

  it('is built from the request-id rule alone: no dataset, so no edit of the dataset table changes it', async () => {
    const { metafile } = await build({
      entryPoints: [resolve(ROOT, 'src/server/vercel-middleware.ts')],
      absWorkingDir: ROOT,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(Object.keys(metafile.inputs).sort()).toEqual([
      'src/http/request-id.ts',
      'src/lib/clean-text.ts',
      'src/paths.ts',
      'src/schemas/common.ts',
      'src/schemas/params.ts',
      'src/server/vercel-middleware.ts',
    ]);
    const source = await committed();
    for (const d of DATASETS) expect(source.toLowerCase()).not.toContain(d.slug);
  });

  it('declares its paths and runtime in the literal `config` Vercel reads before building', async () => {
    const source = await committed();
    expect(source).toMatch(/^export const config = \{ runtime: 'nodejs', matcher: \["\/api\/v1\/:path\*"\] \};$/m);
  });
});
