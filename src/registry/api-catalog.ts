/**
 * `/.well-known/api-catalog` (RFC 9727): where an agent that knows only the site's address finds
 * its APIs. A linkset (RFC 9264, JSON): the catalog lists the REST API and the MCP server as its
 * items, and each of them links its machine-readable description (`service-desc`), the docs for
 * people and for language models (`service-doc`) and the health endpoint (`status`). Absolute URLs
 * from the site's address (src/site.ts); built once with the site, a file like robots.txt.
 */
import { API_PREFIX, HEALTH_PATH, MCP_PATH } from '../paths.ts';

export const API_CATALOG_PATH = '/.well-known/api-catalog';

/** RFC 9727's type: a JSON linkset, with the profile saying it is an API catalog. */
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/** The link to the catalog (RFC 9727 asks for it on the catalog's HEAD; the home page carries it too). */
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

interface Target {
  href: string;
  type?: string;
  title?: string;
}

export function apiCatalog(site: string) {
  const to = (path: string, type?: string, title?: string): Target => ({
    href: `${site}${path}`,
    ...(type && { type }),
    ...(title && { title }),
  });
  const health = [to(HEALTH_PATH, 'application/json', 'Health: data freshness per dataset')];
  return {
    linkset: [
      {
        anchor: `${site}${API_CATALOG_PATH}`,
        item: [to(API_PREFIX, undefined, 'REST API (JSON, GET only)'), to(MCP_PATH, undefined, 'MCP server')],
      },
      {
        anchor: `${site}${API_PREFIX}`,
        'service-desc': [to('/openapi/json', 'application/json', 'OpenAPI 3.1 document')],
        'service-doc': [
          to('/docs', 'text/html', 'Documentation'),
          to('/llms.txt', 'text/plain', 'llms.txt: the docs as Markdown, for language models'),
        ],
        status: health,
      },
      {
        anchor: `${site}${MCP_PATH}`,
        'service-doc': [
          to('/docs/ai', 'text/html', 'AI integration: connecting, tools, limits'),
          to('/docs/ai.md', 'text/markdown', 'AI integration, as Markdown'),
        ],
        status: health,
      },
    ],
  };
}
