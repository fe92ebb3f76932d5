/** The whole /api/v1 surface as one `(Request) => Promise<Response>`: the REST core, and MCP beside it. */
import { createApi, type ApiDeps, type Handler } from './api/app.ts';
import { createMcpEndpoint, MCP_PATH, type McpEndpointOptions } from './mcp/endpoint.ts';

export function createService(deps: ApiDeps, mcpOptions: McpEndpointOptions = {}): Handler {
  const api = createApi(deps);
  const mcp = createMcpEndpoint(api, mcpOptions);
  return (request) => (new URL(request.url).pathname.replace(/\/$/, '') === MCP_PATH ? mcp(request) : api(request));
}
