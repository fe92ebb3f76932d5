/**
 * What the server says about itself, built once per process: the tool, resource and prompt lists
 * of each protocol version (as JSON text), the initialize and server/discover results, the
 * resources to read, and the sizes the tool descriptions and the resource list state. The sizes
 * come from the data this deployment serves (it changes only with a new deployment), measured
 * through the REST core on first use.
 */
import { DATASETS } from '../datasets.ts';
import { readUpTo } from '../lib/read-up-to.ts';
import { INSTRUCTIONS, SERVER_INFO } from './instructions.ts';
import { atLeast, LEGACY_VERSIONS, MODERN_VERSION, SERVER_INFO_KEY, SUPPORTED_VERSIONS } from './protocol.ts';
import { measureSizes, size, sizeNote, type DatasetSizes } from './sizes.ts';
import { PROMPTS, promptEntry } from './prompts.ts';
import { resourcesOf, type McpDocument, type Resource } from './resources.ts';
import type { RestForTools } from './tool.ts';
import { TOOLS } from './tool-table.ts';

/** Nothing a deployment serves changes while it runs, so no list changes and there is nothing to subscribe to. */
const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
};
/** 2026-07-28 cache hints (SEP-2549): the lists and the build's documents hold for the deployment, an hour is a safe hint. */
export const ONE_HOUR = { ttlMs: 60 * 60 * 1000, cacheScope: 'public' } as const;
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
  /** The result (JSON text) of tools/list, resources/templates/list, prompts/list, initialize or server/discover in a version. */
  toolsList(version: string): string;
  templatesList(version: string): string;
  promptsList(version: string): string;
  initialize(version: string): string;
  discover: string;
  /** Every tool as the 2026-07-28 list gives it. */
  tools: readonly Record<string, unknown>[];
  /**
   * The resources, with the build's documents: loaded on the first request that lists or reads
   * one, so a session of tools alone never loads the documents' text.
   */
  resources(): Promise<Resources>;
}

export interface Resources {
  /** The result (JSON text) of resources/list in a version. */
  list(version: string): string;
  /** Every resource, by URI. */
  byUri: ReadonlyMap<string, Resource>;
}

interface Measured {
  sizes: ReadonlyMap<string, DatasetSizes | undefined>;
  /** Bytes of the answers the tools of no dataset state (`measured`), by request. */
  answers: ReadonlyMap<string, number | undefined>;
}

const cacheable = (result: object) =>
  `${JSON.stringify({ ...result, ...ONE_HOUR }).slice(0, -1)},${MODERN_RESULT_FIELDS}}`;

/** A result as each version gives it: cacheable on 2026-07-28, plain before. */
function byVersion(result: object): (version: string) => string {
  const legacy = JSON.stringify(result);
  const modern = cacheable(result);
  return (version) => (version === MODERN_VERSION ? modern : legacy);
}

function buildResources(documents: readonly McpDocument[], sizes: Measured['sizes'], site: string): Resources {
  const resources = resourcesOf(documents, sizes, site);
  const entries = resources.map(({ uri, name, title, description, mimeType, size }) => ({
    uri,
    name,
    title,
    description,
    mimeType,
    ...(size === undefined ? {} : { size }),
  }));
  return {
    list: byVersion({ resources: entries }),
    byUri: new Map(resources.map((resource) => [resource.uri, resource])),
  };
}

function buildCatalog(
  { sizes, answers }: Measured,
  documents: () => Promise<readonly McpDocument[]>,
  site: string,
): Catalog {
  const answerNote = (target: string | undefined) => {
    const bytes = target === undefined ? undefined : answers.get(target);
    return bytes === undefined ? '' : ` Size: about ${size(bytes)}.`;
  };
  const toolsOf = (version: string) =>
    TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description:
        tool.description +
        (tool.dataset && tool.sizes ? sizeNote(tool.dataset, tool.sizes, sizes.get(tool.dataset.slug), site) : '') +
        answerNote(tool.measured),
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
  lists.set(MODERN_VERSION, cacheable({ tools: modernTools }));
  let resources: Promise<Resources> | undefined;
  return {
    sizes,
    toolsList: (version) => lists.get(version)!,
    templatesList: byVersion({ resourceTemplates: [] }),
    promptsList: byVersion({ prompts: PROMPTS.map(promptEntry) }),
    initialize: (version) => initializes.get(version)!,
    discover: cacheable({
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: CAPABILITIES,
      instructions: INSTRUCTIONS,
    }),
    tools: modernTools,
    resources: () =>
      (resources ??= documents()
        .then((docs) => buildResources(docs, sizes, site))
        .catch((error: unknown) => {
          resources = undefined; // the documents failed to load: try again on the next request
          throw error;
        })),
  };
}

/**
 * The catalog, measured once, with the build's documents to load when a resource is asked for
 * (none where the deployment gives none); a failed measurement (no data yet) is tried again on
 * the next request.
 */
export function catalogLoader(
  rest: RestForTools,
  site: string,
  documents: () => Promise<readonly McpDocument[]> = async () => [],
): () => Promise<Catalog> {
  let catalog: Promise<Catalog> | undefined;
  const targets = [...new Set(TOOLS.flatMap((tool) => (tool.measured === undefined ? [] : [tool.measured])))];
  return () =>
    (catalog ??= Promise.all([
      Promise.all(
        DATASETS.map(
          async (d) =>
            [d.slug, await measureSizes(d, (target) => textOf(rest, target)).catch(() => undefined)] as const,
        ),
      ),
      Promise.all(
        targets.map(async (target) => {
          const text = await textOf(rest, target).catch(() => undefined);
          return [target, text === undefined ? undefined : Buffer.byteLength(text)] as const;
        }),
      ),
    ]).then(([entries, answers]) => {
      const sizes = new Map(entries);
      if ([...sizes.values()].some((s) => s === undefined)) catalog = undefined;
      return buildCatalog({ sizes, answers: new Map(answers) }, documents, site);
    }));
}
