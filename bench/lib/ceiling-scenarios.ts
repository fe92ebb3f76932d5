/** The request kinds of the ceiling table (see ceilings.ts), the MCP call among them. */
import { MCP_PATH, modern } from '../../test/support/mcp.ts';
import type { CeilingScenario } from './ceilings.ts';

/** Issue 27's floor for the REST rows: ≥ 0.6 of the minimal-headers Node ceiling. */
const REST_FLOOR = { ratio: 0.6 };

export function ceilingScenarios(lastDate: string): CeilingScenario[] {
  return [
    { name: 'mortgage list', path: '/api/v1/mortgage-rates', floor: REST_FLOOR },
    { name: 'mortgage detail', path: '/api/v1/mortgage-rates/institution:anz', floor: REST_FLOOR },
    { name: 'list termInMonths=12', path: '/api/v1/mortgage-rates?termInMonths=12', floor: REST_FLOOR },
    { name: 'time series, one date', path: `/api/v1/mortgage-rates/time-series?date=${lastDate}`, floor: REST_FLOOR },
    { name: 'unknown institution (404)', path: '/api/v1/mortgage-rates/institution:nowhere', floor: REST_FLOOR },
    { name: 'health', path: '/api/v1/health' },
    {
      name: 'MCP tools/call list_mortgage_rates',
      path: MCP_PATH,
      ...modern('tools/call', { name: 'list_mortgage_rates', arguments: {} }),
      floor: { ratio: 0.35, relativeTo: 'mortgage list' },
    },
  ];
}
