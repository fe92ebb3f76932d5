/**
 * What the MCP server offers as resources from the build (src/mcp/resources.ts): every docs page's
 * Markdown, the text its `.md` twin serves, and the OpenAPI document, the text /openapi/json
 * serves. Written beside them (src/build/generated-files.ts) for the API function to embed.
 */
import type { DocPage } from '../docs/pages.ts';
import type { McpDocument } from '../mcp/resources.ts';

export function mcpDocuments(pages: readonly DocPage[], openapi: object): McpDocument[] {
  return [
    ...pages.map((page) => ({
      path: page.mdUrl,
      name: page.slug ? `docs/${page.slug}` : 'docs',
      title: page.title,
      description: page.description,
      mimeType: 'text/markdown',
      text: page.markdown,
    })),
    {
      path: '/openapi/json',
      name: 'openapi',
      title: 'OpenAPI document',
      description:
        'The OpenAPI 3.1 document of every REST endpoint, with real example answers: the contract whose answers the tools return.',
      mimeType: 'application/json',
      // The same text as the generated openapi.json that /openapi/json serves (generated-files.ts writes JSON.stringify).
      text: JSON.stringify(openapi),
    },
  ];
}
