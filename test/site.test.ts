/**
 * The documentation site as built by Astro and served by the built server, over the real
 * history: every docs route, the raw Markdown, llms.txt, the OpenAPI contract (validated, linted,
 * its examples checked; its generated types in typed-clients.test.ts), search, and the pages in
 * headless Chromium.
 */
import { execFile } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { dereference, validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset, filtersOf, itemsOf } from '../src/datasets.ts';
import { parseFeed } from '@rowanmanning/feed-parser';
import { parseChangelog } from '../src/docs/changelog.ts';
import { breakEvenEndpointOf } from '../src/api/break-even.ts';
import type { DocPage } from '../src/docs/pages.ts';
import { endpointsOf, exampleListRequest } from '../src/endpoints.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { ERROR_CODES } from '../src/schemas/errors.ts';
import { SECURITY_HEADERS } from '../src/http/security-headers.ts';
import { chromiumForTests, SCREENSHOTS, visit as open } from './support/chromium.ts';
import { freePort } from './support/free-port.ts';
import { MCP_PATH, modern } from './support/mcp.ts';
import { ROOT } from './support/constants.ts';
import { filtersAt, toolNamesOf } from './support/datasets.ts';
import { historyDir, newestDates, newestSnapshots, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';
import { answers, startServer } from './support/server-process.ts';
import { scriptWeight, scriptWeightWords } from './support/script-weight.ts';

const run = promisify(execFile);
let site: ProductionSite;
let pages: DocPage[];
let openapi: any;

/** The lender given a website in the built tree's links file: one every snapshot of the first dataset lists. */
const LINKED = { id: DATASETS[0].exampleEntityId, website: 'https://www.tsbbank.co.nz/' };

/** A secret present while building: none of the built files may contain it. */
const CANARY = `vercel_blob_rw_canary_${process.pid}_${Date.now()}`;

beforeAll(async () => {
  // The test history, and one website in a links file beside it (the lenders page shows it).
  const snapshotsDir = await tempDir('rates-site-snapshots-');
  await cp(historyDir(), snapshotsDir, { recursive: true });
  await writeFile(
    join(snapshotsDir, DATASETS[0].slug, 'links.json'),
    `${JSON.stringify({ websites: { [LINKED.id]: LINKED.website } }, null, 2)}\n`,
  );
  site = await buildAndServe({
    name: 'site',
    snapshotsDir,
    statusDir: await tempDir('rates-status-'),
    buildEnv: { BLOB_READ_WRITE_TOKEN: CANARY, SECRET_API_KEY: CANARY },
  });
  pages = JSON.parse(await readFile(join(site.generatedDir, 'docs.json'), 'utf8'));
  openapi = await (await fetch(`${site.url}/openapi/json`)).json();
}, 180_000);
afterAll(() => site?.stop());

const get = (path: string, init?: RequestInit) => fetch(`${site.url}${path}`, init);
const list = (d: Dataset) => endpointsOf(d).list.path;
const series = (d: Dataset) => endpointsOf(d).timeSeries.path;
const [A, B] = [DATASETS[0], DATASETS.at(-1)!];

describe('docs pages', () => {
  it('has every page the docs promise', () => {
    expect(pages.map((p) => p.url)).toEqual([
      '/docs',
      '/docs/quickstart',
      '/docs/typescript',
      '/docs/concepts',
      '/docs/errors',
      '/docs/limits',
      '/docs/changes',
      '/docs/notifications',
      '/docs/collection',
      '/docs/stability',
      '/docs/changelog',
      '/docs/terms',
      '/docs/ai',
      '/docs/self-hosting',
      '/docs/caching',
      '/docs/deploying',
      ...DATASETS.map((d) => `/docs/reference/${d.slug}`),
    ]);
  });

  it('renders every page as HTML with the navigation, and as raw Markdown at <page>.md', async () => {
    for (const page of pages) {
      const html = await get(page.url);
      expect(html.status, page.url).toBe(200);
      const text = await html.text();
      expect(text).toContain(`<title>${page.title} · NZ Rates API docs</title>`);
      for (const other of pages) expect(text, `${page.url} links ${other.url}`).toContain(`href="${other.url}"`);
      const md = await get(page.mdUrl);
      expect(md.status, page.mdUrl).toBe(200);
      expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
      expect(await md.text()).toBe(page.markdown);
    }
    expect((await get('/docs/no-such-page')).status).toBe(404);
  });

  it('reference pages carry real examples from the data the site was built with, and every parameter and field', async () => {
    const newest = await newestSnapshots();
    for (const d of DATASETS) {
      const markdown = await (await get(`/docs/reference/${d.slug}.md`)).text();
      expect(markdown, d.slug).toContain(`"lastUpdated": "${newest[d.slug].lastUpdated}"`);
      expect(markdown, d.slug).toContain(`curl '${site.url}${exampleListRequest(d)}`);
      for (const param of Object.keys(endpointsOf(d).timeSeries.query.shape))
        expect(markdown, d.slug).toContain(`| \`${param}\` |`);
      for (const field of Object.keys(itemsOf(newest[d.slug].data[0])[0]!))
        expect(markdown, `${d.slug} ${field}`).toContain(`\`${field}\``);
    }
  });

  it('the errors page has an anchor for every error code, where every documentationUrl points', async () => {
    const html = await (await get('/docs/errors')).text();
    for (const code of ERROR_CODES) expect(html, code).toContain(`id="${code}"`);
    for (const d of DATASETS) {
      const body = await (await get(`${list(d)}/${d.entity.prefix}:nobody`)).json();
      expect(body.documentationUrl).toBe(`${site.url}/docs/errors#${d.entity.notFound}`);
    }
  });

  it('the AI page lists the MCP tools and says how the contract describes the MCP route', async () => {
    const markdown = await (await get('/docs/ai.md')).text();
    for (const tool of TOOLS) expect(markdown).toContain(`\`${tool.name}\``);
    expect(markdown).toContain('sendMcpMessage');
  });

  it("the changelog page is CHANGELOG.md, with the site's links, announcing an Atom feed of one entry per dated release", async () => {
    const file = await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const releases = parseChangelog(file);
    const html = await (await get('/docs/changelog')).text();
    const [, head] = /<head>([\s\S]*)<\/head>/.exec(html)!;
    expect(head).toMatch(/<link rel="alternate" type="application\/atom\+xml" href="\/docs\/changelog\.atom"/);
    for (const release of releases) expect(html).toContain(`id="${release.anchor}"`);
    expect(html).not.toContain('href="content/docs/');
    expect(html).toContain('href="/docs/stability"');
    expect(html).toContain('href="/docs/changelog.atom"');

    const response = await get('/docs/changelog.atom');
    expect(response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const feed = parseFeed(await response.text());
    const dated = releases.filter((r) => r.date !== null);
    expect(dated.length).toBeGreaterThan(0);
    expect(feed.items.map((item) => item.url)).toEqual(dated.map((r) => `${site.url}/docs/changelog#${r.anchor}`));
    expect(feed.items.map((item) => item.title)).toEqual(dated.map((r) => `${r.version} (${r.date})`));
    expect(feed.updated?.toISOString().slice(0, 10)).toBe(dated[0]!.date);
    // Each entry holds its release's notes.
    const firstItem = dated[0]!.markdown.split('\n').find((line) => line.startsWith('- '))!;
    expect(feed.items[0]!.content).toContain(firstItem.slice(2).split('`')[0]!.slice(0, 30));
  });
});

describe('llms.txt and llms-full.txt', () => {
  it('llms.txt follows llmstxt.org, and every link in it answers 200', async () => {
    const response = await get('/llms.txt');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await response.text();
    expect(text).toMatch(/^# NZ Rates API\n\n> .+\n/);
    for (const section of ['## Docs', '## Reference', '## API', '## Optional']) expect(text).toContain(section);
    const links = [...text.matchAll(/^- \[([^\]]+)\]\(([^)]+)\)/gm)].map((m) => m[2]!);
    expect(links.length).toBeGreaterThan(20);
    for (const page of pages) expect(links).toContain(`${site.url}${page.mdUrl}`);
    expect(links).toContain(`${site.url}/openapi/json`);
    expect(text).toContain(`POST ${site.url}/api/v1/mcp`);
    for (const link of links) expect((await fetch(link)).status, link).toBe(200);
  });

  it('llms-full.txt holds every page in full', async () => {
    const response = await get('/llms-full.txt');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await response.text();
    for (const page of pages) expect(text, page.url).toContain(page.markdown.trim());
  });
});

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1.0 (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(openapi));
    expect(result.valid, JSON.stringify(result)).toBe(true);
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.info).toMatchObject({ version: '1.0.0', title: 'NZ Rates API' });
    expect(openapi.info.description.length).toBeGreaterThan(50);
    expect(openapi.security).toEqual([]);
    expect(openapi.servers).toEqual([{ url: site.url, description: 'This deployment' }]);
  });

  it('passes @redocly/cli lint (recommended rules) with no problem', async () => {
    const file = join(await tempDir(), 'openapi.json');
    await writeFile(file, JSON.stringify(openapi));
    const result = await run(process.execPath, [resolve(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file], {
      cwd: ROOT,
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e) => ({ code: e.code as number, out: `${e.stdout}${e.stderr}` }),
    );
    expect(result.out).toContain('Your API description is valid');
    expect(result.out).not.toMatch(/warning|error/i);
    expect(result.code).toBe(0);
  }, 60_000);

  it('describes every REST path with an operationId, a dataset tag, parameter patterns and every response with examples', () => {
    const operations = Object.entries(openapi.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })),
    );
    // Each dataset's operations, named from its slug in camelCase: list, one entity, time series, lowest, quote check,
    // changes, alerts and their Atom twin, break-even rates where it has fixed terms; each GET and the MCP POST with its path's CORS preflight; MCP's GET and DELETE (405).
    const camel = (words: string) => words.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());
    const answered = [
      ...DATASETS.flatMap((d) => [
        camel(`list-${d.slug}`),
        camel(`get-${d.slug}-by-${d.entity.kind}`),
        camel(`get-${d.slug}-time-series`),
        camel(`get-lowest-${d.slug}`),
        camel(`check-${d.slug}-quote`),
        camel(`get-${d.slug}-changes`),
        camel(`get-${d.slug}-alerts`),
        camel(`get-${d.slug}-alerts-atom`),
        // The break-even rates, of a dataset whose measures are fixed terms.
        ...(breakEvenEndpointOf(d) ? [camel(`get-${d.slug}-break-even`)] : []),
      ]),
      'getHealth',
      'getStatus',
      'listInstitutions',
      'searchDocs',
      'sendMcpMessage',
    ];
    expect(operations.map((o) => o.op.operationId).sort()).toEqual(
      [...answered, ...answered.map((id) => camel(`preflight-${id}`)), 'openMcpEventStream', 'deleteMcpSession'].sort(),
    );
    for (const d of DATASETS) {
      const op = openapi.paths[series(d)].get;
      expect(op.tags).toEqual([d.title]);
      const param = (name: string) => op.parameters.find((p: any) => p.name === name);
      expect(param('date').schema.pattern).toBe('^\\d{4}-\\d{2}-\\d{2}$');
      for (const f of filtersOf(d, 'timeSeries').filter((f) => f.wholeNumber))
        expect(param(f.name).schema.pattern).toBe('^\\d+$');
      for (const status of ['200', '400', '404', '500']) {
        const content = op.responses[status].content['application/json'];
        expect(Object.keys(content.examples ?? {}).length, `${d.slug} ${status}`).toBeGreaterThan(0);
      }
      expect(op.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    const mcp = openapi.paths['/api/v1/mcp'].post;
    expect(mcp).toMatchObject({ operationId: 'sendMcpMessage', tags: ['MCP'] });
    expect(openapi.paths['/api/search'].get.parameters.map((p: any) => p.name)).toEqual(['query', 'limit']);
  });

  it('every documented 200 schema accepts a real response; those of the rate answers reject an extra field, the others let one through', async () => {
    const doc: any = await dereference(structuredClone(openapi));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const minusDays = (date: string, days: number) =>
      new Date(Date.parse(date) - days * 86_400_000).toISOString().slice(0, 10);
    // Each dataset's list (plain and as its example request), one entity, and its time series three ways.
    const real: [string, string][] = [
      ...DATASETS.flatMap((d): [string, string][] => {
        const { list: all, detail, timeSeries } = endpointsOf(d);
        const newest = newestDates()[d.slug];
        return [
          [all.path, all.path],
          [all.path, exampleListRequest(d)],
          [detail.path, `${all.path}/${d.exampleEntityId}`],
          [timeSeries.path, `${timeSeries.path}?startDate=${minusDays(newest, 4)}&endDate=${newest}`],
          [timeSeries.path, timeSeries.path],
          [timeSeries.path, `${timeSeries.path}?date=${newest}`],
        ];
      }),
      ['/api/v1/health', '/api/v1/health'],
      ['/api/search', '/api/search?query=termInMonths'],
    ];
    for (const [path, request] of real) {
      const schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
      const check = ajv.compile(schema);
      const body = await (await get(request)).json();
      expect(check(body), `${request}: ${ajv.errorsText(check.errors)}`).toBe(true);
      // Health and search are open: a release may add a field (/docs/stability#where-new-fields-may-appear).
      const closed = !['/api/v1/health', '/api/search'].includes(path);
      expect(check({ ...body, extra: 1 }), `${request} with an extra top-level field`).toBe(!closed);
      const nested = structuredClone(body);
      const first =
        nested.data?.[0] ??
        (nested.results ?? [])[0] ??
        (Object.values(nested.timeSeries ?? {})[0] as any)?.data?.[0] ??
        nested.datasets?.[A.slug];
      if (first) {
        first.extra = 1;
        expect(check(nested), `${request} with an extra nested field`).toBe(!closed);
      }
    }
    // Every example in the document validates against the schema of its own response.
    let examples = 0;
    for (const item of Object.values(doc.paths) as any[]) {
      for (const op of Object.values(item) as any[]) {
        for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
          const media = response.content?.['application/json'];
          if (!media?.examples) continue;
          const check = ajv.compile(media.schema);
          for (const [name, example] of Object.entries(media.examples) as [string, any][]) {
            examples++;
            expect(check(example.value), `${op.operationId} ${status} ${name}: ${ajv.errorsText(check.errors)}`).toBe(
              true,
            );
          }
        }
      }
    }
    expect(examples).toBeGreaterThanOrEqual(60);
  });
});

describe('docs search', () => {
  it.each(filtersAt('timeSeries').map(({ dataset, filter }) => [filter.name, dataset, filter.name] as const))(
    'finds the time-series section of the dataset that takes %s',
    async (_, dataset, name) => {
      const response = await get(`/api/search?query=${name}`);
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.query).toBe(name);
      expect(body.results.map((r: any) => r.url)).toContain(`/docs/reference/${dataset.slug}#time-series`);
      for (const result of body.results) {
        expect(Object.keys(result)).toEqual(['title', 'url', 'section', 'snippet', 'score']);
        expect((await get(result.url.split('#')[0])).status).toBe(200);
      }
      const query = encodeURIComponent(`${dataset.label} time series ${name}`);
      const top = await (await get(`/api/search?query=${query}&limit=1`)).json();
      expect(top.results).toHaveLength(1);
      expect(top.results[0].url).toBe(`/docs/reference/${dataset.slug}#time-series`);
    },
  );

  it.each([
    '/api/search?query=',
    '/api/search?query=%20%20',
    '/api/search',
    '/api/search?query=x&limit=0',
    '/api/search?query=x&limit=ten',
    '/api/search?query=x&page=2',
  ])('%s is a 400 invalid_request', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 400, error: 'invalid_request' });
  });
});

describe('security', () => {
  it('every kind of response carries the security headers', async () => {
    for (const path of [
      '/',
      '/docs',
      '/docs/errors.md',
      '/openapi',
      '/openapi/json',
      '/llms.txt',
      ...DATASETS.map(list),
      '/api/v1/nothing',
      '/api/search?query=x',
      '/api/v1/mcp',
      '/favicon.svg',
    ]) {
      const response = await get(path);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect(response.headers.get(name), `${name} on ${path}`).toBe(value);
    }
    // An MCP answer, plain and brotli-coded, is written whole by the MCP endpoint's own listener.
    for (const coding of ['identity', 'br']) {
      const init = modern('tools/call', { name: toolNamesOf(B).list, arguments: {} });
      const response = await fetch(`${site.url}${MCP_PATH}`, {
        ...init,
        headers: { ...init.headers, 'accept-encoding': coding },
      });
      expect(response.status).toBe(200);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect(response.headers.get(name), `${name} on an MCP answer (${coding})`).toBe(value);
    }
  });

  it('vercel.json sends the same headers on Vercel', async () => {
    const vercel = JSON.parse(await readFile(resolve(ROOT, 'vercel.json'), 'utf8'));
    const all = vercel.headers.find((h: { source: string }) => h.source === '/(.*)');
    expect(
      Object.fromEntries(all.headers.map((h: { key: string; value: string }) => [h.key.toLowerCase(), h.value])),
    ).toEqual(SECURITY_HEADERS);
  });

  it('no secret from the build environment reaches the built files', async () => {
    const { readdir: list } = await import('node:fs/promises');
    const files = async (dir: string): Promise<string[]> =>
      (await list(dir, { withFileTypes: true, recursive: true }))
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name));
    const built = [...(await files(site.buildDir)), ...(await files(site.generatedDir))];
    expect(built.length).toBeGreaterThan(50);
    for (const file of built) expect((await readFile(file)).includes(CANARY), file).toBe(false);
  });
});

describe('static files', () => {
  it('the interactive reference loads as much JavaScript as /openapi and the AI page say', async () => {
    const weight = await scriptWeight(join(site.buildDir, 'client'), 'openapi/interactive');
    expect(weight.files).toBeGreaterThan(1);
    const words = scriptWeightWords(weight);
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    expect(flat(await (await get('/openapi')).text())).toContain(`(it loads ${words}, at once)`);
    expect(flat(pages.find((p) => p.url === '/docs/ai')!.markdown)).toContain(`"try it" (${words}, loaded at once)`);
  });

  it('npm start sends every feed, CSV, text and Markdown file with its charset, as vercel.json does on Vercel', async () => {
    const files = (await readdir(join(site.buildDir, 'client'), { recursive: true }))
      .filter((f) => /\.(atom|csv|txt|md)$/.test(f))
      .map((f) => `/${f}`);
    const expected: Record<string, string> = {
      atom: 'application/atom+xml; charset=utf-8',
      csv: 'text/csv; charset=utf-8',
      txt: 'text/plain; charset=utf-8',
      md: 'text/markdown; charset=utf-8',
    };
    const count = (ext: string) => files.filter((f) => f.endsWith(`.${ext}`)).length;
    // The all-datasets feed, one per dataset and one per institution or issuer.
    expect(count('atom')).toBeGreaterThan(50);
    expect(count('csv')).toBeGreaterThan(4);
    expect(files).toContain('/llms.txt');
    expect(files).toContain('/rates/changes.atom');
    for (const file of files) {
      const ext = file.slice(file.lastIndexOf('.') + 1);
      // Plain and compressed: the type is the same whatever the coding.
      for (const coding of ['identity', 'br']) {
        const response = await get(file, { headers: { 'accept-encoding': coding } });
        expect(response.status, file).toBe(200);
        expect(response.headers.get('content-type'), `${file} (${coding})`).toBe(expected[ext]);
        await response.arrayBuffer();
      }
    }
    const head = await get('/rates/changes.atom', { method: 'HEAD' });
    expect(head.headers.get('content-type')).toBe(expected.atom);
    // The feeds' text is UTF-8 (arrows and dashes among it), which is what the charset says.
    expect(await (await get('/rates/changes.atom')).text()).toContain('→');
    // A feed that does not exist is the site's 404 page, as HTML.
    const missing = await get('/rates/no-such-feed.atom');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // vercel.json gives Vercel's CDN the same types.
    const vercel = JSON.parse(await readFile(resolve(ROOT, 'vercel.json'), 'utf8'));
    const typeFor = (source: string) =>
      vercel.headers
        .find((h: { source: string }) => h.source === source)
        ?.headers.find((h: { key: string }) => h.key.toLowerCase() === 'content-type')?.value;
    expect(typeFor('/rates/(.*)\\.atom')).toBe(expected.atom);
    expect(typeFor('/rates/:dataset/:file.csv')).toBe(expected.csv);
  }, 60_000);
});

describe('the lenders page', () => {
  it('/rates/lenders has a row for every institution and issuer the API lists, each dataset link an explorer page that exists', async () => {
    const response = await get('/rates/lenders');
    expect(response.status).toBe(200);
    const html = await response.text();
    const { data } = await (await get('/api/v1/institutions')).json();
    const rows = [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]);
    expect(rows.sort()).toEqual(data.map((i: { id: string }) => i.id).sort());
    const links = [...html.matchAll(/<a href="([^"]+)" data-dataset=/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    for (const href of new Set(links)) expect((await get(href, { method: 'HEAD' })).status, href).toBe(200);
    expect(html).toContain('href="/rates/lenders" aria-current="page"');
    // The one website the links file records: linked in its row, served by the registry; no other row has one.
    const websites = [
      ...html.matchAll(
        /<tr data-id="([^"]+)"[^>]*>(?:(?!<\/tr>)[\s\S])*?<a href="([^"]+)" rel="nofollow noopener" data-website>/g,
      ),
    ];
    expect(websites.map((m) => [m[1], m[2]])).toEqual([[LINKED.id, LINKED.website]]);
    expect(data.find((i: { id: string }) => i.id === LINKED.id).website).toBe(LINKED.website);
    expect(data.filter((i: { website: string | null }) => i.website !== null)).toHaveLength(1);
    expect(html).toContain('1 is recorded.');
  }, 60_000);
});

describe('for agents: the API catalog and Markdown docs', () => {
  const CATALOG = '/.well-known/api-catalog';
  const LINKSET = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
  const LINK = '</.well-known/api-catalog>; rel="api-catalog"';

  it('/.well-known/api-catalog is an RFC 9727 linkset of the REST API and the MCP server, with absolute links that answer', async () => {
    const response = await get(CATALOG);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(LINKSET);
    expect(response.headers.get('link')).toBe(LINK);
    const { linkset } = await response.json();
    const context = (anchor: string) => linkset.find((c: { anchor: string }) => c.anchor === `${site.url}${anchor}`);
    const hrefs = (anchor: string, rel: string) => context(anchor)[rel].map((t: { href: string }) => t.href);
    expect(hrefs(CATALOG, 'item')).toEqual([`${site.url}/api/v1`, `${site.url}${MCP_PATH}`]);
    expect(hrefs('/api/v1', 'service-desc')).toEqual([`${site.url}/openapi/json`]);
    expect(hrefs('/api/v1', 'service-doc')).toEqual([`${site.url}/docs`, `${site.url}/llms.txt`]);
    expect(hrefs('/api/v1', 'status')).toEqual([`${site.url}/api/v1/health`]);
    expect(hrefs(MCP_PATH, 'service-doc')).toEqual([`${site.url}/docs/ai`, `${site.url}/docs/ai.md`]);
    expect(hrefs(MCP_PATH, 'status')).toEqual([`${site.url}/api/v1/health`]);
    // RFC 9264 JSON: every link target object has an absolute href; each one but the APIs' own answers a GET.
    const targets = linkset.flatMap((c: Record<string, unknown>) =>
      Object.entries(c).flatMap(([rel, value]) => (rel === 'anchor' ? [] : (value as { href: string }[]))),
    );
    expect(targets.length).toBe(9);
    for (const { href, type } of targets) {
      expect(href.startsWith(`${site.url}/`), href).toBe(true);
      if (href === `${site.url}/api/v1` || href === `${site.url}${MCP_PATH}`) continue;
      const target = await fetch(href);
      expect(target.status, href).toBe(200);
      expect(target.headers.get('content-type')?.split(';')[0], href).toBe(type);
    }
    // HEAD answers the headers (RFC 9727 asks for the Link there), and the home page links the catalog.
    const head = await get(CATALOG, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(LINKSET);
    expect(head.headers.get('link')).toBe(LINK);
    expect((await get('/')).headers.get('link')).toBe(LINK);
    // vercel.json gives Vercel's CDN the same headers for the file and the home page.
    const vercel = JSON.parse(await readFile(resolve(ROOT, 'vercel.json'), 'utf8'));
    const headersFor = (source: string) =>
      Object.fromEntries(
        vercel.headers
          .find((h: { source: string }) => h.source === source)
          .headers.map((h: { key: string; value: string }) => [h.key.toLowerCase(), h.value]),
      );
    expect(headersFor(CATALOG)).toEqual({ 'content-type': LINKSET, link: LINK });
    expect(headersFor('/')).toEqual({ link: LINK });
  });

  it('a docs page asked for with Accept: text/markdown answers its Markdown; a browser still gets HTML; both vary with Accept', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const page of pages) {
      const md = await get(page.url, { headers: { accept: 'text/markdown' } });
      expect(md.status, page.url).toBe(200);
      expect(md.headers.get('content-type'), page.url).toBe('text/markdown; charset=utf-8');
      expect(md.headers.get('vary'), page.url).toMatch(/\bAccept\b/);
      expect(await md.text(), page.url).toBe(page.markdown);
      const html = await get(page.url, { headers: { accept: browser } });
      expect(html.headers.get('content-type'), page.url).toBe('text/html; charset=utf-8');
      expect(html.headers.get('vary'), page.url).toMatch(/\bAccept\b/);
      expect(await html.text()).toContain(`<title>${page.title} · NZ Rates API docs</title>`);
    }
    // By q-value, then by the order named; the query and a trailing slash are kept to the same page.
    const typeFor = async (path: string, accept: string, method = 'GET') =>
      (await get(path, { method, headers: { accept } })).headers.get('content-type');
    expect(await typeFor('/docs/quickstart', 'text/html;q=0.5, text/markdown')).toMatch(/^text\/markdown/);
    expect(await typeFor('/docs/quickstart', 'text/markdown;q=0.5, text/html')).toMatch(/^text\/html/);
    expect(await typeFor('/docs/quickstart', 'text/markdown, text/html')).toMatch(/^text\/markdown/);
    expect(await typeFor('/docs/quickstart', 'text/markdown, */*;q=0.1')).toMatch(/^text\/markdown/);
    expect(await typeFor('/docs/quickstart', '*/*')).toMatch(/^text\/html/);
    expect(await typeFor('/docs/quickstart/?x=1', 'text/markdown')).toMatch(/^text\/markdown/);
    expect(await typeFor('/docs/quickstart', 'text/markdown', 'HEAD')).toBe('text/markdown; charset=utf-8');
    // A page that does not exist is the 404 page whatever is asked for; a file under /docs is itself.
    const missing = await get('/docs/no-such-page', { headers: { accept: 'text/markdown' } });
    expect(missing.status).toBe(404);
    expect(await typeFor('/docs/changelog.atom', 'text/markdown')).toMatch(/^application\/atom\+xml/);
  });
});

describe('the Node server start', () => {
  it('reads the API bundle from the compile cache the build wrote, and the bundle loads no package a start does not need', async () => {
    const api = join(site.buildDir, 'api');
    const { readdir: list } = await import('node:fs/promises');
    const modules = (await list(api)).filter((name) => name.endsWith('.mjs'));
    const sources = await Promise.all(modules.map((name) => readFile(join(api, name), 'utf8')));
    const bare = (pattern: RegExp) =>
      new Set(
        sources
          .flatMap((source) => [...source.matchAll(pattern)].map((m) => m[1]!))
          .filter((s) => !/^(node:|\.)/.test(s)),
      );
    // Static imports resolve at every start; only the optional packages are imported, on demand.
    expect([...bare(/^import [^;]*?from "([^"]+)";/gm)]).toEqual([]);
    expect([...bare(/\bimport\("([^"]+)"\)/g)].sort()).toEqual(['@vercel/blob', 'compression']);

    const port = await freePort();
    const server = await startServer(process.execPath, ['scripts/serve.mjs'], {
      port,
      env: { ...process.env, BUILD_DIR: site.buildDir, PORT: String(port), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
      ready: answers(endpointsOf(A).list.path, 200),
      pollMs: 20,
    });
    try {
      // Node's own account of each module it compiled: read from the cache, or compiled afresh.
      const verdicts = new Map(
        [...server.output().matchAll(/V8 code cache for ESM \S+\/api\/(\S+\.mjs) was (.+?),/g)].map((m) => [
          m[1]!,
          m[2]!,
        ]),
      );
      expect(verdicts.get('node-entry.mjs')).toBe('accepted');
      // Every chunk the entry loads at start came from the cache too.
      const entry = sources[modules.indexOf('node-entry.mjs')]!;
      const chunks = [...entry.matchAll(/^import [^;]*?from "\.\/([^"]+)";/gm)].map((m) => m[1]!);
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) expect(verdicts.get(chunk), chunk).toBe('accepted');
      for (const [name, verdict] of verdicts) expect(verdict, name).toBe('accepted');
    } finally {
      await server.stop();
    }
  });
});

describe('in headless Chromium', () => {
  const browser = chromiumForTests();

  async function visit(path: string, file: string, width = 1280) {
    const { page, errors, shot } = await open(browser(), `${site.url}${path}`, width);
    return { page, errors, shot: () => shot(file) };
  }

  it('/openapi is the reference of every operation, rendered without JavaScript (its one script adds Copy buttons), at most 300 KB over the wire, with no console errors', async () => {
    // Every response the first view loads, by its encoded size on the wire (headers and body, as
    // npm start sends them to Chromium: compressed), before and after anything runs.
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('requestfailed', (r) => errors.push(`${r.url()} failed: ${r.failure()?.errorText}`));
    const sizes: Promise<{ url: string; status: number; bytes: number }>[] = [];
    page.on('requestfinished', (request) =>
      sizes.push(
        Promise.all([request.sizes(), request.response()]).then(([size, response]) => ({
          url: request.url(),
          status: response?.status() ?? 0,
          bytes: size.responseHeadersSize + size.responseBodySize,
        })),
      ),
    );
    await page.goto(`${site.url}/openapi`, { waitUntil: 'networkidle' });
    const loaded = await Promise.all(sizes);
    const weight = loaded.reduce((sum, r) => sum + r.bytes, 0);
    expect(loaded.map((r) => r.url)).toContain(`${site.url}/openapi`);
    for (const r of loaded) expect(r.status, r.url).toBe(200);
    expect(weight, JSON.stringify(loaded, null, 1)).toBeLessThanOrEqual(300_000);
    // One script, the site's copy buttons (src/browser/copy-code.ts), and nothing inline: what
    // follows is the page as built, the same with JavaScript off but for those buttons.
    const scripts = await page
      .locator('script')
      .evaluateAll((nodes) =>
        nodes.map((s) => ({ src: s.getAttribute('src'), inline: s.textContent!.trim().length > 0 })),
      );
    expect(scripts).toEqual([{ src: expect.stringMatching(/^\/_astro\/[\w.-]+\.js$/), inline: false }]);
    const copyScript = loaded.find((r) => r.url === `${site.url}${scripts[0]!.src}`);
    expect(copyScript?.bytes, 'the copy script').toBeLessThan(5_000);

    // Every operation of the document, in its own section: method, path, operationId, summary,
    // each parameter, each response status, and each example as the document has it.
    const operations = Object.entries(openapi.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(19);
    for (const { path, method, op } of operations) {
      const section = page.locator(`section.operation[id="${op.operationId}"]`);
      expect(await section.count(), op.operationId).toBe(1);
      const endpoint = (await section.locator('.endpoint').textContent())!.replace(/\s+/g, ' ');
      expect(endpoint, op.operationId).toContain(`${method.toUpperCase()} ${path}`);
      expect(endpoint, op.operationId).toContain(op.operationId);
      expect(await section.locator('h3').textContent(), op.operationId).toContain(op.summary);
      const text = (await section.textContent())!;
      for (const parameter of op.parameters ?? [])
        expect(text, `${op.operationId} ${parameter.name}`).toContain(parameter.name);
      const statuses = await section.locator('table.responses tbody tr td:first-child').allTextContents();
      expect(statuses, op.operationId).toEqual(Object.keys(op.responses));
      // Each response names the headers the document gives it, each linked to what it says.
      const headerCells = await section.locator('table.responses tbody tr td.headers').allTextContents();
      const shared = (r: any) => (r.$ref ? openapi.components.responses[r.$ref.split('/').at(-1)] : r);
      expect(headerCells, op.operationId).toEqual(
        Object.values(op.responses).map((r: any) => Object.keys(shared(r).headers ?? {}).join(', ') || 'none'),
      );
      const examples = Object.values(op.responses).flatMap((r: any) =>
        Object.values(r.content ?? {}).flatMap((c: any) => Object.values(c.examples ?? {}).map((e: any) => e.value)),
      );
      const shown = await section.locator('details.example pre').allTextContents();
      expect(
        shown.map((json) => JSON.parse(json)),
        op.operationId,
      ).toEqual(examples);
    }
    // Grouped by the document's tags, and every component schema has its table.
    const tags = await page.locator('section.reference-tag > h2').allTextContents();
    expect(tags.map((t) => t.replace(/^#/, ''))).toEqual(openapi.tags.map((t: any) => t.name));
    for (const [name, schema] of Object.entries(openapi.components.schemas) as [string, any][]) {
      expect(await page.locator(`section.schema[id="schema-${name}"] table tbody tr`).count(), name).toBeGreaterThan(0);
      // Each says whether a later release may add fields, as the document marks it.
      const policy = page.locator(`section.schema[id="schema-${name}"] .fields-policy`);
      if (schema.additionalProperties === undefined) expect(await policy.count(), name).toBe(0);
      else
        expect(await policy.getAttribute('data-fields'), name).toBe(
          schema.additionalProperties === false ? 'closed' : 'open',
        );
    }
    // Every shared header has its row, under the names the responses send it by.
    for (const key of Object.keys(openapi.components.headers))
      expect(await page.locator(`tr[id="header-${key}"] td`).count(), key).toBe(3);

    // Every in-page link has its target; every other link answers.
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
    for (const href of new Set(hrefs.filter((h) => h.startsWith('#'))))
      expect(await page.locator(`[id="${href.slice(1)}"]`).count(), href).toBe(1);
    for (const href of new Set(hrefs.filter((h) => h.startsWith('/'))))
      expect((await get(href.split('#')[0]!)).status, href).toBe(200);
    expect(hrefs).toContain('/openapi/interactive');
    expect(hrefs).toContain('/openapi/json');

    // The contents take the reader to an operation, and an example opens.
    await page.locator('nav[aria-label="API reference"] a[href="#sendMcpMessage"]').click();
    expect(new URL(page.url()).hash).toBe('#sendMcpMessage');
    const top = await page.locator('#sendMcpMessage h3').evaluate((h) => h.getBoundingClientRect().top);
    expect(top).toBeGreaterThan(53); // below the sticky site header
    expect(top).toBeLessThan(900);
    const example = page.locator(`[id="${openapi.paths[list(A)].get.operationId}"] details.example`).first();
    expect(await example.locator('pre').isVisible()).toBe(false);
    await example.locator('summary').click();
    expect(await example.locator('pre').isVisible()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'openapi.png') });
    expect(errors).toEqual([]);
    await page.close();
    expect((await get('/openapi')).headers.get('x-request-id')).toBeNull();
  }, 60_000);

  it('/openapi reads the same with JavaScript off, on a phone too, with no horizontal scroll', async () => {
    const page = await browser().newPage({ javaScriptEnabled: false, viewport: { width: 390, height: 900 } });
    await page.goto(`${site.url}/openapi`);
    for (const item of Object.values(openapi.paths) as any[])
      for (const op of Object.values(item) as any[])
        expect(await page.locator(`section.operation[id="${op.operationId}"] h3`).isVisible(), op.operationId).toBe(
          true,
        );
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, 'horizontal scroll at 390px').toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'openapi-phone.png') });
    await page.close();
  }, 30_000);

  it('/openapi/interactive loads the interactive reference (Scalar), whose "try it" calls this origin, with no console errors', async () => {
    const { page, errors, shot } = await visit('/openapi/interactive', 'openapi-interactive.png');
    const summary = (path: string) => openapi.paths[path].get.summary as string;
    const { list: all, detail, timeSeries } = endpointsOf(A);
    await page.getByText(summary(all.path)).first().waitFor({ timeout: 20_000 });
    for (const title of [summary(detail.path), summary(timeSeries.path)]) {
      expect(await page.getByText(title).count(), title).toBeGreaterThan(0);
    }
    // The other tags start collapsed: each is in the sidebar, and opening one shows its operations.
    const reference = page.locator('#api-reference');
    for (const tag of [...DATASETS.slice(1).map((d) => d.title), 'Service', 'MCP', 'Documentation']) {
      expect(await reference.getByText(tag, { exact: true }).count(), tag).toBeGreaterThan(0);
    }
    await reference.getByText('MCP', { exact: true }).first().click();
    await page.getByText('Send a Model Context Protocol message').first().waitFor({ timeout: 10_000 });
    // "Try it": the bundled client sends the request to this same origin and gets the data.
    await reference.getByText(summary(all.path)).first().click();
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    const answered = page.waitForResponse(
      (r) => r.url() === `${site.url}${all.path}` && r.request().method() === 'GET',
    );
    await page.getByRole('button', { name: /^Send/ }).first().click();
    expect((await answered).status()).toBe(200);
    await shot();
    expect(errors).toEqual([]);
    expect((await get('/openapi/interactive')).headers.get('x-request-id')).toBeNull();
  }, 60_000);

  it('a docs page renders with its navigation and live search', async () => {
    const { page, errors, shot } = await visit(`/docs/reference/${A.slug}`, 'docs.png');
    expect(await page.locator('h1').textContent()).toContain(A.title);
    expect(await page.locator('nav[aria-label="Documentation"] a[aria-current="page"]').textContent()).toBe(A.title);
    await page.fill('#search', 'stale');
    await page.locator('#search-results li a').first().waitFor({ timeout: 10_000 });
    await shot();
    expect(errors).toEqual([]);
  }, 60_000);

  it('the landing page renders, on a phone too', async () => {
    for (const [width, file] of [
      [1280, 'landing.png'],
      [390, 'landing-phone.png'],
    ] as const) {
      const { page, errors, shot } = await visit('/', file, width);
      expect(await page.locator('h1').textContent()).toBe('New Zealand lending rates, as an API');
      expect(await page.locator('pre code').first().textContent()).toContain(exampleListRequest(A));
      for (const href of ['/docs/quickstart', '/openapi', '/docs/ai'])
        expect(await page.locator(`a[href="${href}"]`).count(), href).toBeGreaterThan(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `horizontal scroll at ${width}px`).toBeLessThanOrEqual(0);
      await shot();
      expect(errors).toEqual([]);
    }
  }, 60_000);
});
