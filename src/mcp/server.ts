/**
 * One MCP server per request, built for a known protocol version, so tool behaviour can follow
 * the version (spec §4.7): `structuredContent` from 2025-06-18; a bad argument is an `isError`
 * result from 2025-11-25 and -32602 before; an unknown tool is -32601 "Tool not found" before
 * 2025-11-25 and -32602 from then on.
 */
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import type { Handler } from '../api/app.ts';
import { INVALID_REQUEST } from '../api/query.ts';
import { ApiError } from '../api/responses.ts';
import { inputSchemaOf, restUrl, TOOLS } from './tools.ts';
import { SERVER_INFO, INSTRUCTIONS } from './instructions.ts';

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/** The version a legacy request has when it sends no MCP-Protocol-Version header. */
export const HEADERLESS_VERSION = '2025-03-26';

const ONE_HOUR = { ttlMs: 60 * 60 * 1000, cacheScope: 'public' } as const;
const TOOL_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** Versions are dates, so they compare as strings. */
const atLeast = (version: string, since: string) => version >= since;

function toolList() {
  return TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }));
}

export function createRatesMcpServer(options: { api: Handler; version: string; site: string }): Server {
  const { api, version, site } = options;
  const modern = version === MODERN_VERSION;
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: modern ? [MODERN_VERSION] : [...LEGACY_VERSIONS],
    cacheHints: { 'server/discover': ONE_HOUR, 'tools/list': ONE_HOUR },
  });

  server.setRequestHandler('tools/list', async () => ({ tools: toolList() }));

  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args = {} } = request.params;
    const tool = TOOL_BY_NAME.get(name);
    if (!tool) {
      if (atLeast(version, '2025-11-25')) throw new ProtocolError(-32602, `Invalid params: there is no tool named ${JSON.stringify(name)}`);
      throw new ProtocolError(-32601, 'Tool not found');
    }

    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
      if (!atLeast(version, '2025-11-25')) throw new ProtocolError(-32602, `Invalid params: ${problems}`);
      const error = new ApiError('invalid_request', INVALID_REQUEST, `${problems}. Every argument is a string; see the tool's inputSchema.`);
      return { content: [{ type: 'text' as const, text: JSON.stringify(error.body(site)) }], isError: true };
    }

    let response: Response;
    try {
      response = await api(new Request(restUrl(tool, parsed.data as Record<string, string>, site)));
    } catch (error) {
      console.error('mcp: tool failed:', error);
      throw new ProtocolError(-32603, 'Internal error');
    }
    const text = await response.text();
    if (!response.ok) return { content: [{ type: 'text' as const, text }], isError: true };
    return {
      content: [{ type: 'text' as const, text }],
      ...(atLeast(version, '2025-06-18') ? { structuredContent: JSON.parse(text) as Record<string, unknown> } : {}),
    };
  });
  return server;
}
