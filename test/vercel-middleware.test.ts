/**
 * The middleware Vercel runs is the committed root middleware.js, found before any build command
 * runs: it must be the current bundle of src/server/vercel-middleware.ts, and import nothing the
 * deployment does not ship (only packages, which Vercel's build puts in the middleware function).
 * What the middleware answers (a request id, a docs page's rewrite to its Markdown), and the tests'
 * Vercel router following a rewrite, are checked here in-process and fast; test/vercel-build.test.ts
 * runs the same through Vercel's real build.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { pathToRegexp } from '@vercel/routing-utils';
import { DATASETS } from '../src/datasets.ts';
import middleware, { MIDDLEWARE_MATCHER } from '../src/server/vercel-middleware.ts';
import { MIDDLEWARE_FILE, middlewareSource } from '../scripts/lib/middleware-bundle.ts';
import { ROOT, SITE } from './support/constants.ts';
import { tempDir } from './support/history.ts';
import { serveVercelOutput } from './support/vercel-output.ts';

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
    expect(
      await committed(),
      'middleware.js is stale: run `npm run build:middleware` (`npm run build` runs it too) and commit it',
    ).toBe(await middlewareSource(ROOT));
  });

  it('is rebuilt by `npm run build` before anything else, so a local build never leaves it stale', async () => {
    const pkg = JSON.parse(await readFile(resolve(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['build:middleware']).toBe('tsx scripts/build-middleware.ts');
    expect(pkg.scripts.build!.split(' && ')[0]).toBe('npm run build:middleware');
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
      'src/http/docs-negotiation.ts',
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
    const line = `export const config = { runtime: 'nodejs', matcher: ${JSON.stringify(MIDDLEWARE_MATCHER)} };`;
    expect(source.split('\n')).toContain(line);
    expect(MIDDLEWARE_MATCHER).toEqual(['/api/v1/:path*', '/docs', '/docs/:page((?:[^/]+/)*[^/.]+)']);
  });
});

describe('the middleware function', () => {
  const call = (path: string, accept?: string) =>
    middleware(new Request(`${SITE}${path}`, { headers: accept === undefined ? {} : { accept } }));
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

  it('a docs page asked for as Markdown: rewritten to its .md twin (query kept), varying with Accept, no request id', () => {
    const cases = [
      ['/docs/quickstart', '/docs/quickstart.md'],
      ['/docs/quickstart/', '/docs/quickstart.md'],
      ['/docs/quickstart?x=1', '/docs/quickstart.md?x=1'],
      ['/docs', '/docs.md'],
      ['/docs/', '/docs.md'],
    ];
    for (const [path, twin] of cases) {
      const response = call(path!, 'text/markdown');
      expect(response.status, path).toBe(200);
      expect(response.headers.get('x-middleware-rewrite'), path).toBe(`${SITE}${twin}`);
      expect(response.headers.has('x-middleware-next'), path).toBe(false);
      expect(response.headers.get('vary'), path).toBe('Accept');
      expect(response.headers.has('x-request-id'), path).toBe(false);
    }
  });

  it('Markdown when weighed higher or named first at the same weight; HTML otherwise, also varying with Accept', () => {
    const rewritten = (accept?: string) => call('/docs/quickstart', accept).headers.has('x-middleware-rewrite');
    expect(rewritten('text/html;q=0.5, text/markdown')).toBe(true);
    expect(rewritten('text/markdown, text/html')).toBe(true);
    expect(rewritten('text/markdown, */*;q=0.1')).toBe(true);
    expect(rewritten('text/markdown;q=0.5, text/html')).toBe(false);
    expect(rewritten('*/*')).toBe(false);
    expect(rewritten(browser)).toBe(false);
    expect(rewritten(undefined)).toBe(false);
    const html = call('/docs/quickstart', browser);
    expect(html.headers.get('x-middleware-next')).toBe('1');
    expect(html.headers.get('vary')).toBe('Accept');
    expect(html.headers.has('x-request-id')).toBe(false);
  });

  it('an API request: its request id, no Vary, never rewritten', () => {
    const response = call('/api/v1/health', 'text/markdown');
    expect(response.headers.get('x-middleware-next')).toBe('1');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.has('vary')).toBe(false);
    expect(response.headers.has('x-middleware-rewrite')).toBe(false);
  });

  it('runs, by the matcher as Vercel compiles it, on the API and the docs pages, never on a file under /docs', () => {
    // What Vercel's builder makes of config.matcher (@vercel/build-utils getRegExpFromMatchers).
    const route = new RegExp(MIDDLEWARE_MATCHER.map((m) => pathToRegexp('middleware', m).source).join('|'), 'i');
    const pages = ['/docs', '/docs/', '/docs/quickstart', '/docs/quickstart/', '/docs/reference/x-rates'];
    const others = ['/docs.md', '/docs/quickstart.md', '/docs/changelog.atom', '/docsx', '/', '/rates', '/llms.txt'];
    for (const path of [...pages, '/api/v1/health', '/api/v1/mcp']) expect(route.test(path), path).toBe(true);
    for (const path of others) expect(route.test(path), path).toBe(false);
    for (const path of [...pages, ...others]) {
      expect(call(path, 'text/markdown').headers.has('x-middleware-rewrite'), path).toBe(pages.includes(path));
    }
  });
});

describe('the tests’ Vercel router (test/support/vercel-output.ts) follows a middleware’s rewrite as Vercel does', () => {
  it('the rewritten path and query are served instead, files first, with the middleware’s headers; a rewrite to another host fails', async () => {
    const middleware = `export default (request) => {
      const to = { '/page': '/page.md', '/fn': '/echo?b=2', '/away': 'https://elsewhere.example/x' }[new URL(request.url).pathname];
      return new Response(null, { headers: { vary: 'Accept', 'x-middleware-rewrite': new URL(to, request.url).href } });
    };`;
    const fn = { runtime: 'nodejs24.x', handler: 'index.mjs', launcherType: 'Nodejs' };
    const route = { src: '^/(page|fn|away)$', middlewarePath: 'middleware', continue: true, override: true };
    const dir = await tempDir('rates-vercel-rewrite-');
    const files = {
      'config.json': JSON.stringify({ version: 3, routes: [route, { handle: 'filesystem' }] }),
      'static/page.md': '# The page\n',
      'static/page/index.html': '<p>The page</p>',
      'functions/middleware.func/.vc-config.json': JSON.stringify(fn),
      'functions/middleware.func/index.mjs': middleware,
      'functions/echo.func/.vc-config.json': JSON.stringify(fn),
      'functions/echo.func/index.mjs':
        'export default (request) => new Response(new URL(request.url).pathname + new URL(request.url).search);',
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const deployment = await serveVercelOutput(dir, { SITE_URL: SITE });
    try {
      const page = await fetch(`${deployment.url}/page`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(page.headers.get('vary')).toBe('Accept');
      expect(page.headers.has('x-middleware-rewrite')).toBe(false);
      expect(await page.text()).toBe('# The page\n');
      // The rewrite's query replaces the request's, as `vercel dev` does; the function sees the rewritten URL.
      const echoed = await fetch(`${deployment.url}/fn?a=1`);
      expect(await echoed.text()).toBe('/echo?b=2');
      expect(deployment.problems).toEqual([]);
      const away = await fetch(`${deployment.url}/away`);
      expect(away.status).toBe(502);
      await away.arrayBuffer();
      expect(deployment.problems).toEqual([expect.stringMatching(/rewrite to another host is not implemented/)]);
    } finally {
      await deployment.stop();
      await rm(dir, { recursive: true });
    }
  });
});
