/**
 * Property-based tests over the MCP endpoint: random and malformed JSON-RPC bodies (wrong types
 * everywhere, deep nesting, huge strings, batches of thousands, ids of every JSON type), header
 * combinations and versions. Never a 5xx or a crash; only the documented JSON-RPC error codes; bodies
 * over the limit get 413.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Handler } from '../src/api/app.ts';
import { DATASETS } from '../src/datasets.ts';
import { MAX_MCP_BODY_BYTES } from '../src/mcp/endpoint.ts';
import { TOOLS } from '../src/mcp/tool-table.ts';
import { createService } from '../src/service.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { servedStoreOf } from '../src/store/history-build.ts';
import { UnconfiguredStatusStore } from '../src/status/status-store.ts';
import { withoutFsReads } from './support/no-fs-reads.ts';
import { NOW } from './support/constants.ts';
import { historyDir } from './support/history.ts';
import { JSON_HEADERS, metaFor, VERSIONS } from './support/mcp.ts';

vi.mock('node:fs', async (real) => (await import('./support/no-fs-reads.ts')).guarded(await real()));
vi.mock('node:fs/promises', async (real) => (await import('./support/no-fs-reads.ts')).guarded(await real()));

let mcp: Handler;
const seen = { requests: 0, status: new Map<number, number>(), codes: new Map<number, number>() };
/**
 * The error codes the endpoint may answer (listed on the docs site, /docs/ai#errors): JSON-RPC's
 * own, the MCP header and version codes, and -32000 for transport refusals (405, 406, 415).
 */
const CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32020, -32022, -32000]);

beforeAll(async () => {
  const store = servedStoreOf(await compileSnapshotTree(historyDir()));
  for (const dataset of DATASETS) await store.history(dataset.slug);
  mcp = createService({ loadStore: async () => store, status: new UnconfiguredStatusStore(false), now: () => NOW });
  // Warm the MCP module outside the no-read block: loading code is not a request reading data.
  await mcp(new Request('http://localhost/api/v1/mcp', { method: 'GET' }));
});

afterAll(() => {
  console.log(
    `fuzz-mcp: ${seen.requests} requests; statuses ${JSON.stringify(Object.fromEntries([...seen.status].sort()))}; error codes ${JSON.stringify(Object.fromEntries([...seen.codes].sort()))}`,
  );
});

const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'server/discover',
  'notifications/initialized',
  'resources/list',
  'nope',
];
/** Every tool, and one that does not exist. */
const TOOL_NAMES = [...TOOLS.map((t) => t.name), 'list_no_such_rates'];

const anyId = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 10 }),
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const anything = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.string({ minLength: 10_000, maxLength: 50_000 }));
/** Deep nesting as text, so it reaches the server's parser as sent (JSON.stringify here would overflow first). */
const deepText = fc
  .tuple(
    fc.integer({ min: 1_000, max: 60_000 }),
    fc.constantFrom('[]', '{}'),
    fc.constantFrom('params', 'arguments', 'id', 'body'),
  )
  .map(([n, pair, where]) => {
    const nested = pair === '[]' ? '['.repeat(n) + ']'.repeat(n) : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    if (where === 'body') return nested;
    if (where === 'id') return `{"jsonrpc":"2.0","id":${nested},"method":"ping"}`;
    if (where === 'params') return `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${nested}}`;
    return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${TOOLS[0]!.name}","arguments":{"x":${nested}}}}`;
  });
const params = fc.oneof(
  anything,
  fc.record(
    {
      name: fc.oneof(fc.constantFrom(...TOOL_NAMES), anything),
      arguments: fc.oneof(
        fc.record(
          {
            institutionId: fc.oneof(fc.string(), anything),
            termInMonths: fc.oneof(fc.constantFrom('12', '007', '1'.repeat(300)), anything),
            date: fc.oneof(fc.constant('2025-03-05'), anything),
          },
          { requiredKeys: [] },
        ),
        anything,
      ),
      protocolVersion: fc.oneof(fc.constantFrom(...VERSIONS, '1999-01-01'), anything),
      capabilities: fc.oneof(fc.constant({}), anything),
      clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), anything),
      _meta: fc.oneof(fc.constantFrom(...VERSIONS).map(metaFor), anything),
    },
    { requiredKeys: [] },
  ),
);
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), anything),
    id: anyId,
    method: fc.oneof(fc.constantFrom(...METHODS), anything),
    params,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  { arbitrary: message.map((m) => JSON.stringify(m)), weight: 6 },
  { arbitrary: fc.array(message, { minLength: 1, maxLength: 150 }).map((b) => JSON.stringify(b)), weight: 1 },
  {
    arbitrary: fc
      .integer({ min: 101, max: 4000 })
      .map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))),
    weight: 1,
  },
  { arbitrary: fc.string({ maxLength: 200 }), weight: 1 },
  { arbitrary: deepText, weight: 1 },
  {
    arbitrary: fc
      .integer({ min: MAX_MCP_BODY_BYTES - 10, max: MAX_MCP_BODY_BYTES * 2 })
      .map((n) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(n) } })),
    weight: 1,
  },
);
const headers = fc.record(
  {
    'mcp-protocol-version': fc.oneof(
      fc.constantFrom(...VERSIONS, '2024-10-07', 'latest', ''),
      fc.stringMatching(/^[ -~]{0,20}$/),
    ),
    'mcp-method': fc.oneof(fc.constantFrom(...METHODS), fc.stringMatching(/^[ -~]{0,20}$/)),
    'mcp-name': fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.stringMatching(/^[ -~]{0,20}$/)),
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/xml',
    ),
    accept: fc.constantFrom(
      'application/json, text/event-stream',
      'application/json',
      'text/event-stream',
      '*/*',
      'text/html',
    ),
    'mcp-session-id': fc.string({ maxLength: 20 }).filter((s) => /^[ -~]*$/.test(s)),
  },
  { requiredKeys: [] },
);
const method = fc.oneof(
  { arbitrary: fc.constant('POST'), weight: 10 },
  { arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD'), weight: 1 },
);

/** A request that gets past the transport (right media types, headers that agree), with random method, tool and arguments. */
const coherent = fc
  .record({
    version: fc.constantFrom(...VERSIONS),
    rpc: fc.constantFrom(...METHODS),
    tool: fc.constantFrom(...TOOL_NAMES),
    args: fc.oneof(
      fc.record(
        {
          institutionId: fc.oneof(
            fc.constantFrom('institution:anz', 'nobody', 'ANZ'),
            fc.string({ unit: 'binary', maxLength: 8 }),
          ),
          termInMonths: fc.oneof(fc.constantFrom('12', '18', '007'), anything),
        },
        { requiredKeys: [] },
      ),
      anything,
    ),
    id: anyId,
  })
  .map(({ version, rpc, tool, args, id }) => {
    const modern = version === '2026-07-28';
    const callParams: Record<string, unknown> =
      rpc === 'tools/call'
        ? { name: tool, arguments: args }
        : rpc === 'initialize'
          ? { protocolVersion: version, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }
          : {};
    if (modern) callParams._meta = metaFor(version);
    const headers: Record<string, string> = { ...JSON_HEADERS };
    if (modern || version >= '2025-06-18') headers['mcp-protocol-version'] = version;
    if (modern) {
      headers['mcp-method'] = rpc;
      if (rpc === 'tools/call') headers['mcp-name'] = tool;
    }
    return { text: JSON.stringify({ jsonrpc: '2.0', id, method: rpc, params: callParams }), headers, method: 'POST' };
  });
const chaotic = fc
  .tuple(body, headers, method)
  .map(([text, h, m]) => ({ text, headers: h as Record<string, string>, method: m }));

describe('the MCP endpoint under random and malformed messages', () => {
  it('never answers 5xx, answers JSON-RPC errors with the documented codes, and refuses oversized bodies with 413', async () => {
    const { reads } = await withoutFsReads(() =>
      fc.assert(
        fc.asyncProperty(
          fc.oneof({ arbitrary: coherent, weight: 2 }, { arbitrary: chaotic, weight: 3 }),
          async ({ text, headers: h, method: m }) => {
            const init: RequestInit = { method: m, headers: h };
            if (m !== 'GET' && m !== 'HEAD') init.body = text;
            const response = await mcp(new Request('http://localhost/api/v1/mcp', init));
            seen.requests++;
            seen.status.set(response.status, (seen.status.get(response.status) ?? 0) + 1);
            expect(response.status).toBeLessThan(500);
            expect(response.headers.get('mcp-session-id')).toBeNull();
            if (Buffer.byteLength(text) > MAX_MCP_BODY_BYTES && m === 'POST') expect(response.status).toBe(413);
            const out = await response.text();
            if (!out) {
              expect([202, 204, 405]).toContain(response.status);
              return;
            }
            const parsed = JSON.parse(out);
            for (const reply of Array.isArray(parsed) ? parsed : [parsed]) {
              expect(reply.jsonrpc).toBe('2.0');
              if (reply.error) {
                seen.codes.set(reply.error.code, (seen.codes.get(reply.error.code) ?? 0) + 1);
                expect(CODES.has(reply.error.code), JSON.stringify(reply.error)).toBe(true);
                expect(reply.error.code, `internal error for ${text.slice(0, 300)} ${JSON.stringify(h)}`).not.toBe(
                  -32603,
                );
                expect(typeof reply.error.message).toBe('string');
              } else expect(reply.result).toBeTypeOf('object');
            }
          },
        ),
        { numRuns: 2500 },
      ),
    );
    expect(reads).toEqual([]);
    expect(seen.status.get(413) ?? 0).toBeGreaterThan(0);
    expect(seen.status.get(200) ?? 0, 'the fuzzer reaches real tool results').toBeGreaterThan(150);
  }, 240_000);
});
