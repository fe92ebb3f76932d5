/** The whole /api/v1 surface as one `(Request) => Promise<Response>`: the REST core, and MCP beside it. */
import { createApi, type ApiDeps, type Handler } from './api/app.ts';
import type { McpCore, McpEndpointOptions } from './mcp/endpoint.ts';
import { siteUrl } from './site.ts';

export const MCP_PATH = '/api/v1/mcp';

/** The service, and its MCP endpoint without web objects, for a server that can call it directly (src/mcp/node.ts). */
export type Service = Handler & { mcpCore(): Promise<McpCore> };

export function createService(deps: ApiDeps, mcpOptions: McpEndpointOptions = {}): Service {
  const site = deps.siteUrl ?? siteUrl();
  const api = createApi({ ...deps, siteUrl: site });
  // The MCP module is loaded on the first MCP request, so a cold start serving REST does not pay for it.
  let mcp: Promise<{ core: McpCore; web: Handler }> | undefined;
  const loadMcp = () =>
    (mcp ??= import('./mcp/endpoint.ts').then((m) => {
      const core = m.createMcpCore(api, { siteUrl: site, ...mcpOptions });
      return { core, web: m.webHandler(core) };
    }));
  const service = async (request: Request) => {
    const path = new URL(request.url).pathname;
    return path === MCP_PATH || path === `${MCP_PATH}/` ? (await loadMcp()).web(request) : api(request);
  };
  return Object.assign(service, { mcpCore: async () => (await loadMcp()).core });
}
