/** The whole /api/v1 surface as one `(Request) => Promise<Response>`: the REST core, and MCP beside it. */
import { createApi, type ApiDeps, type Handler } from './api/app.ts';
import type { McpEndpointOptions } from './mcp/endpoint.ts';
import { siteUrl } from './site.ts';

export const MCP_PATH = '/api/v1/mcp';

export function createService(deps: ApiDeps, mcpOptions: McpEndpointOptions = {}): Handler {
  const site = deps.siteUrl ?? siteUrl();
  const api = createApi({ ...deps, siteUrl: site });
  // The MCP SDK is loaded on the first MCP request, so a cold start serving REST does not pay for it.
  let mcp: Promise<Handler> | undefined;
  const loadMcp = () => (mcp ??= import('./mcp/endpoint.ts').then((m) => m.createMcpEndpoint(api, { siteUrl: site, ...mcpOptions })));
  return async (request) => {
    const path = new URL(request.url).pathname;
    return path === MCP_PATH || path === `${MCP_PATH}/` ? (await loadMcp())(request) : api(request);
  };
}
