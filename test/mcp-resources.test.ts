/**
 * The MCP resources over a real socket, in every protocol version, by raw requests and by the
 * official client: every docs page's Markdown, the OpenAPI document and each dataset's newest data,
 * listed and read, each the same text as the site serves at its URI; the not-found error of each
 * version; no templates; and the Mcp-Name rules of 2026-07-28 for resources/read and prompts/get.
 * The documents are the build's, made here over the test history as `npm run build:data` makes them.
 */
import { join } from 'node:path';
import { Client, ResourceNotFoundError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSiteData, type SiteData } from '../src/build/site-data.ts';
import { DATASETS } from '../src/datasets.ts';
import { cacheSeconds } from '../src/docs/pages.ts';
import { DATA_CACHE_CONTROL } from '../src/http/caching.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { rawServiceOver } from './support/core.ts';
import { ROOT, SITE } from './support/constants.ts';
import { historyDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { JSON_HEADERS, META, MODERN, metaFor, modern, postMcp, sendMcp, VERSIONS } from './support/mcp.ts';

let data: SiteData;
let server: Listening;
beforeAll(async () => {
  data = await buildSiteData({ snapshotsDir: historyDir(), contentDir: join(ROOT, 'content/docs'), site: SITE });
  server = await serveService(
    await rawServiceOver(historyDir(), { mcp: { documents: async () => data.mcpDocuments } }),
  );
});
afterAll(() => server?.close());

/** One request in `version`: a 2026-07-28 one with its headers and `_meta`, else one with MCP-Protocol-Version. */
function rpc(version: string, method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  if (version === MODERN) return sendMcp(server.url, modern(method, params, { id }));
  return postMcp(server.url, { jsonrpc: '2.0', id, method, params }, { 'mcp-protocol-version': version });
}

/**
 * What the site serves at a URI of `SITE`: a docs page's `.md` twin is its Markdown
 * (src/pages/docs/[...slug].md.ts, src/pages/docs.md.ts serve `markdown` of the built pages),
 * /openapi/json the generated document's text (src/build/generated-files.ts writes it with
 * JSON.stringify), and an API path the REST answer, asked for here over the socket.
 */
async function served(uri: string): Promise<string> {
  const path = uri.slice(SITE.length);
  const page = data.pages.find((p) => p.mdUrl === path);
  if (page) return page.markdown;
  if (path === '/openapi/json') return JSON.stringify(data.openapi);
  const response = await fetch(`${server.url}${path}`);
  expect(response.status, path).toBe(200);
  return response.text();
}

/** Every URI the list must hold: each docs page's .md, the OpenAPI document, each dataset's list. */
const expectedUris = () => [
  ...data.pages.map((p) => `${SITE}${p.mdUrl}`),
  `${SITE}/openapi/json`,
  ...DATASETS.map((d) => `${SITE}${endpointsOf(d).list.path}`),
];

describe.each(VERSIONS)('at %s', (version) => {
  it('declares resources and prompts, with nothing to subscribe to and no list that changes', async () => {
    const { json } =
      version === MODERN
        ? await rpc(version, 'server/discover')
        : await postMcp(server.url, {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'test', version: '1' } },
          });
    expect(json.result.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false },
      prompts: { listChanged: false },
    });
  });

  it('resources/list: every docs page as Markdown, the OpenAPI document and each dataset’s newest data, each named, titled, described, typed and sized', async () => {
    const { status, json } = await rpc(version, 'resources/list');
    expect(status).toBe(200);
    const { resources } = json.result;
    expect(resources.map((r: { uri: string }) => r.uri)).toEqual(expectedUris());
    for (const r of resources) {
      expect(Object.keys(r).sort(), r.uri).toEqual(['description', 'mimeType', 'name', 'size', 'title', 'uri']);
      expect(r.name, r.uri).toMatch(/^[a-z][a-z0-9/-]*$/);
      expect(r.title.length, r.uri).toBeGreaterThan(3);
      expect(r.description.length, r.uri).toBeGreaterThan(20);
      expect(r.mimeType).toBe(r.uri.endsWith('.md') ? 'text/markdown' : 'application/json');
    }
    expect(new Set(resources.map((r: { name: string }) => r.name)).size).toBe(resources.length);
    if (version === MODERN)
      expect(json.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    else expect(Object.keys(json.result)).toEqual(['resources']);
  });

  it('resources/read of every resource: the text the site serves at its URI, of the listed type and size', async () => {
    const { resources } = (await rpc(version, 'resources/list')).json.result;
    for (const resource of resources) {
      const { status, json } = await rpc(version, 'resources/read', { uri: resource.uri });
      expect(status, resource.uri).toBe(200);
      const { contents, ...rest } = json.result;
      expect(contents, resource.uri).toEqual([
        { uri: resource.uri, mimeType: resource.mimeType, text: await served(resource.uri) },
      ]);
      expect(Buffer.byteLength(contents[0].text), resource.uri).toBe(resource.size);
      if (version === MODERN) {
        const dataset = DATASETS.some((d) => resource.uri === `${SITE}${endpointsOf(d).list.path}`);
        expect(rest, resource.uri).toMatchObject({
          resultType: 'complete',
          cacheScope: 'public',
          // A document holds for the deployment; a dataset's data as long as a browser keeps its REST answer.
          ttlMs: dataset ? cacheSeconds(DATA_CACHE_CONTROL, 'max-age') * 1000 : 3_600_000,
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'nz-rates' } },
        });
      } else expect(rest).toEqual({});
    }
  });

  it(`a URI no resource has: ${version === MODERN ? '-32602 (SEP-2164)' : '-32002'}, with the URI in data, never a 500`, async () => {
    for (const uri of [`${SITE}/docs/nope.md`, `${SITE}/api/v1/nope-rates`, 'rates://docs/quickstart', '']) {
      const { status, json } = await rpc(version, 'resources/read', { uri });
      expect(status, uri).toBe(200);
      expect(json.error, uri).toMatchObject({
        code: version === MODERN ? -32602 : -32002,
        message: expect.stringMatching(/^Resource not found: .*resources\/list lists the URIs/),
        data: { uri },
      });
    }
    const missing = await rpc(version, 'resources/read', {});
    expect(missing.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/needs params\.uri/) });
  });

  it('resources/templates/list is empty; a list given a cursor is -32602, as it never gives one', async () => {
    const { json } = await rpc(version, 'resources/templates/list');
    expect(json.result.resourceTemplates).toEqual([]);
    for (const method of ['resources/list', 'resources/templates/list', 'prompts/list']) {
      const { json: refused } = await rpc(version, method, { cursor: 'page-2' });
      expect(refused.error, method).toMatchObject({ code: -32602 });
    }
  });

  it('the official client lists and reads the same', async () => {
    const client =
      version === MODERN
        ? new Client({ name: 'rates-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
        : new Client({ name: 'rates-test', version: '1.0.0' }, { supportedProtocolVersions: [version] });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/v1/mcp`)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(expectedUris());
      for (const uri of [expectedUris()[1]!, `${SITE}/openapi/json`, expectedUris().at(-1)!]) {
        const { contents } = await client.readResource({ uri });
        expect(contents).toEqual([expect.objectContaining({ uri, text: await served(uri) })]);
      }
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      // The client reads -32002 and, from 2026-07-28, -32602 as the same not-found.
      await expect(client.readResource({ uri: `${SITE}/docs/nope.md` })).rejects.toBeInstanceOf(ResourceNotFoundError);
    } finally {
      await client.close();
    }
  });
});

describe('a method named like a member every object has', () => {
  it.each(VERSIONS)(
    '%s: constructor, toString and __proto__ are unknown methods (-32601), never a 500',
    async (version) => {
      for (const method of ['constructor', 'toString', '__proto__']) {
        const { status, json } = await rpc(version, method);
        expect(status, method).toBe(version === MODERN ? 404 : 200);
        expect(json.error.code, method).toBe(-32601);
      }
    },
  );
});

describe('a batch (2025-03-26 without a version header) reads resources and prompts as it calls tools', () => {
  it('answers each message in turn', async () => {
    const uri = `${SITE}${data.pages[1]!.mdUrl}`;
    const { status, json } = await postMcp(server.url, [
      { jsonrpc: '2.0', id: 'list', method: 'resources/list' },
      { jsonrpc: '2.0', id: 'read', method: 'resources/read', params: { uri } },
      { jsonrpc: '2.0', id: 'data', method: 'resources/read', params: { uri: expectedUris().at(-1) } },
      { jsonrpc: '2.0', id: 'nope', method: 'resources/read', params: { uri: `${SITE}/nope` } },
      { jsonrpc: '2.0', id: 'prompts', method: 'prompts/list' },
    ]);
    expect(status).toBe(200);
    expect(json.map((r: { id: string }) => r.id)).toEqual(['list', 'read', 'data', 'nope', 'prompts']);
    expect(json[0].result.resources).toHaveLength(expectedUris().length);
    expect(json[1].result.contents[0].text).toBe(await served(uri));
    expect(json[2].result.contents[0].text).toBe(await served(expectedUris().at(-1)!));
    expect(json[3].error.code).toBe(-32002);
    expect(json[4].result.prompts.length).toBeGreaterThan(0);
  });
});

describe('2026-07-28: Mcp-Name carries params.uri for resources/read and params.name for prompts/get', () => {
  const uri = () => `${SITE}${data.pages[1]!.mdUrl}`;
  const send = (method: string, params: Record<string, unknown>, name?: string) =>
    postMcp(
      server.url,
      { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) },
    );

  it.each([
    ['resources/read', () => ({ uri: uri() })],
    ['prompts/get', () => ({ name: 'what_changed_this_week', arguments: {} })],
  ])('%s: answered with Mcp-Name equal to the body; 400 -32020 without it or with another', async (method, params) => {
    const named = method === 'resources/read' ? uri() : 'what_changed_this_week';
    const right = await send(method, params(), named);
    expect(right.status).toBe(200);
    expect(right.json.result).toBeDefined();
    for (const name of [undefined, `${named}x`, 'tools/call']) {
      const { status, json } = await send(method, params(), name);
      expect(status, String(name)).toBe(400);
      expect(json.error.code, String(name)).toBe(-32020);
      expect(json.error.message).toMatch(method === 'resources/read' ? /params\.uri/ : /params\.name/);
    }
  });

  it('an unknown URI with its Mcp-Name is not-found (-32602), not a header mismatch', async () => {
    const { status, json } = await send('resources/read', { uri: `${SITE}/nope` }, `${SITE}/nope`);
    expect(status).toBe(200);
    expect(json.error.code).toBe(-32602);
  });

  it('a legacy request needs no Mcp-Name', async () => {
    const { json } = await postMcp(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: uri(), _meta: metaFor('2025-11-25') } },
      { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(json.result.contents[0].text).toBe(await served(uri()));
  });
});

describe('the documents are loaded once, by the first request that lists or reads a resource', () => {
  it('a session of tools alone never loads them', async () => {
    let loads = 0;
    const lazy = await serveService(
      await rawServiceOver(historyDir(), {
        mcp: {
          documents: async () => {
            loads++;
            return data.mcpDocuments;
          },
        },
      }),
    );
    try {
      for (const method of ['server/discover', 'tools/list', 'prompts/list', 'resources/templates/list'])
        expect((await sendMcp(lazy.url, modern(method))).status, method).toBe(200);
      const name = 'get_health';
      expect((await sendMcp(lazy.url, modern('tools/call', { name, arguments: {} }))).json.result).toBeDefined();
      expect(loads).toBe(0);
      await sendMcp(lazy.url, modern('resources/list'));
      await sendMcp(lazy.url, modern('resources/read', { uri: `${SITE}/docs.md` }));
      expect(loads).toBe(1);
    } finally {
      await lazy.close();
    }
  });
});

describe('a deployment that gives no documents', () => {
  it('lists and reads each dataset’s newest data alone', async () => {
    const bare = await serveService(await rawServiceOver(historyDir()));
    try {
      const { json } = await sendMcp(bare.url, modern('resources/list'));
      const uris = DATASETS.map((d) => `${SITE}${endpointsOf(d).list.path}`);
      expect(json.result.resources.map((r: { uri: string }) => r.uri)).toEqual(uris);
      const read = await sendMcp(bare.url, modern('resources/read', { uri: uris[0] }));
      expect(JSON.parse(read.json.result.contents[0].text)).toEqual(
        await (await fetch(`${bare.url}${endpointsOf(DATASETS[0]).list.path}`)).json(),
      );
      const docs = await sendMcp(bare.url, modern('resources/read', { uri: `${SITE}/docs.md` }));
      expect(docs.json.error.code).toBe(-32602);
    } finally {
      await bare.close();
    }
  });
});
