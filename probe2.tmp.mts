import { Server, ProtocolError, ProtocolErrorCode, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
console.log(ProtocolErrorCode);
const make = () => {
  const s = new Server({ name: 'probe', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } }, supportedProtocolVersions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] });
  s.setRequestHandler('tools/list', async () => ({ tools: [] }));
  s.setRequestHandler('tools/call', async (req) => {
    if (req.params.name === 'a') throw new ProtocolError(-32601, 'Tool not found');
    if (req.params.name === 'b') throw new ProtocolError(-32602, 'Invalid params: x', { issues: [1] });
    throw new Error('boom /secret/path');
  });
  return s;
};
async function send(body: any, headers: Record<string, string>) {
  const req = new Request('http://x/api/v1/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  const t = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const s = make(); await s.connect(t); const res = await t.handleRequest(req);
  console.log(res.status, (await res.text()).slice(0, 300));
}
for (const name of ['a', 'b', 'c']) await send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }, { 'mcp-protocol-version': '2025-06-18' });
await send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' });
await send([{ jsonrpc: '2.0', id: 2, method: 'tools/list' }], { 'mcp-protocol-version': '2025-06-18' });
await send({ jsonrpc: '2.0', id: 1, method: 'nope' }, { 'mcp-protocol-version': '2025-06-18' });
await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '2025-11-25' });
const g = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true }); const s2 = make(); await s2.connect(g);
const r = await g.handleRequest(new Request('http://x/', { method: 'GET', headers: { accept: 'text/event-stream' } })); console.log('GET', r.status, await r.text());
