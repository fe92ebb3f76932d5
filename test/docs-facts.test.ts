/**
 * What the docs, the OpenAPI examples and the README say about the service is what it answers
 * (issue 28, item 6): each fact below is measured here from the real core over the test history,
 * independently of the build code that writes it, and compared with the text the build makes.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import * as cheerio from 'cheerio';
import { z } from 'zod';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { STATUS_CACHE_MS } from '../src/status/health.ts';
import { buildSiteData, type SiteData } from '../src/build/site-data.ts';
import { datasetCsv } from '../src/changes/csv.ts';
import { changesEndpointOf, RESERVED_SLUGS } from '../src/changes/endpoint.ts';
import { atomFeed } from '../src/changes/feeds.ts';
import { changeDays, entitiesEver, type SnapshotData } from '../src/changes/model.ts';
import { DEFAULT_FETCH, fetchPage } from '../src/collect/fetch-page.ts';
import { rateValues } from '../src/collect/guards.ts';
import { DATASETS, type Dataset, datasetsInWords, filtersOf } from '../src/datasets.ts';
import { CHECKED_HOURLY, COLLECTION_WORDS } from '../src/lib/collection-words.ts';
import { cacheSeconds, durationWords } from '../src/docs/pages.ts';
import { createSearchCore } from '../src/docs/search.ts';
import { EXAMPLE_CUT } from '../src/examples.ts';
import { staticReference } from '../src/openapi/static-reference.ts';
import { CODING_THRESHOLD } from '../src/http/coding.ts';
import { KEPT_FOR_MS } from '../src/http/kept-answers.ts';
import { withRequestIds } from '../src/http/request-id.ts';
import { DOCS_PAGE_MATCHERS } from '../src/http/docs-negotiation.ts';
import { countWord, listInWords, withArticle } from '../src/lib/words.ts';
import { DATASET_ENDPOINT_WORDS } from '../src/docs/surface.ts';
import { size } from '../src/mcp/sizes.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { VALUE_BOUNDS } from '../src/schemas/rates.ts';
import { PARTS_KEPT } from '../src/store/history-archive.ts';
import { MIDDLEWARE_MATCHER } from '../src/server/vercel-middleware.ts';
import { ServedStore } from '../src/store/served-store.ts';
import { endpointsOf, HEALTH_PATH } from '../src/endpoints.ts';
import { LIMITS, SUPPORTED_VERSIONS } from '../src/mcp/protocol.ts';
import { REST_TOOL_KINDS, restToolsOf } from '../src/mcp/rest-tools.ts';
import { OWN_TOOLS, TOOLS } from '../src/mcp/tool-table.ts';
import { CollectionHealth, Health } from '../src/schemas/health.ts';
import { createService } from '../src/service.ts';
import { alertsEndpointOf, alertsExampleRequests, lowestChangesAtom } from '../src/api/alerts.ts';
import { breakEvenEndpointOf } from '../src/api/break-even.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { bestRatesOf } from '../src/explorer/best.ts';
import { ALERTS_FEED_FILE, FEEDS_PREFIX, INSTITUTIONS_PATH, SERVICE_PATH, STATUS_PATH } from '../src/paths.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { compileSnapshotTree, type CompiledStore, newestOnly } from '../src/store/compile.ts';
import { historyFiles, servedStoreOf } from '../src/store/history-build.ts';
import { HISTORY_UNTIL, ROOT } from './support/constants.ts';
import { REPO_SNAPSHOTS } from './support/global-setup.ts';
import { historyDir, newestSnapshots, tempDir } from './support/history.ts';
import { MCP_PATH, type McpRequest, modern } from './support/mcp.ts';

const SITE = 'https://rates.example';
let data: SiteData;
let readme: string;
let openapi: any;
/** The core over the test history, as `npm start` on a fresh clone runs it (no collection recorded). */
let core: (target: string) => Promise<Response>;
/** The MCP endpoint of the same core. */
let mcpCore: (request: McpRequest) => Promise<Response>;
/** The service itself, docs search included, for requests other than a GET. */
let api: (request: Request) => Promise<Response>;
/** The same core coding its answers, as `npm start` does. */
let coded: (request: Request) => Promise<Response>;
let store: CompiledStore;

const page = (slug: string) => data.pages.find((p) => p.slug === slug)!.markdown;
/** An answer's JSON, and its size in bytes as sent. */
const read = async (response: Response) => {
  const text = await response.text();
  return { bytes: Buffer.byteLength(text), body: JSON.parse(text) };
};

beforeAll(async () => {
  data = await buildSiteData({ snapshotsDir: historyDir(), contentDir: join(ROOT, 'content/docs'), site: SITE });
  openapi = data.openapi;
  readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  store = await compileSnapshotTree(historyDir());
  const served = servedStoreOf(store, historyFiles(store));
  const deps = {
    loadStore: async () => served,
    status: new FileStatusStore(await tempDir('rates-status-')),
    siteUrl: SITE,
  };
  api = createService(deps, {
    search: createSearchCore(
      async () => data.searchIndex,
      SITE,
      () => {},
    ),
  });
  core = (target) => api(new Request(`${SITE}${target}`));
  mcpCore = (request) => api(new Request(`${SITE}${MCP_PATH}`, request));
  coded = createService(deps, { coding: true });
});

describe('OpenAPI examples', () => {
  it("every data and change-log operation's server_error example is its own request answered with an unreadable store", async () => {
    const broken = createService({
      loadStore: () => Promise.reject(new Error('unreadable')),
      status: new FileStatusStore(await tempDir('rates-status-')),
      log: () => {},
      siteUrl: SITE,
    });
    for (const dataset of DATASETS) {
      const paths = [...Object.values(endpointsOf(dataset)).map((e) => e.path), changesEndpointOf(dataset).path];
      for (const path of paths) {
        const examples = Object.values(openapi.paths[path].get.responses['500'].content['application/json'].examples);
        expect(examples.length, path).toBe(1);
        for (const { summary, value } of examples as { summary: string; value: any }[]) {
          const request = summary.replace(/^GET /, '');
          expect(request.startsWith(endpointsOf(dataset).list.path), `${path}: ${request}`).toBe(true);
          expect(value.message, path).toContain(dataset.label);
          const answer = await broken(new Request(`${SITE}${request}`));
          expect(answer.status).toBe(500);
          expect(value, path).toEqual(await answer.json());
        }
      }
    }
  });

  it("health's examples are the code's answers, collection.message included", async () => {
    const responses = openapi.paths[HEALTH_PATH].get.responses;
    const ok = (Object.values(responses['200'].content['application/json'].examples) as any[])[0].value;
    const real = await (await core(HEALTH_PATH)).json();
    expect({ ...ok, timestamp: undefined }).toEqual({ ...real, timestamp: undefined });
    expect(ok.collection.message).toEqual(expect.any(String));
    const error = (Object.values(responses['503'].content['application/json'].examples) as any[])[0].value;
    expect(error.status).toBe('error');
    expect(error.collection.message).toEqual(expect.any(String));
    for (const body of [ok, error]) expect(Health.safeParse(body).success).toBe(true);
  });

  it('lists every parameter an endpoint takes, and those it accepts and ignores', () => {
    for (const dataset of DATASETS) {
      for (const endpoint of Object.values(endpointsOf(dataset))) {
        const names = (openapi.paths[endpoint.path].get.parameters ?? []).map((p: any) => p.name);
        const expected = [
          ...(endpoint.pathParam ? [endpoint.pathParam] : []),
          ...Object.keys(endpoint.query.shape),
          ...endpoint.ignoredQuery,
        ];
        expect(names.sort(), endpoint.path).toEqual(expected.sort());
      }
    }
    expect(DATASETS.some((d) => endpointsOf(d).timeSeries.ignoredQuery.length > 0)).toBe(true);
  });

  it('the MCP operation states the number of tools there are', () => {
    expect(openapi.paths['/api/v1/mcp'].post.description).toContain(`${TOOLS.length} read-only tools`);
  });
});

describe('the AI page', () => {
  it('the tools table lists, per tool, every argument it takes and every one it accepts and ignores', () => {
    const rows = page('ai')
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    for (const tool of TOOLS) {
      const row = rows.find((r) => r.startsWith(`| \`${tool.name}\` |`));
      expect(row, tool.name).toBeDefined();
      const cell = row!.split(' | ').at(-1)!;
      for (const name of Object.keys(tool.input.shape)) expect(cell, tool.name).toContain(`\`${name}\``);
      for (const name of tool.ignored) expect(cell, tool.name).toContain(`\`${name}\` (accepted and ignored)`);
    }
    expect(TOOLS.some((t) => t.ignored.length > 0)).toBe(true);
  });

  it("the Sizes section's figures are the measured sizes of the real answers", async () => {
    const ai = page('ai');
    const sizes = ai.slice(ai.indexOf('### Sizes'), ai.indexOf('### Limits'));
    expect(sizes).not.toMatch(/\d\s*[KM]B\b/); // no hand-written figure in another unit
    const verdict = (bytes: number) => (bytes <= LIMITS.resultBytes ? 'fits' : `over ${size(LIMITS.resultBytes)}`);
    let largest = { bytes: 0, text: '' };
    let whole = { bytes: 0, text: '' };
    for (const dataset of DATASETS) {
      const { list, timeSeries } = endpointsOf(dataset);
      const { bytes: listBytes, body: listBody } = await read(await core(list.path));
      const dates: string[] = (await (await core(timeSeries.path)).json()).availableDates;
      const range = `startDate=${dates[0]}&endDate=${dates.at(-1)}`;
      const { bytes: historyBytes, body: series } = await read(await core(`${timeSeries.path}?${range}`));
      const names = new Map<string, string>();
      for (const snapshot of Object.values(series.timeSeries) as any[])
        for (const entity of snapshot.data) names.set(entity.id, entity.name);
      const one = await Promise.all(
        [...names].map(async ([id, name]) => ({
          id,
          name,
          bytes: (await read(await core(`${timeSeries.path}?${range}&${dataset.entity.param}=${id}`))).bytes,
        })),
      );
      const top = one.sort((a, b) => b.bytes - a.bytes)[0]!;
      const row = sizes.split('\n').find((line) => line.startsWith(`| ${dataset.title} |`));
      expect(row, dataset.title).toBeDefined();
      expect(row).toContain(`| ${size(listBytes)} (${listBody.data.length} ${dataset.entity.kind}s) |`);
      expect(row).toContain(
        `| ${size(historyBytes)} (${dates.length} snapshots, ${dates[0]} to ${dates.at(-1)}): ${verdict(historyBytes)} |`,
      );
      expect(row).toContain(`| ${top.name} (\`${top.id}\`), ${size(top.bytes)}: ${verdict(top.bytes)} |`);
      const changes = (await read(await core(`${changesEndpointOf(dataset).path}?since=${dates[0]}`))).bytes;
      expect(row).toContain(`| ${size(changes)}: ${verdict(changes)} |`);
      if (top.bytes > largest.bytes)
        largest = {
          bytes: top.bytes,
          text: `${top.name}'s ${dataset.title.toLowerCase()} (\`${top.id}\`, ${size(top.bytes)}`,
        };
      if (historyBytes > whole.bytes)
        whole = {
          bytes: historyBytes,
          text: `a whole ${dataset.title.toLowerCase()} time series (${size(historyBytes)})`,
        };
    }
    expect(sizes.replace(/\s+/g, ' ')).toContain(`the largest is ${largest.text}`);
    expect(page('limits')).toContain(`such as ${whole.text}`);
  });

  it('names the tools whose descriptions state their sizes, and those whose do not, as tools/list gives them', async () => {
    const response = await mcpCore(modern('tools/list'));
    const listed = (await response.json()).result.tools as { name: string; description: string }[];
    const words: Record<string, string> = {
      list: 'list',
      detail: 'detail',
      timeSeries: 'time-series',
      lowest: 'lowest-rates',
      changes: 'change-log',
      quote: 'quote-check',
    };
    const kinds = (sized: boolean) =>
      listInWords(
        REST_TOOL_KINDS.filter((kind) =>
          DATASETS.every((d) => {
            const name = restToolsOf(d, [kind])[0]!.name;
            return /\bSizes?: /.test(listed.find((t) => t.name === name)!.description) === sized;
          }),
        ).map((kind) => words[kind]!),
      );
    expect(kinds(true)).not.toBe('');
    // The tools of no dataset whose descriptions state a size (health, the status figures), named after the kinds.
    const twins = new Set(DATASETS.flatMap((d) => restToolsOf(d).map((t) => t.name)));
    const others = listed
      .filter((t) => !twins.has(t.name) && /\bSizes?: /.test(t.description))
      .map((t) => `\`${t.name}\``);
    const also = others.length ? `, as ${others.length === 1 ? 'does' : 'do'} ${listInWords(others)}` : '';
    expect(flat(page('ai'))).toContain(
      `The descriptions of the ${kinds(true)} tools state their sizes, measured from the data they serve${also}${kinds(false) ? `; those of the ${kinds(false)} tools state none` : ''}.`,
    );
  });

  it("each dataset tool's description states the sizes of the Sizes table's row, in its words", async () => {
    const ai = page('ai');
    const sizes = ai.slice(ai.indexOf('### Sizes'), ai.indexOf('### Limits'));
    const response = await mcpCore(modern('tools/list'));
    const described = new Map(
      (await response.json()).result.tools.map((t: { name: string; description: string }) => [t.name, t.description]),
    );
    for (const dataset of DATASETS) {
      const cells = sizes
        .split('\n')
        .find((line) => line.startsWith(`| ${dataset.title} |`))!
        .split(' | ')
        .map((cell) => cell.replace(/^\| /, ''));
      const [list, detail, series] = restToolsOf(dataset).map((t) => described.get(t.name) as string);
      expect(list).toContain(`Size: ${cells[1]}.`);
      expect(detail).toContain(`Size: ${cells[2]}.`);
      // "1.2 MiB (224 snapshots, 2024-02-22 to 2025-03-05): over 1 MiB": the count and dates the time series states.
      const [, count, dates] = /\((\d+) snapshots, (\S+ to \S+)\)/.exec(cells[3]!)!;
      expect(series).toContain(`there are ${count} snapshots (${dates})`);
      expect(series).toContain(`${SITE}/docs/ai#sizes`);
    }
  });

  it('says every deployment answers a docs page as Markdown by Accept: on Vercel the middleware runs on the docs pages', () => {
    expect(flat(page('ai'))).toContain(
      'Every deployment negotiates this way: a server started with `npm start` in its page server, Vercel in its routing middleware',
    );
    for (const matcher of DOCS_PAGE_MATCHERS) expect(MIDDLEWARE_MATCHER).toContain(matcher);
    // The changelog says so of the release that brought it.
    expect(flat(page('changelog'))).toContain(
      'answers its Markdown at its own address, with `Vary: Accept`: `npm start` in its page server, Vercel in its routing middleware',
    );
  });

  it('the Inspector commands run the Inspector whose CLI the suite tests', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    const version = pkg.devDependencies['@modelcontextprotocol/inspector-cli'];
    const texts = [...data.pages.map((p) => p.markdown), readme];
    const commands = texts.flatMap((t) => [...t.matchAll(/npx @modelcontextprotocol\/inspector\S*/g)].map((m) => m[0]));
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command).toBe(`npx @modelcontextprotocol/inspector@${version}`);
  });

  it('states the counts of tools and protocol versions the code has', () => {
    const ai = page('ai');
    expect(ai).toContain(`has ${countWord(TOOLS.length)} read-only tools`);
    expect(ai).toContain(`${countWord(REST_TOOL_KINDS.length)} per dataset`);
    expect(ai).toContain(`all ${countWord(SUPPORTED_VERSIONS.length)} versions`);
    expect(page('')).toContain(`call ${countWord(TOOLS.length)} read-only tools`);
    // Every tool that is no endpoint's twin is named where the page says what the twins are.
    for (const tool of OWN_TOOLS) expect(ai).toContain(`\`${tool.name}\``);
    if (OWN_TOOLS.length === 0) expect(ai).toMatch(/each\s+the twin of a REST endpoint\. A twin/);
    // The list grows only at its end, the tools before keeping their places: an additive change, as both pages say.
    expect(TOOLS.map((t) => t.name)).toEqual(
      [
        ...DATASETS.flatMap((d) => restToolsOf(d, ['list', 'detail', 'timeSeries'])),
        ...DATASETS.flatMap((d) => restToolsOf(d, ['lowest'])),
        ...DATASETS.flatMap((d) => restToolsOf(d, ['changes'])),
        ...DATASETS.flatMap((d) => restToolsOf(d, ['quote'])),
        ...OWN_TOOLS,
      ].map((t) => t.name),
    );
    expect(ai.replace(/\s+/g, ' ')).toContain(
      'a release may add tools, always after the ones before them, an additive change',
    );
    expect(page('stability').replace(/\s+/g, ' ')).toContain(
      'the tool list grows, the new tools after the ones before them',
    );
  });
});

describe('hand-written text', () => {
  /** The docs' Markdown sources (content/docs) and the README, as written. */
  let written: [name: string, text: string][];
  beforeAll(async () => {
    const dir = join(ROOT, 'content/docs');
    const names = (await readdir(dir)).filter((name) => name.endsWith('.md'));
    written = await Promise.all(
      names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as [string, string]),
    );
    written.push(['README.md', readme]);
  });

  it('the docs sources and the README write no count of tools, datasets, pages or protocol versions by hand', () => {
    const numbers = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|\\d+';
    const count = new RegExp(
      `\\b(${numbers})\\s+(read-only\\s+|lending\\s+|MCP\\s+|supported\\s+)?(tools|datasets|pages|protocol versions)\\b|\\ball (${numbers})(\\)|\\s+(versions|tools|datasets)\\b)`,
      'gi',
    );
    for (const [name, text] of written)
      expect(
        [...text.matchAll(count)].map((m) => m[0]),
        name,
      ).toEqual([]);
  });

  it("every id the docs and the README name is in the history's newest snapshots", async () => {
    const ids = new Set<string>();
    const walk = (value: unknown) => {
      if (Array.isArray(value)) for (const v of value) walk(v);
      else if (value && typeof value === 'object')
        for (const [key, child] of Object.entries(value)) {
          if (key === 'id' && typeof child === 'string') ids.add(child);
          else walk(child);
        }
    };
    for (const snapshot of Object.values(await newestSnapshots())) walk(snapshot.data);
    // A hypothetical slug the change-log page discusses, not an id it offers.
    const hypothetical = new Set(['institution:changes']);
    const prefixes = [...new Set(DATASETS.map((d) => d.entity.prefix)), 'product', 'plan', 'rate'].join('|');
    // Named in code (`institution:anz`) or as a JSON string in an example ("institution:anz").
    const named = new RegExp(`([\`"])((?:${prefixes}):[a-z0-9:-]+)\\1`, 'gi');
    let checked = 0;
    for (const [name, text] of written) {
      for (const [, , id] of text.matchAll(named)) {
        if (hypothetical.has(id!.toLowerCase())) continue;
        checked++;
        expect(ids.has(id!.toLowerCase()), `${name}: ${id}`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(5);
  });

  it("the README's health shape is the Health schema's", () => {
    type Schema = {
      type?: string;
      properties?: Record<string, Schema>;
      required?: string[];
      additionalProperties?: Schema;
    };
    const shape = (s: Schema, recordKey: string): string => {
      if (s.properties) {
        const keys = Object.entries(s.properties).map(([key, child]) => {
          const inner =
            child.properties || child.additionalProperties?.properties ? `: ${shape(child, recordKey)}` : '';
          return `${key}${s.required?.includes(key) ? '' : '?'}${inner}`;
        });
        return `{ ${keys.join(', ')} }`;
      }
      return `{ ${recordKey}: ${shape(s.additionalProperties!, recordKey)} }`;
    };
    const expected = shape(z.toJSONSchema(Health, { io: 'output' }) as Schema, '"<dataset>"');
    expect(readme).toContain(`- Health: \`${expected}\``);
  });

  it("the concepts page's collection row names every field of health's collection", () => {
    const row = page('concepts')
      .split('\n')
      .find((line) => line.startsWith('| `collection` |'));
    for (const key of Object.keys(CollectionHealth.shape)) expect(row, key).toContain(`\`${key}\``);
  });

  it("the README's sample collector output has one line per dataset its command names, with the counts of the newest snapshots", async () => {
    const newest = await newestSnapshots();
    const sample = readme.slice(readme.indexOf('Output (its indented progress lines left out)'));
    const block = sample.slice(sample.indexOf('```\n') + 4, sample.indexOf('\n```', sample.indexOf('```\n') + 4));
    const lines = block.split('\n');
    // The sample names the datasets it collects, so a new dataset needs no new line here.
    const named = /`npm run collect -- --dataset ([\w,-]+)`/.exec(sample)?.[1]?.split(',') ?? [];
    const collected = DATASETS.filter((d) => named.includes(d.slug));
    expect(collected.map((d) => d.slug)).toEqual(named);
    for (const dataset of DATASETS.filter((d) => !collected.includes(d)))
      expect(
        lines.some((l) => l.startsWith(`${dataset.slug}: `)),
        dataset.slug,
      ).toBe(false);
    const outcomes = { changed: 0, unchanged: 0, failed: 0 };
    for (const dataset of collected) {
      const line = lines.find((l) => l.startsWith(`${dataset.slug}: `));
      expect(line, dataset.slug).toBeDefined();
      if (line!.includes(': FAILED: ')) {
        outcomes.failed++;
        continue;
      }
      outcomes[line!.includes(': unchanged ') ? 'unchanged' : 'changed']++;
      const counts = /\((\d+) (\w+)s, (\d+) rates\)/.exec(line!);
      const snapshot = newest[dataset.slug];
      expect(counts?.slice(1), dataset.slug).toEqual([
        String(snapshot.data.length),
        dataset.entity.kind,
        String(rateValues(snapshot.data).length),
      ]);
    }
    expect(lines.at(-1)).toBe(
      `collect: ${outcomes.changed} changed, ${outcomes.unchanged} unchanged, ${outcomes.failed} failed`,
    );
  });
});

/** Markdown with its line breaks as spaces, so a test can find a sentence wherever it wraps. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

/** A dataset's test history as the change log and feeds read it. */
async function snapshotsOf(dataset: Dataset): Promise<SnapshotData[]> {
  const dir = join(historyDir(), dataset.slug);
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (name) => {
      const file = JSON.parse(await readFile(join(dir, name), 'utf8'));
      return { date: name.slice(0, 10), lastUpdated: file.lastUpdated, data: file.data };
    }),
  );
}

const lastDates = async (dataset: Dataset) =>
  (await (await core(endpointsOf(dataset).timeSeries.path)).json()).availableDates as string[];

describe('the caching page', () => {
  const mortgages = DATASETS[0];
  const get = (target: string, acceptEncoding: string) =>
    coded(new Request(`${SITE}${target}`, { headers: { 'accept-encoding': acceptEncoding } }));

  it('states the caching headers a data answer carries, and how long each cache keeps it', async () => {
    const text = page('caching');
    const headers = (await core(endpointsOf(mortgages).list.path)).headers;
    const cacheControl = headers.get('cache-control')!;
    const keeps = (directive: string) => durationWords(cacheSeconds(cacheControl, directive));
    expect(text).toContain(
      `| \`Cache-Control\` | \`${cacheControl}\` | browsers (${keeps('max-age')}), and shared caches that are not Vercel's (${keeps('s-maxage')}) |`,
    );
    expect(text).toContain(`| \`Vercel-CDN-Cache-Control\` | \`${headers.get('vercel-cdn-cache-control')}\` |`);
    expect(flat(text)).toContain(
      `**Browsers** keep an answer for ${keeps('max-age')}, and may use it for ${keeps('stale-while-revalidate')} more`,
    );
    expect(flat(text)).toContain(`**Other shared caches** keep it for ${keeps('s-maxage')}, then revalidate`);
    expect(flat(text)).toContain(`at most once every ${durationWords(STATUS_CACHE_MS / 1000)} per process`);
  });

  it("says health's and the status figures' answers are reused for their second, one timestamp for every request in it", async () => {
    let clock = 0;
    let now = Date.parse('2025-03-05T12:00:00.000Z');
    const service = createService({
      loadStore: async () => servedStoreOf(store),
      status: new FileStatusStore(await tempDir('rates-status-')),
      siteUrl: SITE,
      clock: () => clock,
      // Every reading of the time is later than the one before: only a kept answer repeats one.
      now: () => new Date((now += 7)),
    });
    for (const path of [HEALTH_PATH, STATUS_PATH]) {
      const stamp = async () => (await (await service(new Request(`${SITE}${path}`))).json()).timestamp;
      const first = await stamp();
      clock += KEPT_FOR_MS - 1;
      expect(await stamp(), `${path} within its second`).toBe(first);
      clock += 1;
      expect(await stamp(), `${path} after its second`).not.toBe(first);
    }
    expect(flat(page('caching'))).toContain(
      `Each of their answers is then reused for ${durationWords(KEPT_FOR_MS / 1000)}, as every whole answer is: requests within that second get the same answer and the same \`timestamp\`, which says when it was worked out.`,
    );
  });

  it('says what a cache may keep carries no x-request-id: the answer before the stamp, which every caller gets on its way out', async () => {
    const list = endpointsOf(mortgages).list.path;
    const unstamped = await core(list);
    expect(unstamped.headers.get('x-request-id')).toBeNull();
    const stamped = await withRequestIds(api)(new Request(`${SITE}${list}`));
    expect(stamped.headers.get('x-request-id')).toMatch(/\S/);
    for (const answer of [unstamped, stamped]) expect(answer.headers.get('vary') ?? '').not.toMatch(/request-id/i);
    expect(flat(page('caching'))).toContain(
      'What a cache may keep — the answer as the API makes it, before the id is stamped on the way out — never carries `x-request-id`, and no answer has `Vary` on it.',
    );
  });

  it('names exactly the codings npm start sends: br or gzip, never deflate', async () => {
    const list = endpointsOf(mortgages).list.path;
    const sent = new Set<string>();
    for (const accept of ['br', 'gzip', 'deflate', 'compress', 'zstd', 'identity']) {
      const answer = await get(list, accept);
      const coding = answer.headers.get('content-encoding');
      if (coding) sent.add(coding);
      if (accept === 'deflate') expect(coding).toBeNull();
      await answer.arrayBuffer();
    }
    const text = page('caching');
    const row = text.split('\n').find((line) => line.startsWith('| `Content-Encoding` |'))!;
    const named = [...row.matchAll(/`(\w+)`/g)].map((m) => m[1]).filter((name) => name !== 'Content-Encoding');
    expect(named.sort()).toEqual([...sent].sort());
    expect(text).not.toContain('deflate`)');
    expect(flat(text)).toContain('A client that accepts neither (`deflate` alone, say) gets the answer uncompressed.');
    expect((await get(list, 'gzip, deflate, br')).headers.get('content-encoding')).toBe('br');
    expect((await get(list, 'br;q=0.5, gzip')).headers.get('content-encoding')).toBe('gzip');
  });

  it(`codes an answer from ${CODING_THRESHOLD / 1024} KiB, as it says`, async () => {
    const small = await get(`${endpointsOf(mortgages).list.path}/${mortgages.entity.prefix}:no-such-lender`, 'br');
    expect(Buffer.byteLength(await small.text())).toBeLessThan(CODING_THRESHOLD);
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(flat(page('caching'))).toContain(`compresses JSON answers of ${CODING_THRESHOLD / 1024} KiB or more`);
    expect(flat(page('caching'))).toContain(
      `MCP answers (\`POST /api/v1/mcp\`) of ${CODING_THRESHOLD / 1024} KiB or more`,
    );
  });

  it('a streamed time-series range has an ETag per coding', async () => {
    const { timeSeries } = endpointsOf(mortgages);
    const dates = await lastDates(mortgages);
    const range = `${timeSeries.path}?startDate=${dates[0]}&endDate=${dates.at(-1)}`;
    const etags: Record<string, string> = {};
    for (const coding of ['identity', 'br', 'gzip']) {
      const answer = await get(range, coding);
      expect(answer.headers.get('content-length'), 'streamed').toBeNull();
      expect(answer.headers.get('content-encoding')).toBe(coding === 'identity' ? null : coding);
      etags[coding] = answer.headers.get('etag')!;
      await answer.body?.cancel();
    }
    expect(etags.br).toBe(etags.identity!.replace(/"$/, '-br"'));
    expect(etags.gzip).toBe(etags.identity!.replace(/"$/, '-gzip"'));
    expect(flat(page('caching'))).toContain(
      'Time-series ranges stream and are compressed as they stream; their ETag is per coding too (`-br`, `-gzip`)',
    );
  });

  it('an MCP client that sends gzip, deflate, br gets br', async () => {
    const call = modern('tools/call', { name: TOOLS[0]!.name, arguments: {} });
    const answer = await coded(
      new Request(`${SITE}${MCP_PATH}`, {
        ...call,
        headers: { ...call.headers, 'accept-encoding': 'gzip, deflate, br' },
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-encoding')).toBe('br');
    expect(flat(page('caching'))).toContain('a client that sends `gzip, deflate, br`, as most do, gets `br`');
  });
});

describe('the notifications page', () => {
  it("states the change log's caching as the endpoint sends it", async () => {
    const cacheControl = (await core(changesEndpointOf(DATASETS[0]).path)).headers.get('cache-control')!;
    const keeps = (directive: string) => durationWords(cacheSeconds(cacheControl, directive));
    expect(flat(page('notifications'))).toContain(
      `An answer may be kept by a browser for ${keeps('max-age')} and by a shared cache for ${keeps('s-maxage')} (\`Cache-Control: ${cacheControl}\`;`,
    );
  });

  it('describes feed entry titles as the feeds write them: the first change, how many more, the dataset first in a shared feed', async () => {
    const text = flat(page('notifications'));
    expect(text).not.toContain('titled with the date');
    const [, title] = /\(`(.+?) — [^`]+`\)/.exec(text) ?? [];
    const dataset = DATASETS.find((d) => d.title === title)!;
    expect(dataset, `a dataset's title: ${title}`).toBeDefined();
    const snapshots = await snapshotsOf(dataset);
    const sources = [{ dataset, days: changeDays(dataset, snapshots), lastUpdated: snapshots.at(-1)!.lastUpdated }];
    const entity = entitiesEver(snapshots).find((e) => e.id === dataset.exampleEntityId)!;
    // A rate that moved, in the change log's words: "…: down 60 bps, 5.29 → 4.69 %".
    const moved = /^[^·]+ · [^·]+ · [^·:]+: (?:up|down) \d+ bps?, \d+\.\d\d → \d+\.\d\d %$/;
    let movedTitles = 0;
    const scopes = [
      [{ kind: 'dataset', dataset }, `${dataset.title} — `],
      [{ kind: 'entity', dataset, entity }, ''],
    ] as const;
    for (const [scope, prefix] of scopes) {
      const $ = cheerio.load(atomFeed(scope, sources, SITE), { xml: true });
      const entries = $('entry').get();
      expect(entries.length).toBeGreaterThan(0);
      for (const entry of entries) {
        const changes = cheerio
          .load($(entry).children('content').text())('li')
          .map((_, li) => cheerio.load(li).text())
          .get();
        const more = changes.length > 1 ? ` and ${changes.length - 1} more` : '';
        const entryTitle = $(entry).children('title').text().trim();
        expect(entryTitle).toBe(`${prefix}${changes[0]}${more}`);
        if (moved.test(changes[0]!)) movedTitles++;
      }
    }
    expect(movedTitles).toBeGreaterThan(0);
    expect(/such as `([^`]+)`/.exec(text)?.[1]).toMatch(moved);
    expect(text).toContain('followed by `and 3 more` when more moved');
  });
});

describe('the terms page', () => {
  it('names the answers that carry the terms of use and those that do not, as they are', async () => {
    const text = flat(page('terms'));
    const dataset = DATASETS[0];
    const { list, detail, timeSeries, lowest, quote } = endpointsOf(dataset);
    const newest = (await lastDates(dataset)).at(-1);
    const carrying = [
      list.path,
      detail.path.replace(`{${dataset.entity.param}}`, dataset.exampleEntityId),
      `${timeSeries.path}?date=${newest}`,
      lowest.path,
      `${quote.path}?rate=6&measure=${EXPLORER[dataset.slug].measures[0]!.key}`,
      changesEndpointOf(dataset).path,
      INSTITUTIONS_PATH,
    ];
    for (const target of carrying) expect((await (await core(target)).json()).termsOfUse, target).toBe(TERMS_OF_USE);
    expect(text).toContain(
      '| every list, detail, time-series, lowest-rates, quote-check and change-log answer of the API (`/api/v1/<dataset>…`), and the lenders registry (`/api/v1/institutions`) | in its `termsOfUse` field |',
    );

    const callTool = async (args: Record<string, unknown>) => {
      const call = modern('tools/call', { name: TOOLS[1]!.name, arguments: args });
      const result = (await (await api(new Request(`${SITE}${MCP_PATH}`, call))).json()).result;
      return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
    };
    const found = await callTool({ [dataset.entity.param]: dataset.exampleEntityId });
    expect(found.isError).toBe(false);
    expect(found.body.termsOfUse).toBe(TERMS_OF_USE);
    expect(text).toContain(
      '| every MCP tool result that returns data | in the `termsOfUse` of the API answer it holds |',
    );
    const missing = await callTool({ [dataset.entity.param]: `${dataset.entity.prefix}:no-such-lender` });
    expect(missing.isError).toBe(true);
    expect(missing.body.termsOfUse).toBeUndefined();

    const snapshots = await snapshotsOf(dataset);
    const feed = cheerio.load(
      atomFeed(
        { kind: 'dataset', dataset },
        [{ dataset, days: changeDays(dataset, snapshots), lastUpdated: snapshots.at(-1)!.lastUpdated }],
        SITE,
      ),
      { xml: true },
    );
    expect(feed('feed > rights').text()).toBe(TERMS_OF_USE);
    for (const entry of feed('entry').get()) {
      expect(feed(entry).children('rights').text()).toBe(TERMS_OF_USE);
      expect(cheerio.load(feed(entry).children('content').text()).text()).toContain(TERMS_OF_USE);
    }
    expect(text).toContain(
      "| the change feeds (`…/changes.atom`) | in the feed's `rights`, and each entry's `rights` and content |",
    );

    // The alerts feeds, JSON and Atom, and the lowest-rate feed: the terms once, for the whole feed.
    const query = alertsExampleRequests(dataset, (await (await core(lowest.path)).json()).data)[0]!;
    const json = await (await core(query)).json();
    expect(json.items.length, query).toBeGreaterThan(0);
    expect(json.description).toContain(TERMS_OF_USE);
    for (const item of json.items) expect(JSON.stringify(item)).not.toContain(TERMS_OF_USE);
    const measure = EXPLORER[dataset.slug].compared[0]!;
    const atoms = [
      await (await core(query.replace(alertsEndpointOf(dataset).path, `/feeds/${dataset.slug}/alerts.atom`))).text(),
      lowestChangesAtom(dataset, snapshots, measure, SITE),
    ];
    for (const xml of atoms) {
      const atom = cheerio.load(xml, { xml: true });
      expect(atom('feed > rights').text()).toBe(TERMS_OF_USE);
      expect(atom('entry').length).toBeGreaterThan(0);
      for (const entry of atom('entry').get()) expect(atom(entry).text()).not.toContain(TERMS_OF_USE);
    }
    expect(text).toContain(
      "| the alerts feeds (`/api/v1/<dataset>/alerts`, `/feeds/<dataset>/alerts.atom`) and the lowest-rate feeds (`…/lowest.atom`) | once, for the whole feed: the Atom feed's `rights`, the JSON Feed's `description`; not in each entry |",
    );

    for (const target of [HEALTH_PATH, STATUS_PATH, `${list.path}?colour=blue`, '/api/search?query=rates'])
      expect((await (await core(target)).json()).termsOfUse, target).toBeUndefined();
    const csv = datasetCsv(dataset, snapshots);
    expect(csv).not.toContain(TERMS_OF_USE);
    expect(csv).not.toContain('termsOfUse');
    expect(text).toContain(
      'Answers that carry no rates do not carry them: errors (of the API and of MCP tools), health, the status figures (`/api/v1/status`) and the docs search. Neither do the CSV downloads',
    );
  });
});

describe('the self-hosting page', () => {
  it('says which requests read files: lists and details none, a time series the history files the build wrote', async () => {
    const files = historyFiles(store);
    const reads: string[] = [];
    const served = new ServedStore(newestOnly(store), async (path) => {
      reads.push(path);
      return files.get(path)!;
    });
    const service = createService({
      loadStore: async () => served,
      status: new FileStatusStore(await tempDir('rates-status-')),
      siteUrl: SITE,
    });
    const ask = async (target: string) => (await service(new Request(`${SITE}${target}`))).text();
    const dataset = DATASETS[0];
    const { list, detail, timeSeries, lowest } = endpointsOf(dataset);
    await ask(list.path);
    await ask(detail.path.replace(`{${dataset.entity.param}}`, dataset.exampleEntityId));
    await ask(lowest.path);
    expect(reads).toEqual([]);
    // The registry: each dataset's index, once.
    await ask('/api/v1/institutions');
    await ask('/api/v1/institutions');
    expect(reads.length).toBeGreaterThan(0);
    expect(new Set(reads).size).toBe(reads.length);
    for (const path of reads) expect(path, path).toMatch(/index\.json$/);
    reads.length = 0;
    const dates = await lastDates(dataset);
    await ask(`${timeSeries.path}?startDate=${dates[0]}&endDate=${dates.at(-1)}`);
    expect(reads.length).toBeGreaterThan(1);
    for (const path of reads) expect(files.has(path), path).toBe(true);

    const text = flat(page('self-hosting'));
    expect(text).not.toContain('nothing in a request can make the server read a file');
    expect(text).toContain(
      "lists, details, the lowest open rates (and the MCP tools that return them), health's data and the docs search are answered from memory. A time series, a change log or an alerts feed reads the history files the build wrote",
    );
    expect(text).toContain(`at most ${countWord(PARTS_KEPT)} years of a dataset held at once`);
    expect(text).toContain(`health at most once every ${durationWords(STATUS_CACHE_MS / 1000)} per process`);
  });
});

describe('the stability page', () => {
  it('calls closed every field of the rate data the OpenAPI document lists as an enum, term among them', () => {
    const closed = new Set<string>();
    const walk = (node: any) => {
      for (const [name, child] of Object.entries<any>(node?.properties ?? {})) {
        if (child.enum || child.anyOf?.some((c: any) => c.enum)) closed.add(name);
        walk(child);
      }
      if (node?.items) walk(node.items);
    };
    for (const d of DATASETS) walk(openapi.components.schemas[d.type].properties.data.items);
    expect([...closed]).toContain('term');
    const text = flat(page('stability'));
    const sentence = text.slice(text.indexOf('In the rate data:'), text.indexOf('A new value of a closed field'));
    for (const name of closed) expect(sentence, name).toContain(`\`${name}\` of the`);
    const open = text.slice(
      text.indexOf('a new value of a field whose values are open'),
      text.indexOf('## Closed values'),
    );
    for (const name of closed) expect(open, name).not.toContain(`\`${name}\``);
  });
});

/** What an example (`shown`) left out of the real answer, in the words the pages use; `noun` is what `data` lists. */
function cutOf(real: any, shown: any, noun: string): string[] {
  const expected: string[] = [];
  if (Array.isArray(real.data) && real.data.length > shown.data.length) {
    expect(shown.data.length).toBe(EXAMPLE_CUT.entities);
    expected.push(`\`data\` cut to its first ${shown.data.length} of ${real.data.length} ${noun}`);
  }
  if (real.timeSeries) {
    const [all, kept] = [Object.keys(real.timeSeries), Object.keys(shown.timeSeries)];
    if (all.length > kept.length)
      expected.push(`\`timeSeries\` cut to its last ${kept.length} of ${all.length} snapshots`);
    if (kept.some((d) => shown.timeSeries[d].data.length < real.timeSeries[d].data.length))
      expected.push(`each snapshot's \`data\` cut to its first ${EXAMPLE_CUT.entities} ${noun}`);
    if (real.availableDates.length > shown.availableDates.length) {
      const ends = shown.availableDates.length / 2;
      expect(shown.availableDates).toEqual([
        ...real.availableDates.slice(0, ends),
        ...real.availableDates.slice(-ends),
      ]);
      expected.push(
        `\`availableDates\` cut to its first ${ends} and last ${ends} of ${real.availableDates.length} dates`,
      );
    }
  }
  return expected;
}

describe('the reference pages', () => {
  it('each example says what was cut from the real answer, in the numbers of the cut', async () => {
    let cuts = 0;
    for (const dataset of DATASETS) {
      const text = page(`reference/${dataset.slug}`);
      const blocks = [
        ...text.matchAll(
          /curl '([^']+)'\n```\n\nResponse `200` \(real data(?:; ([^)]*))?\):\n\n```json\n([\s\S]*?)\n```/g,
        ),
      ];
      // One example per endpoint of the dataset, and of its break-even rates where it has fixed terms.
      const breakEven = breakEvenEndpointOf(dataset);
      expect(blocks.length, dataset.slug).toBe(Object.keys(endpointsOf(dataset)).length + (breakEven ? 1 : 0));
      for (const [, url, note = '', shownJson] of blocks) {
        const real = await (await core(url!.slice(SITE.length))).json();
        const noun = breakEven && url!.startsWith(`${SITE}${breakEven.path}`) ? 'pairs' : `${dataset.entity.kind}s`;
        const expected = cutOf(real, JSON.parse(shownJson!), noun);
        expect(note, url).toBe(expected.join('; '));
        cuts += expected.length;
      }
    }
    expect(cuts).toBeGreaterThan(DATASETS.length);
  });

  it('as the OpenAPI document says of each example it cut, and of no other', async () => {
    const nouns = new Map<string, string>([[INSTITUTIONS_PATH, 'institutions and issuers']]);
    for (const d of DATASETS) for (const e of Object.values(endpointsOf(d))) nouns.set(e.path, `${d.entity.kind}s`);
    // The break-even rates list pairs of terms.
    for (const d of DATASETS) if (breakEvenEndpointOf(d)) nouns.set(breakEvenEndpointOf(d)!.path, 'pairs');
    let cut = 0;
    for (const [path, item] of Object.entries<any>(openapi.paths))
      for (const [status, response] of Object.entries<any>(item.get?.responses ?? {})) {
        if (status !== '200' || path === STATUS_PATH) continue;
        for (const media of Object.values<any>(response.content ?? {}))
          for (const example of Object.values<any>(media.examples ?? {})) {
            const request = example.summary.replace(/^GET /, '');
            const real = await (await core(request)).json();
            const expected = nouns.has(path) ? cutOf(real, example.value, nouns.get(path)!) : [];
            expect(example.description, request).toBe(
              expected.length ? `The real answer, cut: ${expected.join('; ')}.` : undefined,
            );
            cut += expected.length ? 1 : 0;
          }
      }
    expect(cut).toBeGreaterThan(DATASETS.length);
    // The reference page at /openapi shows it beside the example.
    const shown = staticReference(openapi)
      .tags.flatMap((t) => t.operations)
      .flatMap((op) => op.responses.flatMap((r) => r.bodies.flatMap((b) => b.examples)));
    expect(shown.filter((e) => e.description.startsWith('The real answer, cut: '))).toHaveLength(cut);
  });

  it('the changes page says what its change-log example cut', async () => {
    const text = page('changes');
    const [, request, note = '', json] =
      /curl '[^']*?(\/api\/[^']+)'\n```\n\nResponse `200` \(real data(?:; ([^)]*))?\):\n\n```json\n([\s\S]*?)\n```/.exec(
        text,
      )!;
    const real = await (await core(request!)).json();
    const shown = JSON.parse(json!);
    const [last] = shown.changes;
    const realLast = real.changes.at(-1);
    expect(last.date).toBe(realLast.date);
    const expected = [
      ...(real.changes.length > 1 ? [`\`changes\` cut to its last of ${real.changes.length} dates`] : []),
      ...['changed', 'added', 'removed']
        .filter((kind) => realLast[kind].length > last[kind].length)
        .map((kind) => `\`${kind}\` to its first ${last[kind].length} of ${realLast[kind].length}`),
    ];
    expect(note).toBe(expected.join('; '));
  });

  it('name each dataset’s institutions as lenders while its rates are paid, and a measure with the article it is said with', () => {
    for (const dataset of DATASETS) {
      const text = page(`reference/${dataset.slug}`);
      const paid = bestRatesOf(EXPLORER[dataset.slug]).every((r) => r.paid);
      if (dataset.entity.kind === 'institution' && paid)
        expect(text, dataset.slug).toContain('credit unions and other lenders');
      const [, article, word] = /\b(An?) (\w+) no offer open to anyone has is left out/.exec(text) ?? [];
      expect(`${article?.toLowerCase()} ${word}`, dataset.slug).toBe(withArticle(word ?? ''));
    }
  });

  it('give every field of every dataset a meaning, as the OpenAPI document does', () => {
    for (const dataset of DATASETS) {
      const text = page(`reference/${dataset.slug}`);
      const fields = text.slice(text.indexOf('## Fields'));
      const rows = fields.split('\n').filter((line) => /^\| `\w+` \|/.test(line));
      expect(rows.length, dataset.slug).toBeGreaterThan(5);
      for (const row of rows) expect(row.split(' | ').at(-1)!.replace(/\|$/, '').trim(), row).not.toBe('');
      let properties = 0;
      const walk = (node: any, path: string) => {
        for (const [name, child] of Object.entries<any>(node.properties ?? {})) {
          properties++;
          expect(child.description?.trim(), `${dataset.slug}: ${path}${name}`).toBeTruthy();
          walk(child.items ?? child, `${path}${name}.`);
        }
      };
      walk(openapi.components.schemas[dataset.type].properties.data.items, '');
      expect(properties).toBe(rows.length);
    }
  });
});

describe('lists of the datasets', () => {
  /** Each dataset's label without the word they all end in (as `namesInWords` says them once). */
  const stems = () => {
    const last = DATASETS[0].label.split(' ').at(-1)!;
    return DATASETS.map((d) => (d.label.endsWith(` ${last}`) ? d.label.slice(0, -last.length - 1) : d.label));
  };

  it('no docs source or code writes every dataset in a list by hand: they take it from the table', async () => {
    const names = stems().map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const mention = new RegExp(`(${names.join('|')})s?`, 'gi');
    const joiner = /^(?:[\s*,()]|rates?|and|or|pages?)*$/i;
    const sources: [string, string][] = [];
    for (const dir of ['content/docs', 'src']) {
      const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
      for (const e of entries)
        if (e.isFile() && /\.(md|ts|astro)$/.test(e.name))
          sources.push([join(e.parentPath, e.name), await readFile(join(e.parentPath, e.name), 'utf8')]);
    }
    expect(sources.length).toBeGreaterThan(50);
    for (const [file, text] of sources) {
      const found = [...text.matchAll(mention)];
      for (let i = 0; i < found.length; i++) {
        const named = new Set([found[i]![1]!.toLowerCase()]);
        for (let j = i + 1; j < found.length; j++) {
          const between = text.slice(found[j - 1]!.index! + found[j - 1]![0].length, found[j]!.index);
          if (!joiner.test(between)) break;
          named.add(found[j]![1]!.toLowerCase());
        }
        expect(named.size, `${file}: ${text.slice(found[i]!.index!, found[i]!.index! + 80)}`).toBeLessThan(
          DATASETS.length,
        );
      }
    }
    expect(openapi.info.description).toContain(datasetsInWords());
    expect(page('')).toContain(`**${datasetsInWords()}**`);
    // The concepts page's ids table: each kind of entity with the datasets that have it, and no
    // other, written from the table (its source names none).
    const source = await readFile(join(ROOT, 'content/docs/concepts.md'), 'utf8');
    const ids = page('concepts').split('\n');
    for (const { kind, param } of new Map(DATASETS.map((d) => [d.entity.kind, d.entity])).values()) {
      const row = ids.find((line) => line.startsWith(`| ${kind} |`))!;
      expect(row, kind).toContain(`\`${param}\``);
      const written = source.split('\n').find((line) => line.startsWith(`| ${kind} |`))!;
      for (const stem of stems()) expect(written.toLowerCase(), kind).not.toContain(stem);
      for (const d of DATASETS)
        expect(row.includes(stems()[DATASETS.indexOf(d)]!), `${kind}: ${d.slug}`).toBe(d.entity.kind === kind);
    }
  });
});

describe('what the hourly collection does', () => {
  it('the summaries say the source is checked hourly and a snapshot is kept only when rates change, as the workflow runs it', async () => {
    const workflow = await readFile(join(ROOT, '.github/workflows/collect.yml'), 'utf8');
    expect(workflow).toMatch(/cron: "\d{1,2} \* \* \* \*"/);
    const server = JSON.parse(await readFile(join(ROOT, 'server.json'), 'utf8'));
    expect(server.description).toContain(CHECKED_HOURLY);
    const summaries = [openapi.info.description, data.llms, ...DATASETS.map((d) => page(`reference/${d.slug}`))];
    for (const text of summaries) expect(text).toContain(COLLECTION_WORDS);
    for (const text of [...summaries, server.description, ...data.pages.map((p) => p.markdown)])
      expect(text).not.toMatch(/collected hourly/i);
  });
});

describe("the README's figures", () => {
  it('the sample collector failure took at least the least backoff the default retries wait, and says what that is', async () => {
    const server = createServer((_, res) => {
      res.statusCode = 500;
      res.end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // p-retry's delays grow in proportion to the first delay: measured a thousand times shorter,
    // with the jitter at each end of its range.
    const scale = 1000;
    const waits = async (random: number) => {
      const spy = vi.spyOn(Math, 'random').mockReturnValue(random);
      const delays: number[] = [];
      try {
        await expect(
          fetchPage(url, {
            ...DEFAULT_FETCH,
            retryDelayMs: DEFAULT_FETCH.retryDelayMs / scale,
            onRetry: (message) => delays.push(Number(/retrying in (\d+) ms/.exec(message)![1])),
          }),
        ).rejects.toThrow(/HTTP 500/);
      } finally {
        spy.mockRestore();
      }
      expect(delays).toHaveLength(DEFAULT_FETCH.retries);
      return delays.reduce((a, b) => a + b, 0) * scale;
    };
    try {
      const least = await waits(0);
      const most = await waits(1 - Number.EPSILON);
      const sample = readme.slice(readme.indexOf('Output (its indented progress lines left out)'));
      expect(flat(sample)).toContain(`the waits between them alone take at least ${least / 1000} s`);
      const ms = Number(/: FAILED: .*? in (\d+) ms/.exec(sample)![1]);
      expect(ms).toBeGreaterThanOrEqual(least);
      expect(ms).toBeLessThanOrEqual(most + 1000);
    } finally {
      server.close();
    }
  });

  it('the history the repository carries: its count of snapshots and months, as the README says', async () => {
    const dates: string[] = [];
    for (const { slug } of DATASETS)
      for (const name of await readdir(join(REPO_SNAPSHOTS, slug)).catch(() => [] as string[]))
        if (/^\d{4}-\d\d-\d\d\.json$/.test(name) && name.slice(0, 10) <= HISTORY_UNTIL) dates.push(name.slice(0, 10));
    dates.sort();
    expect(flat(readme)).toContain(
      `(\`snapshots/\`, ${dates.length} snapshots from ${dates[0]!.slice(0, 7)} to ${dates.at(-1)!.slice(0, 7)}, then whatever the hourly collector commits)`,
    );
  });

  it('states no size it cannot keep true: the /openapi page and the API bundle', () => {
    const row = readme.split('\n').find((line) => line.startsWith('| `/openapi` |'))!;
    expect(row).not.toMatch(/\d\s*[KM]i?B\b/);
    const bundle = readme.slice(readme.indexOf('**A cold start'), readme.indexOf('**Streaming'));
    expect(bundle).toContain('compile cache');
    expect(bundle).not.toMatch(/\d\s*[KM]i?B\b/);
  });
});

describe('the reference pages’ alert feeds', () => {
  it('each names its dataset’s alerts endpoint and its Atom twin, with today’s working query', async () => {
    for (const d of DATASETS) {
      const markdown = page(`reference/${d.slug}`);
      expect(markdown).toContain(`| GET | \`/api/v1/${d.slug}/alerts\` |`);
      expect(markdown).toContain(`/feeds/${d.slug}/alerts.atom`);
      const query = new RegExp(`\\]\\((/api/v1/${d.slug}/alerts\\?[^)]+)\\)`).exec(markdown)?.[1];
      expect(query, d.slug).toBeDefined();
      const response = await core(query!);
      expect(response.status, query).toBe(200);
      expect(((await response.json()) as { items: unknown[] }).items.length, query).toBeGreaterThan(0);
    }
  });
});

describe('llms.txt’s alert feeds', () => {
  it('link, per dataset, a working query whose threshold the data crosses: a feed with items, not an empty one', async () => {
    const urls = [...data.llms.matchAll(/\]\(([^)]+\/alerts\?[^)]+)\)/g)].map((m) => m[1]!);
    expect(urls).toHaveLength(DATASETS.length);
    for (const [i, d] of DATASETS.entries()) {
      const url = new URL(urls[i]!);
      expect(url.pathname).toBe(`/api/v1/${d.slug}/alerts`);
      const response = await core(`${url.pathname}${url.search}`);
      expect(response.status, url.href).toBe(200);
      const feed = (await response.json()) as { items: unknown[] };
      expect(feed.items.length, url.href).toBeGreaterThan(0);
    }
  });
});

describe('the bounds of the values kept', () => {
  it('the collection page lists each, in its unit, as the schema bounds it', () => {
    const rows = page('collection').split('\n');
    for (const [field, { min, max, what }] of Object.entries(VALUE_BOUNDS)) {
      const row = rows.find((line) => line.startsWith(`| ${what} |`));
      expect(row, field).toBeDefined();
      expect(row, field).toContain(`${min.toLocaleString('en')}–${max.toLocaleString('en')}`);
    }
  });
});

describe('the slugs no lender may take', () => {
  it('are every segment the router answers after a dataset, and the changes and collection pages and the README list them all', async () => {
    // The segments after a dataset's slug that the document's paths name (not a path parameter).
    const [first] = DATASETS;
    const base = endpointsOf(first).list.path;
    const segments = Object.keys(openapi.paths)
      .filter((path) => path.startsWith(`${base}/`) && !path.slice(base.length + 1).startsWith('{'))
      .map((path) => path.slice(base.length + 1));
    expect([...segments].sort()).toEqual([...RESERVED_SLUGS].sort());
    for (const slug of RESERVED_SLUGS) {
      // The router answers the segment itself, never as a lender it does not know.
      const body = await (await core(`${base}/${slug}`)).json();
      expect(body.error, slug).not.toBe(first.entity.notFound);
    }
    const words = RESERVED_SLUGS.map((s) => `\`${s}\``);
    const listed = `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
    expect(flat(page('changes'))).toContain(`refuses any institution or issuer whose slug is ${listed}`);
    expect(flat(page('collection'))).toContain(`one of the API's own segments after a dataset (${listed}:`);
    const inReadme = `refuses an institution or issuer whose slug is ${listed}`;
    expect(flat(readme).includes(inReadme), inReadme).toBe(true);
  });
});

describe('the overview', () => {
  it("names every endpoint the OpenAPI document has: each of a dataset's by what it answers, the others by their path", () => {
    const text = flat(page(''));
    const [first] = DATASETS;
    const base = endpointsOf(first).list.path;
    const perDataset = Object.keys(openapi.paths).filter((p) => p === base || p.startsWith(`${base}/`));
    // One phrase per endpoint of a dataset, and each of them said.
    expect(Object.keys(DATASET_ENDPOINT_WORDS)).toHaveLength(perDataset.length);
    expect(text).toContain(`for each dataset ${listInWords(Object.values(DATASET_ENDPOINT_WORDS))}; and health`);
    const others = Object.keys(openapi.paths).filter(
      (p) => !DATASETS.some((d) => p.includes(`/${d.slug}`)) && p !== MCP_PATH,
    );
    expect(others.length).toBeGreaterThan(2);
    for (const path of others) expect(text, path).toContain(`(\`${path}\`)`);
    expect(text).toContain(`an **MCP server** at \`${MCP_PATH}\``);
  });
});

describe('what is answered per request outside /api', () => {
  /** The site's routes answered per request: the page files that opt out of prerendering. */
  async function perRequestPages(): Promise<string[]> {
    const dir = join(ROOT, 'src/pages');
    const found: string[] = [];
    for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const text = await readFile(join(e.parentPath, e.name), 'utf8');
      if (/^export const prerender = false;/m.test(text))
        found.push(`/${relative(dir, join(e.parentPath, e.name)).replace(/\.(astro|ts)$/, '')}`);
    }
    return found.filter((route) => !route.startsWith('/api/'));
  }

  it('the deploying and self-hosting pages name each: the pages rendered per request and the feeds the API answers', async () => {
    const pages = await perRequestPages();
    expect(pages).toEqual(expect.arrayContaining(['/status', '/openapi/json']));
    // The API listener answers /api and /feeds, and no page's path.
    const firstSegments = (await readdir(join(ROOT, 'src/pages'))).map((name) => name.replace(/\.(astro|ts)$/, ''));
    expect(firstSegments).toContain('rates');
    for (const segment of firstSegments) expect(SERVICE_PATH.test(`/${segment}/x`), segment).toBe(false);
    expect(SERVICE_PATH.test(`${FEEDS_PREFIX}/x`)).toBe(true);
    const feeds = `${FEEDS_PREFIX}/<dataset>/${ALERTS_FEED_FILE}`;
    const answered = [...pages, feeds];
    const deploying = flat(page('deploying'));
    const sentence = deploying.slice(
      deploying.indexOf('Outside `/api`,'),
      deploying.indexOf('Every other page and file'),
    );
    expect(sentence).toContain(`Outside \`/api\`, ${countWord(answered.length)} things are answered per request`);
    for (const path of answered) expect(sentence, path).toContain(`\`${path}\``);
    const selfHosting = flat(page('self-hosting'));
    expect(selfHosting).toContain(`all but ${countWord(answered.length)} answers made per request`);
    for (const path of answered) expect(selfHosting, path).toContain(`\`${path}\``);
    expect(selfHosting).toContain(
      `\`npm start\` sends \`/api/*\` and \`${FEEDS_PREFIX}/*\` straight to those functions`,
    );
  });
});

describe('a filter that picks one measure', () => {
  it('says on the lowest rates and the alerts feeds what it does there, not what it does to a list', async () => {
    let checked = 0;
    for (const dataset of DATASETS) {
      const { lowest, list } = endpointsOf(dataset);
      const alerts = alertsEndpointOf(dataset);
      const [tool] = restToolsOf(dataset, ['lowest']);
      for (const filter of filtersOf(dataset, 'lowest')) {
        if (!filter.asMeasure) continue;
        checked++;
        const described = (path: string) =>
          openapi.paths[path].get.parameters.find((p: any) => p.name === filter.name).description;
        expect(described(list.path)).toBe(filter.description);
        expect(described(lowest.path)).toBe(filter.asMeasure.lowest);
        expect(described(alerts.path)).toBe(filter.asMeasure.alerts);
        expect(tool!.description).toContain(filter.asMeasure.lowest);
        expect(tool!.description).not.toContain(filter.description);
      }
      // termInMonths: one term's lowest alone, none for a term no lender offers; on the alerts, a 400 naming the measures.
      if (!filtersOf(dataset, 'lowest').some((f) => f.name === 'termInMonths')) continue;
      const one = await (await core(`${lowest.path}?termInMonths=12`)).json();
      expect(one.data.map((m: { measure: string }) => m.measure)).toEqual(['12']);
      expect((await (await core(`${lowest.path}?termInMonths=7`)).json()).data).toEqual([]);
      const refused = await core(`${alerts.path}?termInMonths=7&below=9`);
      expect(refused.status).toBe(400);
      expect((await refused.json()).hint).toContain('measure=');
      expect(await (await core(`${alerts.path}?termInMonths=12&below=9`)).text()).toBe(
        await (await core(`${alerts.path}?measure=12&below=9`)).text(),
      );
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe("the lowest-rates tools' descriptions", () => {
  it("name each offer's fields as its dataset's answer has them, those every offer has and those some do", async () => {
    for (const dataset of DATASETS) {
      const [tool] = restToolsOf(dataset, ['lowest']);
      const listed = /\(each with ([^;]+); and, where it has them, ([^)]+)\)/.exec(tool!.description);
      expect(listed, tool!.name).not.toBeNull();
      const [always, sometimes] = [listed![1]!.split(', '), listed![2]!.split(/, | and /)];
      const offer = (tool!.outputSchema as any).properties.data.items.properties.offers.items;
      expect([...always, ...sometimes].sort(), tool!.name).toEqual(Object.keys(offer.properties).sort());
      expect(always.sort(), tool!.name).toEqual([...offer.required].sort());
      // What the real answer's offers carry is among them, and every field every offer has is there.
      const answer = await (await core(endpointsOf(dataset).lowest.path)).json();
      const offers = answer.data.flatMap((m: { offers: object[]; restricted: object[] }) => [
        ...m.offers,
        ...m.restricted,
      ]);
      expect(offers.length).toBeGreaterThan(0);
      for (const o of offers) {
        const keys = Object.keys(o).filter((k) => k !== 'for');
        for (const key of keys) expect([...always, ...sometimes], `${tool!.name}: ${key}`).toContain(key);
        for (const key of always) expect(keys, `${tool!.name}: ${key}`).toContain(key);
      }
    }
  });
});

describe("the README's MCP limits, CI and reference page", () => {
  /** A header-less batch (protocol 2025-03-26), as a client of that version sends it. */
  const batch = (messages: unknown[]): McpRequest => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(messages),
  });
  const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: TOOLS[0]!.name } });

  it('says a batch of too many messages is refused whole with -32600, and calls past the call limit get -32000', async () => {
    const tooMany = await mcpCore(batch(Array.from({ length: LIMITS.batchMessages + 1 }, (_, i) => ping(i))));
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error).toMatchObject({ code: -32600, data: { limit: 'batchMessages' } });
    const calls = await mcpCore(batch(Array.from({ length: LIMITS.batchToolCalls + 1 }, (_, i) => call(i))));
    expect(calls.status).toBe(200);
    const last = (await calls.json()).find((reply: { id: number }) => reply.id === LIMITS.batchToolCalls);
    expect(last.error).toMatchObject({ code: -32000, data: { limit: 'batchToolCalls' } });
    expect(flat(readme)).toContain(
      "a batch's messages (a batch of more is refused whole: HTTP 400, `-32600`, its `data` naming the limit), its `tools/call` requests and the bytes of its answers (each call past them gets a `-32000` error naming the limit)",
    );
  });

  it('says what CI runs, as its workflow runs it, and what .ci/run adds', async () => {
    const workflow = await readFile(join(ROOT, '.github/workflows/ci.yml'), 'utf8');
    const runs = [...workflow.matchAll(/^\s*(?:- )?run: (.+)$/gm)].map((m) => m[1]!.trim());
    expect(runs).toEqual(expect.arrayContaining(['npm ci', 'npm test']));
    expect(runs.some((r) => r.includes('apt-get install') && r.includes('chromium') && r.includes('nginx'))).toBe(true);
    expect(workflow).not.toContain('.ci/run');
    const script = await readFile(join(ROOT, '.ci/run'), 'utf8');
    expect(script).toContain('npm ci');
    expect(script).toMatch(/npm test\b/);
    expect(script).toMatch(/passed, \$\{failed\} failed/);
    expect(flat(readme)).toContain(
      'CI (`.github/workflows/ci.yml`) installs both, then runs `npm ci` and `npm test` on every push and pull request. `bash .ci/run` does the same on a Debian machine',
    );
    expect(workflow).toMatch(/on:\s*\n\s*push:\s*\n\s*pull_request:/);
  });

  it("says /openapi needs no script to be read and loads one, the Copy buttons' (test/site.test.ts counts them)", () => {
    const row = readme.split('\n').find((line) => line.startsWith('| `/openapi` |'))!;
    expect(row).toContain("readable without JavaScript: its one script adds the code blocks' Copy buttons");
    expect(row).not.toMatch(/no JavaScript/);
  });
});

describe('links between the docs pages', () => {
  /** The Markdown of a page's section by its heading's id, up to the next heading of its depth or above. */
  const section = (slug: string, id: string) => {
    const doc = data.pages.find((p) => p.slug === slug)!;
    const at = doc.headings.findIndex((h) => h.id === id);
    if (at < 0) return undefined;
    const heading = doc.headings[at]!;
    const next = doc.headings.slice(at + 1).find((h) => h.depth <= heading.depth);
    const text = doc.markdown;
    const start = text.indexOf(`${'#'.repeat(heading.depth)} ${heading.text}`);
    return text.slice(start, next ? text.indexOf(`${'#'.repeat(next.depth)} ${next.text}`, start + 1) : undefined);
  };

  it('every link to a section of a docs page names a section that page has', () => {
    let links = 0;
    for (const doc of data.pages)
      for (const [, slug, id] of doc.markdown.matchAll(/\]\(\/docs\/?([\w/-]*)#([\w-]+)\)/g)) {
        links++;
        expect(section(slug!, id!), `${doc.slug || 'overview'} → /docs/${slug}#${id}`).toBeDefined();
      }
    expect(links).toBeGreaterThan(10);
  });

  it("the limits page's health paragraph links the caching section that says how often the status store is read", () => {
    const limits = page('limits');
    const health = limits.slice(limits.indexOf('## Health'), limits.indexOf('## On Vercel'));
    const [, id] = /\]\(\/docs\/caching#([\w-]+)\)/.exec(health)!;
    expect(flat(section('caching', id!)!)).toContain(
      `read the collection status store at most once every ${durationWords(STATUS_CACHE_MS / 1000)} per process`,
    );
  });
});
