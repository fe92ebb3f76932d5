/**
 * The OpenAPI document describes every answer. Real requests to every path of the document, with
 * every method it lists and some it does not, good and bad parameters, conditional and HEAD
 * requests, preflights, MCP messages of every kind, a store and an index that cannot be read, and
 * the refusals `npm start`'s server writes before any endpoint: in process through the service as
 * deployed (request ids stamped), and over real sockets through `npm start`'s server and API
 * listener, content coding on. Each answer's status, headers and body are checked against the
 * document (test/support/openapi-answers.ts), and every response the document lists must have
 * answered at least once. Then the stability page's closed and open objects are the document's.
 */
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { alertsEndpointOf } from '../src/api/alerts.ts';
import { breakEvenEndpointOf } from '../src/api/break-even.ts';
import { changesEndpointOf } from '../src/changes/endpoint.ts';
import { DATASETS } from '../src/datasets.ts';
import { endpointsOf, HEALTH_PATH } from '../src/endpoints.ts';
import { ALERTS_FEED_FILE, FEEDS_PREFIX, INSTITUTIONS_PATH, STATUS_PATH } from '../src/paths.ts';
import { createSearchCore } from '../src/docs/search.ts';
import { buildSearchIndex } from '../src/docs/search-index.ts';
import { withRequestIds } from '../src/http/request-id.ts';
import { createMcpCore } from '../src/mcp/endpoint.ts';
import { LIMITS } from '../src/mcp/protocol.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { createApiListener } from '../src/server/api-listener.ts';
import { DEFAULT_LIMITS, type ServerLimits } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import { createService, type Service } from '../src/service.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { ORIGIN, ROOT, SITE } from './support/constants.ts';
import { rawServiceOver } from './support/core.ts';
import { historyDir, tempDir } from './support/history.ts';
import { decodedText, nodeRequest, serveMcpCore } from './support/http.ts';
import { JSON_HEADERS, MCP_PATH, modern, toolCall } from './support/mcp.ts';
import { documentOverHistory } from './support/openapi.ts';
import { DocumentCheck, type SeenAnswer } from './support/openapi-answers.ts';
import { head, openSocket, rawRequest } from './support/raw-http.ts';

interface Ask {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

let doc: any;
let check: DocumentCheck;
const problems: string[] = [];
const closers: (() => unknown)[] = [];

/** The service as deployed, in process: REST, MCP and search, request ids stamped by the outermost layer. */
let core: Handler;
/** The same with an MCP allow-list of hosts that a request without Host is not on (403). */
let hostBound: Handler;
/** A service whose store and search index cannot be read (500, health 503). */
let broken: Handler;

/** `npm start`'s server around the production API listener, with pages answering "page". */
async function npmStartServer(service: Service, limits: ServerLimits = DEFAULT_LIMITS) {
  const server = createNodeServer({
    api: createApiListener(service, { stampRequestIds: true, site: SITE }),
    pages: async (_req, res) => void res.end('page'),
    limits,
    site: SITE,
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port };
}
/** With content coding, as `npm start` runs the service. */
let coded: { url: string; port: number };
/** Low limits, so that each refusal is quick to provoke. */
let tight: { url: string; port: number };
const TIGHT: ServerLimits = {
  ...DEFAULT_LIMITS,
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  maxBodyBytes: 100,
  maxHeaderBytes: 2048,
  maxConnections: 2,
  maxConnectionsPerClient: 2,
  maxConnectionsPerNetwork: 2,
};

const search = (index: () => Promise<string>) => createSearchCore(index, SITE, () => {});

beforeAll(async () => {
  const over = await documentOverHistory();
  doc = over.doc;
  check = new DocumentCheck(doc, over.ajv);
  const working = search(async () => buildSearchIndex([]));
  core = withRequestIds(await rawServiceOver(historyDir(), { search: working }));
  hostBound = withRequestIds(await rawServiceOver(historyDir(), { mcp: { allowedHosts: ['localhost'] } }));
  broken = withRequestIds(
    createService(
      {
        loadStore: () => Promise.reject(new Error('store unreadable')),
        status: new FileStatusStore(await tempDir('rates-status-')),
        siteUrl: SITE,
        log: () => {},
      },
      { search: search(() => Promise.reject(new Error('index unreadable'))) },
    ),
  );
  coded = await npmStartServer(await rawServiceOver(historyDir(), { coding: true, search: working }));
  tight = await npmStartServer(await rawServiceOver(historyDir(), { search: working }), TIGHT);
}, 120_000);
afterAll(() => {
  for (const close of closers) close();
});

const flat = (headers: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
  );

/** One request in process; its answer checked against the document. */
async function inProcess(handler: Handler, ask: Ask): Promise<SeenAnswer> {
  const response = await handler(
    new Request(`${ORIGIN}${ask.target}`, { method: ask.method, headers: ask.headers, body: ask.body }),
  );
  const answer: SeenAnswer = {
    ...ask,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
    via: 'core',
  };
  problems.push(...check.problems(answer));
  return answer;
}

/** One request over a socket to `base`; its answer checked against the document. */
async function overSocket(base: string, ask: Ask): Promise<SeenAnswer> {
  const received = await nodeRequest(`${base}${ask.target}`, {
    method: ask.method,
    headers: ask.headers,
    body: ask.body,
    agent: false,
  });
  const answer: SeenAnswer = {
    ...ask,
    status: received.status,
    headers: flat(received.headers),
    body: received.body.length === 0 ? '' : decodedText(received),
    via: 'socket',
  };
  problems.push(...check.problems(answer));
  return answer;
}

/** Raw bytes to a port (a refusal no client would provoke); the answer checked as a request of `method target`. */
async function raw(port: number, method: string, target: string, bytes: string | string[], waitMs = 5000) {
  const received = await rawRequest(port, bytes, waitMs);
  const answer: SeenAnswer = {
    method,
    target,
    status: received.status,
    headers: received.headers,
    body: received.body,
    via: 'socket',
  };
  problems.push(...check.problems(answer));
  return answer;
}

const METHODS = ['get', 'post', 'delete', 'options'] as const;
const operations = () =>
  Object.entries(doc.paths).flatMap(([template, item]: [string, any]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ template, method, op: item[method] })),
  );

/** A template's path with its parameter filled: the example entity, or one never listed. */
function pathsOf(template: string): string[] {
  const param = /\{([^}]+)\}/.exec(template)?.[1];
  if (!param) return [template];
  const dataset = DATASETS.find((d) => template.includes(`/${d.slug}/`))!;
  return [dataset.exampleEntityId, `${dataset.entity.prefix}:no-such-lender`].map((id) =>
    template.replace(`{${param}}`, id),
  );
}

/** The requests a GET operation is asked with: its examples' requests, each path, an unknown and a malformed parameter. */
function getRequests(template: string, op: any): string[] {
  const examples = Object.values(op.responses).flatMap((r: any) =>
    Object.values(r.content ?? {}).flatMap((m: any) =>
      Object.values(m.examples ?? {}).map((e: any) => String(e.summary ?? '')),
    ),
  );
  const shown = examples.filter((s) => s.startsWith('GET ')).map((s) => s.slice(4));
  const paths = pathsOf(template);
  // The first example's request for a lender never listed, where the operation takes one.
  const dataset = DATASETS.find((d) => template.includes(`/${d.slug}`));
  const unknown =
    dataset && shown[0] && (op.parameters ?? []).some((p: any) => p.in === 'query' && p.name === dataset.entity.param)
      ? [
          `${shown[0]}${shown[0].includes('?') ? '&' : '?'}${dataset.entity.param}=${dataset.entity.prefix}:no-such-lender`,
        ]
      : [];
  const malformed = (op.parameters ?? [])
    .filter((p: any) => p.in === 'query' && p.schema?.pattern)
    .map((p: any) => `${paths[0]}?${p.name}=%21`);
  return [
    ...new Set([...shown, ...unknown, ...paths, `${paths[0]}?colour=blue`, `${paths[0]}?date=nope`, ...malformed]),
  ];
}

const SEARCH = [
  '/api/search?query=rates',
  '/api/search?query=rates&limit=2',
  '/api/search',
  '/api/search?query=x&limit=0',
  '/api/search?colour=blue',
];
/** The JSON feed an Atom feed's path is the twin of. */
const ATOM = /^\/feeds\/([^/]+)\/alerts\.atom$/;

/** Every request a GET operation is asked with, its first a success where it has examples. */
function targetsOf(template: string, op: any): string[] {
  if (template === '/api/search') return SEARCH;
  const feed = ATOM.exec(template);
  if (!feed) return getRequests(template, op);
  // The Atom twin of each JSON feed request: the same query.
  const json = `/api/v1/${feed[1]}/alerts`;
  return getRequests(json, doc.paths[json].get).map((target) => target.replace(json, template));
}

/** What every path is asked, in process and over a socket (content coding asked for there). */
async function everyPath(ask: (a: Ask) => Promise<SeenAnswer>, coding: boolean) {
  const acceptEncoding: Record<string, string> = coding ? { 'accept-encoding': 'br, gzip' } : {};
  for (const [template, item] of Object.entries(doc.paths) as [string, any][]) {
    // Its preflights, plain and asking for a header; MCP's other methods are among its messages.
    for (const path of pathsOf(template)) {
      await ask({ method: 'OPTIONS', target: path });
      await ask({
        method: 'OPTIONS',
        target: path,
        headers: { origin: 'https://elsewhere.example', 'access-control-request-headers': 'x-request-id' },
      });
    }
    if (template === MCP_PATH) continue;
    for (const target of targetsOf(template, item.get)) {
      const answer = await ask({ method: 'GET', target, headers: acceptEncoding });
      await ask({ method: 'HEAD', target, headers: acceptEncoding });
      if (answer.headers.etag)
        await ask({ method: 'GET', target, headers: { ...acceptEncoding, 'if-none-match': answer.headers.etag } });
    }
    // Methods the path does not take.
    for (const other of ['POST', 'PUT', 'PATCH', 'DELETE']) await ask({ method: other, target: pathsOf(template)[0]! });
  }
}

/** MCP messages of every kind the endpoint answers. */
function mcpRequests(): Ask[] {
  const [tool] = TOOLS;
  const post = (body: unknown, headers: Record<string, string> = {}): Ask => ({
    method: 'POST',
    target: MCP_PATH,
    headers: { ...JSON_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const asModern = (request: ReturnType<typeof modern>): Ask => ({ ...request, target: MCP_PATH });
  const legacy = { 'mcp-protocol-version': '2025-06-18' };
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'contract', version: '1' } },
  };
  return [
    asModern(modern('server/discover')),
    asModern(modern('tools/list')),
    asModern(modern('tools/call', { name: tool!.name, arguments: tool!.example })),
    asModern(modern('tools/call', { name: 'no_such_tool', arguments: {} })),
    asModern(modern('no/such/method')),
    asModern(modern('tools/list', {}, { headers: { 'mcp-method': 'tools/call' } })),
    asModern(modern('tools/list', {}, { meta: {} })),
    post(initialize),
    post(toolCall(2, tool!.name, tool!.example), legacy),
    post({ jsonrpc: '2.0', id: 3, method: 'no/such/method' }, legacy),
    post([
      initialize,
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]),
    post([{ jsonrpc: '2.0', method: 'notifications/initialized' }]),
    post({ jsonrpc: '2.0', method: 'notifications/initialized' }, legacy),
    post('{"jsonrpc": "2.0", "id": 1, "method": ', legacy),
    post({ hello: 'world' }, legacy),
    post([], legacy),
    post(initialize, { accept: 'application/json' }),
    post(initialize, { 'content-type': 'text/plain' }),
    post(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(LIMITS.bodyBytes)}"}}`, legacy),
    { method: 'GET', target: MCP_PATH, headers: { accept: 'text/event-stream' } },
    { method: 'DELETE', target: MCP_PATH },
    { method: 'HEAD', target: MCP_PATH },
    { method: 'PUT', target: MCP_PATH, headers: JSON_HEADERS, body: JSON.stringify(initialize) },
    { method: 'PATCH', target: MCP_PATH, headers: JSON_HEADERS, body: '{}' },
  ];
}

describe('the OpenAPI document describes every answer', () => {
  it('in process: every path, every method, good and bad parameters, conditional, HEAD, preflights and MCP', async () => {
    problems.length = 0;
    await everyPath((ask) => inProcess(core, ask), false);
    for (const ask of mcpRequests()) await inProcess(core, ask);
    // MCP's Host allow-list: a request naming no allowed host, whatever its method.
    for (const method of ['POST', 'GET', 'DELETE'])
      await inProcess(hostBound, {
        method,
        target: MCP_PATH,
        headers: JSON_HEADERS,
        body: method === 'POST' ? '{}' : undefined,
      });
    // A store and an index that cannot be read: each GET operation's first request.
    for (const { template, method, op } of operations())
      if (method === 'get' && template !== MCP_PATH)
        await inProcess(broken, { method: 'GET', target: targetsOf(template, op)[0]! });
    expect(problems).toEqual([]);
  }, 300_000);

  it("over sockets through npm start's server: the same, coded, and the refusals written before any endpoint", async () => {
    problems.length = 0;
    await everyPath((ask) => overSocket(coded.url, ask), true);
    for (const ask of mcpRequests())
      await overSocket(coded.url, { ...ask, headers: { ...ask.headers, 'accept-encoding': 'gzip' } });
    // A failure inside the MCP endpoint: 500, -32603.
    const failing = await serveMcpCore(
      createMcpCore(
        {
          kept: () => {
            throw new Error('kept answers unreadable');
          },
          get: () => Promise.reject(new Error('unreadable')),
        },
        { siteUrl: SITE, log: () => {} },
      ),
    );
    closers.push(() => failing.close());
    const [tool] = TOOLS;
    const failed = await overSocket(failing.url, {
      ...modern('tools/call', { name: tool!.name, arguments: tool!.example }),
      target: MCP_PATH,
    });
    expect(failed.status).toBe(500);

    // The refusals of npm start's server, each on a documented path: a request it cannot read
    // (framing, Host — on every path, preflights too), one sent too slowly, a body or headers
    // over the limits, an expectation it does not meet, and too many connections.
    const refusals: [number, SeenAnswer][] = [];
    const refuse = async (status: number, answer: Promise<SeenAnswer>) => refusals.push([status, await answer]);
    for (const { template, method } of operations())
      for (const path of pathsOf(template).slice(0, 1))
        await refuse(
          400,
          raw(
            tight.port,
            method.toUpperCase(),
            path,
            head(`${method.toUpperCase()} ${path} HTTP/1.1`, { host: 'u@h' }),
          ),
        );
    const health = HEALTH_PATH;
    await refuse(
      400,
      raw(
        tight.port,
        'GET',
        health,
        `GET ${health} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`,
      ),
    );
    await refuse(408, raw(tight.port, 'GET', health, `GET ${health} HTTP/1.1\r\nHost: 127.0.0.1\r\n`, 5000));
    await refuse(413, raw(tight.port, 'GET', health, head(`GET ${health} HTTP/1.1`, { 'content-length': '1000' })));
    await refuse(417, raw(tight.port, 'GET', health, head(`GET ${health} HTTP/1.1`, { expect: 'something-else' })));
    await refuse(
      431,
      raw(tight.port, 'GET', health, head(`GET ${health} HTTP/1.1`, { 'x-padding': 'x'.repeat(4096) })),
    );
    const held = await Promise.all([openSocket(tight.port), openSocket(tight.port)]);
    await refuse(503, raw(tight.port, 'GET', health, head(`GET ${health} HTTP/1.1`)));
    for (const socket of held) socket.destroy();
    expect(refusals.map(([, a]) => a.status)).toEqual(refusals.map(([status]) => status));
    expect(refusals.find(([, a]) => a.status === 503)?.[1].headers['retry-after']).toMatch(/^\d+$/);
    expect(problems).toEqual([]);
  }, 300_000);

  it('has a path for each the service answers: per dataset its endpoints, change log, alerts and Atom feed, and break-even rates where it has fixed terms; health, status, the registry, search, MCP', () => {
    const routed = [
      ...DATASETS.flatMap((d) => [
        ...Object.values(endpointsOf(d)).map((e) => e.path),
        changesEndpointOf(d).path,
        alertsEndpointOf(d).path,
        `${FEEDS_PREFIX}/${d.slug}/${ALERTS_FEED_FILE}`,
        // Only a dataset whose measures are fixed terms has break-even rates.
        ...(breakEvenEndpointOf(d) ? [breakEvenEndpointOf(d)!.path] : []),
      ]),
      HEALTH_PATH,
      STATUS_PATH,
      INSTITUTIONS_PATH,
      '/api/search',
      MCP_PATH,
    ];
    expect(Object.keys(doc.paths).sort()).toEqual(routed.sort());
  });

  it('every response the document lists has answered, and no path or method of it went unasked', () => {
    const unanswered = check.documented().filter((key) => !key.endsWith(' default') && !check.answered.has(key));
    expect(unanswered).toEqual([]);
  });
});

/** The objects of a schema (dereferenced), each with where it is; a record's value counts, the record itself is a map. */
function objectsOf(schema: any, path = ''): { path: string; additionalProperties: unknown }[] {
  if (!schema || typeof schema !== 'object') return [];
  const here = schema.properties ? [{ path: path || '(top)', additionalProperties: schema.additionalProperties }] : [];
  const inner = [
    ...Object.entries(schema.properties ?? {}).flatMap(([name, s]) => objectsOf(s, `${path}.${name}`)),
    ...objectsOf(schema.items, `${path}[]`),
    ...(schema.additionalProperties && typeof schema.additionalProperties === 'object' && !schema.properties
      ? objectsOf(schema.additionalProperties, `${path}{}`)
      : []),
    ...(schema.anyOf ?? schema.oneOf ?? []).flatMap((s: any, i: number) => objectsOf(s, `${path}|${i}`)),
  ];
  return [...here, ...inner];
}

describe('one promise: closed rate answers, and the open objects the stability page names', () => {
  const section = async () => {
    const page = await readFile(join(ROOT, 'content/docs/stability.md'), 'utf8');
    const start = page.indexOf('## Where new fields may appear');
    return page.slice(start, page.indexOf('\n## ', start + 1));
  };
  /** The page's `/api…` paths, `<dataset>` and `<id>` made each dataset's, as the document writes them. */
  const pathsIn = (text: string) =>
    [...text.matchAll(/`(\/api[^`]*)`/g)].flatMap(([, path]) =>
      path!.includes('<dataset>')
        ? DATASETS.map((d) => path!.replace('<dataset>', d.slug).replace('<id>', `{${d.entity.param}}`))
        : [path!],
    );
  const jsonSuccesses = () =>
    operations().flatMap(({ template, method, op }) =>
      Object.entries(op.responses)
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([, r]: [string, any]) => Object.entries(r.content ?? {}))
        .filter(([type]) => type.endsWith('json'))
        .map(([, media]: [string, any]) => ({ template, method, schema: media.schema })),
    );

  it('names every path with a JSON answer once, closed or open', async () => {
    const text = await section();
    const [closedText, openText] = text.split('Every object of the other answers is open');
    const closed = pathsIn(closedText!);
    const open = pathsIn(openText!);
    const answered = [...new Set(jsonSuccesses().map((s) => s.template))];
    expect([...closed, ...open].sort()).toEqual(answered.sort());
    expect(closed.filter((p) => open.includes(p))).toEqual([]);
  });

  it('the document closes every object of the rate answers and of the error body, and closes none of the others', async () => {
    const text = await section();
    const closed = new Set(pathsIn(text.split('Every object of the other answers is open')[0]!));
    for (const { template, method, schema } of jsonSuccesses()) {
      const objects = objectsOf(schema);
      expect(objects.length, template).toBeGreaterThan(0);
      if (closed.has(template))
        expect(
          objects.filter((o) => o.additionalProperties !== false).map((o) => o.path),
          `${method} ${template}`,
        ).toEqual([]);
      else
        expect(
          objects.filter((o) => o.additionalProperties === false).map((o) => o.path),
          `${method} ${template}`,
        ).toEqual([]);
    }
    expect(objectsOf(doc.components.schemas.Error).map((o) => o.additionalProperties)).toEqual([false]);
    // The page's words for the two marks are the document's.
    expect(text).toContain('`additionalProperties: false`');
    expect(text).toContain('`additionalProperties: {}`');
    expect(objectsOf(doc.components.schemas.Health)[0]!.additionalProperties).toEqual({});
  });
});
