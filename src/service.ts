/** The whole /api/v1 surface as one `(Request) => Promise<Response>`: the REST core, and MCP beside it. */
import { createApi, type ApiDeps, type Core, type Handler } from './api/app.ts';
import type { McpCore, McpEndpointOptions } from './mcp/endpoint.ts';
import { siteUrl } from './site.ts';
import { MCP_PATH } from './endpoints.ts';

export { MCP_PATH };

export const isMcpPath = (path: string) => path === MCP_PATH || path === `${MCP_PATH}/`;

/**
 * The service, with what a Node server can call without web objects: the REST core (its ready
 * answers, src/server/fast-path.ts) and the MCP endpoint's core (src/mcp/node.ts). MCP's tools
 * call the same REST core, so one set of ready answers serves both.
 */
export type Service = Handler & { rest: Core; mcpCore(): Promise<McpCore> };

export function createService(deps: ApiDeps, mcpOptions: McpEndpointOptions = {}): Service {
  const site = deps.siteUrl ?? siteUrl();
  const rest = createApi({ ...deps, siteUrl: site });
  // The MCP module is loaded on the first MCP request, so a cold start serving REST does not pay for it.
  let mcp: Promise<{ core: McpCore; web: Handler }> | undefined;
  const loadMcp = () =>
    (mcp ??= import('./mcp/endpoint.ts').then((m) => {
      const core = m.createMcpCore(rest, { siteUrl: site, log: deps.log, ...mcpOptions });
      return { core, web: m.webHandler(core) };
    }));
  const service = async (request: Request) =>
    isMcpPath(new URL(request.url).pathname) ? (await loadMcp()).web(request) : rest(request);
  return Object.assign(service, { rest, mcpCore: async () => (await loadMcp()).core });
}
