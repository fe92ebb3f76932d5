/**
 * What the server says about itself, built once per process: the tool list of each protocol
 * version (as JSON text), the initialize and server/discover results, and the sizes the tool
 * descriptions state. The sizes come from the data this deployment serves (it changes only with a
 * new deployment), measured through the REST core on first use.
 */
import { DATASETS, type Dataset } from '../datasets.ts';
import { endpointsOf } from '../endpoints.ts';
import { INSTRUCTIONS, SERVER_INFO } from './instructions.ts';
import {
  atLeast,
  LEGACY_VERSIONS,
  LIMITS,
  mib,
  MODERN_VERSION,
  SERVER_INFO_KEY,
  SUPPORTED_VERSIONS,
} from './protocol.ts';
import { TOOLS, type ToolDefinition } from './tools.ts';
import type { RestForTools } from './server.ts';
import { readUpTo } from '../lib/read-up-to.ts';

export interface DatasetSizes {
  /** Bytes of the newest snapshot of every entity (the list result). */
  snapshotBytes: number;
  entities: number;
  snapshots: number;
  firstDate: string;
  lastDate: string;
  /** The longest startDate–endDate range that fits in one result wherever it falls (Infinity: the whole history fits). */
  safeDays: number;
  /** The same for one entity (institutionId or issuerId given). */
  safeDaysOne: number;
}

const CAPABILITIES = { tools: { listChanged: false } };
const ONE_HOUR = { ttlMs: 60 * 60 * 1000, cacheScope: 'public' } as const;
/** What every 2026-07-28 result carries. */
export const MODERN_RESULT_FIELDS = `"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_KEY]: SERVER_INFO })}`;

const kb = (bytes: number) =>
  bytes < 1024 ? `${Math.max(1, Math.round(bytes / 100) / 10)} KB` : `${Math.round(bytes / 1024)} KB`;
const mb = (bytes: number) => (bytes < 1024 * 1024 ? kb(bytes) : `${Math.round((bytes / 2 ** 20) * 10) / 10} MB`);
const dayNumber = (date: string) => Math.round(Date.parse(date) / 86_400_000);

/**
 * How many days any startDate–endDate range may span and still fit in one result, wherever it
 * falls: with at most `k` snapshots fitting (an allowance of 20 % for older, larger snapshots),
 * the shortest span holding k + 1 of them.
 */
function safeDaysOf(dates: string[], snapshotBytes: number): number {
  const k = Math.floor(LIMITS.resultBytes / (Math.max(1, snapshotBytes) * 1.2));
  let fewest = Infinity;
  for (let i = 0; i + k < dates.length; i++) fewest = Math.min(fewest, dayNumber(dates[i + k]!) - dayNumber(dates[i]!));
  return Math.max(1, fewest);
}

/** About how many days of every entity's snapshots fit in one result. */
export const daysThatFit = (sizes: DatasetSizes) => sizes.safeDays;

/** The sentence a too-large time series is answered with, and the one its description ends with. */
export function narrowing(dataset: Dataset, sizes: DatasetSizes | undefined): string {
  const { param, kind } = dataset.entity;
  if (!sizes) return `pass ${param} for one ${kind}, or a shorter startDate–endDate range`;
  const range = `a startDate–endDate range of about ${daysThatFit(sizes)} days or less`;
  if (!Number.isFinite(sizes.safeDaysOne)) return `pass ${param} for one ${kind}, or ${range}`;
  return `pass ${range}, or ${param} for one ${kind} with a range of about ${sizes.safeDaysOne} days or less`;
}

function sizeNote(tool: ToolDefinition, sizes: DatasetSizes | undefined): string {
  if (!sizes) return '';
  const { kind } = tool.endpoint.dataset.entity;
  const one = sizes.snapshotBytes / Math.max(1, sizes.entities);
  if (tool.kind === 'list')
    return ` Size: about ${kb(sizes.snapshotBytes)} (${sizes.entities} ${kind === 'issuer' ? 'issuers' : 'institutions'}).`;
  if (tool.kind === 'detail') return ` Size: about ${kb(one)}.`;
  const whole = sizes.snapshots * sizes.snapshotBytes;
  return (
    ` Sizes: one snapshot of every ${kind} is about ${kb(sizes.snapshotBytes)}, of one ${kind} about ${kb(one)}; ` +
    `there are ${sizes.snapshots} snapshots (${sizes.firstDate} to ${sizes.lastDate}), about ${mb(whole)} in all. ` +
    `One result may hold at most ${mib(LIMITS.resultBytes)}` +
    (Number.isFinite(sizes.safeDays)
      ? `: for a longer period, ${narrowing(tool.endpoint.dataset, sizes)}.`
      : '; the whole history fits.')
  );
}

/** A whole REST answer's text, or undefined unless it is a 200. */
async function textOf(rest: RestForTools, target: string): Promise<string | undefined> {
  const { status, body } = await rest.get(target);
  if (status !== 200) return undefined;
  if (body === null || body instanceof Uint8Array) return Buffer.from(body ?? []).toString('utf8');
  return (await readUpTo(body, Number.POSITIVE_INFINITY))?.toString('utf8');
}

async function measure(rest: RestForTools, dataset: Dataset): Promise<DatasetSizes | undefined> {
  const endpoints = endpointsOf(dataset);
  const [listText, seriesText] = await Promise.all([
    textOf(rest, endpoints.list.path),
    textOf(rest, endpoints.timeSeries.path),
  ]);
  if (listText === undefined || seriesText === undefined) return undefined;
  const { availableDates } = JSON.parse(seriesText) as { availableDates: string[] };
  if (availableDates.length === 0) return undefined;
  const snapshotBytes = Buffer.byteLength(listText);
  const entities = (JSON.parse(listText) as { data: unknown[] }).data.length;
  return {
    snapshotBytes,
    safeDays: safeDaysOf(availableDates, snapshotBytes),
    safeDaysOne: safeDaysOf(availableDates, snapshotBytes / entities),
    entities,
    snapshots: availableDates.length,
    firstDate: availableDates[0]!,
    lastDate: availableDates.at(-1)!,
  };
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

export function buildCatalog(sizes: ReadonlyMap<string, DatasetSizes | undefined>): Catalog {
  const toolsOf = (version: string) =>
    TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description + sizeNote(tool, sizes.get(tool.endpoint.dataset.slug)),
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
export function catalogLoader(rest: RestForTools): () => Promise<Catalog> {
  let catalog: Promise<Catalog> | undefined;
  return () =>
    (catalog ??= Promise.all(
      DATASETS.map(async (d) => [d.slug, await measure(rest, d).catch(() => undefined)] as const),
    ).then((entries) => {
      const sizes = new Map(entries);
      if ([...sizes.values()].some((s) => s === undefined)) catalog = undefined;
      return buildCatalog(sizes);
    }));
}
