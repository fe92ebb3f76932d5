/**
 * get_health and get_collection_status over a real socket, in every protocol version: the JSON of
 * GET /api/v1/health and GET /api/v1/status as text and (from 2025-06-18) structuredContent, the
 * outputSchema of the same zod schemas, the size their descriptions state, no argument taken; and
 * health's `error` (REST's 503) answered as the same body, a result rather than an isError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaOf } from '../src/mcp/tool.ts';
import { size } from '../src/mcp/sizes.ts';
import { HEALTH_PATH, STATUS_PATH } from '../src/paths.ts';
import { Health } from '../src/schemas/health.ts';
import { StatusFigures } from '../src/schemas/status.ts';
import { createService } from '../src/service.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { rawServiceOver } from './support/core.ts';
import { NOW, SITE } from './support/constants.ts';
import { historyDir, tempDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { MODERN, modern, postMcp, sendMcp, toolCall, VERSIONS } from './support/mcp.ts';

let server: Listening;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
});
afterAll(() => server?.close());

function call(base: string, version: string, name: string, args: Record<string, unknown> = {}) {
  if (version === MODERN) return sendMcp(base, modern('tools/call', { name, arguments: args }));
  return postMcp(base, toolCall(1, name, args), { 'mcp-protocol-version': version });
}

const TOOLS = [
  ['get_health', HEALTH_PATH, Health],
  ['get_collection_status', STATUS_PATH, StatusFigures],
] as const;

describe.each(VERSIONS)('at %s', (version) => {
  it.each(TOOLS)('%s answers the JSON of %s', async (name, path) => {
    const { json } = await call(server.url, version, name);
    const rest = await (await fetch(`${server.url}${path}`)).json();
    expect(json.result.isError).toBeUndefined();
    expect(json.result.content).toHaveLength(1);
    expect(JSON.parse(json.result.content[0].text)).toEqual(rest);
    if (version >= '2025-06-18') expect(json.result.structuredContent).toEqual(rest);
    else expect(json.result.structuredContent).toBeUndefined();
  });

  it.each(TOOLS)('%s takes no argument: one is a bad argument', async (name) => {
    const { json } = await call(server.url, version, name, { dataset: 'x' });
    if (version >= '2025-11-25') {
      expect(json.result.isError).toBe(true);
      const body = JSON.parse(json.result.content[0].text);
      expect(body).toMatchObject({ code: 400, error: 'invalid_request' });
      expect(body.hint).toBe(`${name} does not take "dataset". ${name} takes no arguments.`);
    } else {
      expect(json.error.code).toBe(-32602);
      expect(json.error.message).toContain(`${name} takes no arguments`);
    }
  });
});

describe('in tools/list', () => {
  it.each(TOOLS)(
    '%s: listed with its outputSchema, no arguments, and the size of its answer',
    async (name, path, schema) => {
      const { json } = await sendMcp(server.url, modern('tools/list'));
      const tool = json.result.tools.find((t: { name: string }) => t.name === name);
      expect(tool.outputSchema).toEqual(jsonSchemaOf(schema));
      expect(tool.inputSchema).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
      expect(tool.annotations.readOnlyHint).toBe(true);
      const bytes = Buffer.byteLength(await (await fetch(`${server.url}${path}`)).text());
      expect(tool.description).toContain(`Size: about ${size(bytes)}.`);
    },
  );
});

describe('health in error (the data cannot be read: REST answers 503)', () => {
  let broken: Listening;
  beforeAll(async () => {
    const service = createService({
      loadStore: async () => {
        throw new Error('the store is unreadable');
      },
      status: new FileStatusStore(await tempDir('rates-status-')),
      now: () => NOW,
      siteUrl: SITE,
      log: () => {}, // the failure is staged: nothing to report
    });
    broken = await serveService(service);
  });
  afterAll(() => broken?.close());

  it.each(VERSIONS)('%s: the same body as its result, not an isError', async (version) => {
    const response = await fetch(`${broken.url}${HEALTH_PATH}`);
    expect(response.status).toBe(503);
    const rest = await response.json();
    expect(rest.status).toBe('error');
    const { json } = await call(broken.url, version, 'get_health');
    expect(json.result.isError).toBeUndefined();
    expect(JSON.parse(json.result.content[0].text)).toEqual(rest);
    if (version >= '2025-06-18') expect(json.result.structuredContent).toEqual(rest);
  });
});
