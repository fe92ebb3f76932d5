/**
 * What the server says about itself, built once per process: the tool list of each protocol
 * version (as JSON text), the initialize and server/discover results, and the sizes the tool
 * descriptions state. The sizes come from the data this deployment serves (it changes only with a
 * new deployment), measured through the REST core on first use.
 */
import { DATASETS } from '../datasets.ts';
import { readUpTo } from '../lib/read-up-to.ts';
import { INSTRUCTIONS, SERVER_INFO } from './instructions.ts';
import { atLeast, LEGACY_VERSIONS, MODERN_VERSION, SERVER_INFO_KEY, SUPPORTED_VERSIONS } from './protocol.ts';
import { measureSizes, sizeNote, type DatasetSizes } from './sizes.ts';
import type { RestForTools } from './tool.ts';
import { TOOLS } from './tool-table.ts';

const CAPABILITIES = { tools: { listChanged: false } };
const ONE_HOUR = { ttlMs: 60 * 60 * 1000, cacheScope: 'public' } as const;
/** What every 2026-07-28 result carries. */
export const MODERN_RESULT_FIELDS = `"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_KEY]: SERVER_INFO })}`;

/** A whole REST answer's text, or undefined unless it is a 200. */
async function textOf(rest: RestForTools, target: string): Promise<string | undefined> {
  const { status, body } = await rest.get(target);
  if (status !== 200) return undefined;
  if (body === null || body instanceof Uint8Array) return Buffer.from(body ?? []).toString('utf8');
  return (await readUpTo(body, Number.POSITIVE_INFINITY))?.toString('utf8');
}

export interface Catalog {
  sizes: ReadonlyMap<string, DatasetSizes | undefined>;
  /** The result (JSON text) of tools/list, initialize or server/discover in a version. */
  toolsList(version: string): string;
  initialize(version: string): string;
  discover: string;
  /** Every tool as the 2026-07-28 list gives it. */
  tools: readonly Record<string, unknown>[];
}

function buildCatalog(sizes: ReadonlyMap<string, DatasetSizes | undefined>, site: string): Catalog {
  const toolsOf = (version: string) =>
    TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description:
        tool.description +
        (tool.dataset && tool.sizes ? sizeNote(tool.dataset, tool.sizes, sizes.get(tool.dataset.slug), site) : ''),
      inputSchema: tool.inputSchema,
      // structuredContent exists from 2025-06-18, and with it outputSchema.
      ...(atLeast(version, '2025-06-18') ? { outputSchema: tool.outputSchema } : {}),
      annotations: {
        title: tool.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    }));
  const lists = new Map<string, string>();
  const initializes = new Map<string, string>();
  for (const version of LEGACY_VERSIONS) {
    lists.set(version, JSON.stringify({ tools: toolsOf(version) }));
    initializes.set(
      version,
      JSON.stringify({
        protocolVersion: version,
        capabilities: CAPABILITIES,
        serverInfo: SERVER_INFO,
        instructions: INSTRUCTIONS,
      }),
    );
  }
  const modernTools = toolsOf(MODERN_VERSION);
  const cacheable = (result: object) =>
    `${JSON.stringify({ ...result, ...ONE_HOUR }).slice(0, -1)},${MODERN_RESULT_FIELDS}}`;
  lists.set(MODERN_VERSION, cacheable({ tools: modernTools }));
  return {
    sizes,
    toolsList: (version) => lists.get(version)!,
    initialize: (version) => initializes.get(version)!,
    discover: cacheable({
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: CAPABILITIES,
      instructions: INSTRUCTIONS,
    }),
    tools: modernTools,
  };
}

/** The catalog, measured once; a failed measurement (no data yet) is tried again on the next request. */
export function catalogLoader(rest: RestForTools, site: string): () => Promise<Catalog> {
  let catalog: Promise<Catalog> | undefined;
  return () =>
    (catalog ??= Promise.all(
      DATASETS.map(
        async (d) => [d.slug, await measureSizes(d, (target) => textOf(rest, target)).catch(() => undefined)] as const,
      ),
    ).then((entries) => {
      const sizes = new Map(entries);
      if ([...sizes.values()].some((s) => s === undefined)) catalog = undefined;
      return buildCatalog(sizes, site);
    }));
}
