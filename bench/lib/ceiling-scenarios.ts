/** The request kinds of the ceiling table (see ceilings.ts), the MCP call among them. */
import { MCP_PATH, modern } from '../../test/support/mcp.ts';
import type { CeilingScenario } from './ceilings.ts';

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
      path: MCP_PATH,
      ...modern('tools/call', { name: 'list_mortgage_rates', arguments: {} }),
    },
  ];
}
