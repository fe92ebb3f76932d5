/**
 * The MCP resources: every docs page as Markdown and the OpenAPI document, which the build makes
 * (src/build/mcp-documents.ts) and the deployment hands the endpoint (McpEndpointOptions
 * `documents`), then each dataset's newest data, the JSON of its list endpoint, read through the
 * REST core when asked for.
 *
 * A resource's URI is its address on the site, where the same text is served: `<site>/docs/quickstart.md`,
 * `<site>/openapi/json`, `<site>/api/v1/<dataset>`. So a URI opens in a browser and a client may
 * fetch it without MCP, which is when the MCP spec keeps the `https` scheme for a resource, and
 * it stays the same for as long as the page or endpoint does (/docs/stability).
 */
import { DATASETS } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import { listToolName } from './rest-tools.ts';
import type { DatasetSizes } from './sizes.ts';

/** A text the build made, offered as a resource: a docs page's Markdown, the OpenAPI document. */
export interface McpDocument {
  /** Where the site serves the same text (`/docs/quickstart.md`, `/openapi/json`): the URI's path. */
  path: string;
  /** A short identifier (`docs/quickstart`, `openapi`). */
  name: string;
  title: string;
  description: string;
  /** The media type the site serves it as, without parameters (`text/markdown`, `application/json`). */
  mimeType: string;
  text: string;
}

/** What resources/list says of a resource. */
export interface ResourceEntry {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** Bytes of its text in UTF-8, when known (a dataset's, once its sizes are measured). */
  size?: number;
}

/** A resource and where its text comes from: the build's text, or the REST request whose answer it is. */
export type Resource = ResourceEntry & ({ text: string } | { target: string });

/** Every resource: the documents, in the order given, then each dataset's newest data, in the table's order. */
export function resourcesOf(
  documents: readonly McpDocument[],
  sizes: ReadonlyMap<string, DatasetSizes | undefined>,
  site: string,
): Resource[] {
  return [
    ...documents.map(({ path, text, ...entry }) => ({
      uri: `${site}${path}`,
      ...entry,
      size: Buffer.byteLength(text),
      text,
    })),
    ...DATASETS.map((dataset) => {
      const { path } = endpointsOf(dataset).list;
      const size = sizes.get(dataset.slug)?.snapshotBytes;
      return {
        uri: `${site}${path}`,
        name: dataset.slug,
        title: `${dataset.title}, the newest`,
        description:
          `The newest ${dataset.label} of every New Zealand ${dataset.entity.kind}, as last collected: the same JSON as ` +
          `GET ${path} and the ${listToolName(dataset)} tool, each ${dataset.entity.kind} with its id.`,
        mimeType: 'application/json',
        ...(size === undefined ? {} : { size }),
        target: path,
      };
    }),
  ];
}

/** What resources/read says of a URI no resource has. */
export const unknownResourceMessage = (uri: string, count: number) =>
  `Resource not found: ${JSON.stringify(uri.slice(0, 200))}. resources/list lists the URIs of the ${count} resources.`;
