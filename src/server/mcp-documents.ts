/**
 * The docs pages and the OpenAPI document the build made for the MCP server's resources
 * (src/build/mcp-documents.ts), embedded. Imported only on the first MCP request that reads them
 * (runtime.ts), so the bundle keeps their text in a chunk a cold start serving REST never loads.
 */
import text from '@generated/mcp-documents.json?raw';
import type { McpDocument } from '../mcp/resources.ts';

export const MCP_DOCUMENTS = JSON.parse(text) as McpDocument[];
