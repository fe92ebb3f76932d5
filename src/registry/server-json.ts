/**
 * `server.json`, the entry for MCP registries (the schema of modelcontextprotocol/registry): this
 * service as a remote server, Streamable HTTP at the site's MCP endpoint. Made from the site's
 * address (src/site.ts) and the package's name and version; `npm run build:server-json` writes it
 * at the repository root and a test fails when the committed file is stale.
 */
import { datasetsInWords } from '../datasets.ts';
import { CHECKED_HOURLY } from '../lib/collection-words.ts';
import { MCP_PATH } from '../endpoints.ts';

/** The schema the file follows, as the registry publishes it (vendored in test/fixtures/mcp-registry). */
export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** `https://rates.example.nz` → `nz.example.rates/nz-lending-rates`: the registry's reverse-DNS name. */
export function registryName(site: string): string {
  return `${new URL(site).hostname.split('.').reverse().join('.')}/nz-lending-rates`;
}

export function serverJson(site: string, version: string) {
  return {
    $schema: SERVER_SCHEMA,
    name: registryName(site),
    title: 'NZ lending rates',
    description: `New Zealand ${datasetsInWords()}, ${CHECKED_HOURLY}.`,
    version,
    websiteUrl: `${site}/docs/ai`,
    remotes: [{ type: 'streamable-http', url: `${site}${MCP_PATH}` }],
  };
}
