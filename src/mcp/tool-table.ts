/**
 * The MCP tools, each declared once. `tools/list`, the instructions, the docs' tool table and the
 * tests read this table; to add a tool, write it (a `defineTool` of its own file, src/mcp/tool.ts
 * says what a tool is) and add its line here.
 */
import { DATASETS, type Dataset } from '../datasets.ts';
import { REST_TOOL_GROUPS, restToolsOf } from './rest-tools.ts';
import type { Tool } from './tool.ts';
import { BREAK_EVEN_TOOLS } from './tools/break-even.ts';
import { GET_COLLECTION_STATUS } from './tools/get-collection-status.ts';
import { GET_HEALTH } from './tools/get-health.ts';

/**
 * Tools that are not a twin of every dataset's, in the order `tools/list` gives them after the twins:
 * the twin of an endpoint only some datasets have (the break-even rates), the twins of health and
 * the status figures, and any tool of its own kind.
 */
export const OWN_TOOLS: readonly Tool[] = [...BREAK_EVEN_TOOLS, GET_HEALTH, GET_COLLECTION_STATUS];

/**
 * The twins, group by group (each group for every dataset, src/mcp/rest-tools.ts), then the tools of
 * their own: of the real dataset table by default, of a changed copy in a test.
 */
export const toolTableOf = (datasets: readonly Dataset[] = DATASETS): readonly Tool[] => [
  ...REST_TOOL_GROUPS.flatMap((kinds) => datasets.flatMap((dataset) => restToolsOf(dataset, kinds))),
  ...OWN_TOOLS,
];

export const TOOLS: readonly Tool[] = toolTableOf();

export const TOOL_BY_NAME: ReadonlyMap<string, Tool> = new Map(TOOLS.map((tool) => [tool.name, tool]));
