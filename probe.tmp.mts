import { Server, createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
const make = () => {
  const s = new Server({ name: 'probe', version: '1.0.0' }, {
    capabilities: { tools: { listChanged: false } },
    instructions: 'hello',
    supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
    cacheHints: { 'tools/list': { ttlMs: 3600000, cacheScope: 'public' }, 'server/discover': { ttlMs: 3600000, cacheScope: 'public' } },
  });
  s.setRequestHandler('tools/list', async () => ({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }));
  s.setRequestHandler('tools/call', async (req, ctx) => { console.log('ctx keys', Object.keys(ctx), JSON.stringify((ctx as any).mcpReq ? Object.keys((ctx as any).mcpReq) : null)); return { content: [{ type: 'text', text: 'x' }] }; });
  return s;
};
const h = createMcpHandler(() => make(), { legacy: 'reject' });
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
async function send(body: any, headers: Record<string, string>) {
  const req = new Request('http://x/api/v1/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const legacy = await isLegacyRequest(req.clone());
  let res: Response;
  if (legacy) {
    const t = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const s = make(); await s.connect(t); res = await t.handleRequest(req);
  } else res = await h.fetch(req);
  console.log(legacy ? 'LEGACY' : 'MODERN', res.status, [...res.headers].map(x=>x.join('=')).join(' '), (await res.text()).slice(0, 400));
}
const modern = (method: string, params: any = {}, extra: Record<string,string> = {}) => send({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...extra });
await modern('server/discover');
await modern('tools/list');
await modern('tools/call', { name: 't', arguments: {} }, { 'mcp-name': 't' });
await modern('ping');
await send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }, { 'mcp-protocol-version': '2026-07-28' });
await send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } } }, { 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'tools/list' });
await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, {});
await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2023-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, {});
await send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't', arguments: {} } }, { 'mcp-protocol-version': '2025-06-18' });
await send([{ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { jsonrpc: '2.0', id: 3, method: 'ping' }], {});
await send({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': '2025-06-18' });
await send('{bad', {});
await send({ foo: 1 }, {});
