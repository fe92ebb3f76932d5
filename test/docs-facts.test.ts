/**
 * What the docs, the OpenAPI examples and the README say about the service is what it answers
 * (issue 28, item 6): each fact below is measured here from the real core over the test history,
 * independently of the build code that writes it, and compared with the text the build makes.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSiteData, type SiteData } from '../src/build/site-data.ts';
import { changesEndpointOf } from '../src/changes/endpoint.ts';
import { rateValues } from '../src/collect/guards.ts';
import { DATASETS } from '../src/datasets.ts';
import { countWord } from '../src/lib/words.ts';
import { size } from '../src/mcp/sizes.ts';
import { endpointsOf, HEALTH_PATH } from '../src/endpoints.ts';
import { LIMITS, SUPPORTED_VERSIONS } from '../src/mcp/protocol.ts';
import { REST_TOOL_KINDS, restToolsOf } from '../src/mcp/rest-tools.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { CollectionHealth, Health } from '../src/schemas/health.ts';
import { createService } from '../src/service.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { historyFiles, servedStoreOf } from '../src/store/history-build.ts';
import { ROOT } from './support/constants.ts';
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
  const store = await compileSnapshotTree(historyDir());
  const served = servedStoreOf(store, historyFiles(store));
  const service = createService({
    loadStore: async () => served,
    status: new FileStatusStore(await tempDir('rates-status-')),
    siteUrl: SITE,
  });
  core = (target) => service(new Request(`${SITE}${target}`));
  mcpCore = (request) => service(new Request(`${SITE}${MCP_PATH}`, request));
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
    expect(page('')).toContain(`call ${countWord(TOOLS.length)} tools`);
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
    const named = new RegExp(`\`((?:${prefixes}):[a-z0-9:-]+)\``, 'gi');
    let checked = 0;
    for (const [name, text] of written) {
      for (const [, id] of text.matchAll(named)) {
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
