/** The request kinds of the ceiling table (issue #16), the MCP call among them. */
import type { CeilingScenario } from './ceilings.ts';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

export function ceilingScenarios(lastDate: string): CeilingScenario[] {
  return [
    { name: 'mortgage list', path: '/api/v1/mortgage-rates' },
    { name: 'mortgage detail', path: '/api/v1/mortgage-rates/institution:anz' },
    { name: 'list termInMonths=12', path: '/api/v1/mortgage-rates?termInMonths=12' },
    { name: 'time series, one date', path: `/api/v1/mortgage-rates/time-series?date=${lastDate}` },
    { name: 'unknown institution (404)', path: '/api/v1/mortgage-rates/institution:nowhere' },
    { name: 'health', path: '/api/v1/health' },
    {
      name: 'MCP tools/call list_mortgage_rates',
      path: '/api/v1/mcp',
      method: 'POST',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_mortgage_rates', arguments: {}, _meta: META },
      }),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'list_mortgage_rates',
      },
    },
  ];
}
