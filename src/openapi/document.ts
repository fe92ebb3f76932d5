/**
 * The OpenAPI 3.1 document of the REST contract, generated from the same zod schemas the API
 * validates with and the same endpoint table it routes with, with real examples from the core.
 */
// The package has no "exports" map, so Node would load its CommonJS build, which requires the
// CommonJS copy of zod: a second zod whose registry our schemas are not in. Its ESM build shares ours.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi/dist/index.mjs';
import { z } from 'zod';
import { DATASETS, datasetsInWords, filtersOf } from '../datasets.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { lowestSchemaOf } from '../explorer/lowest.ts';
import { COLLECTION_WORDS } from '../lib/collection-words.ts';
import { endpointsOf, entityIdParam, HEALTH_PATH, MCP_PATH, operationId, type DataEndpoint } from '../endpoints.ts';
import { serverErrorKey, type Example, type ExampleSet } from '../examples.ts';
import { ErrorBody } from '../schemas/errors.ts';
import { Health } from '../schemas/health.ts';
import { StatusFigures } from '../schemas/status.ts';
import { INSTITUTIONS_PATH, STATUS_PATH } from '../paths.ts';
import { InstitutionsResponse } from '../schemas/institutions.ts';
import { WINDOW_DAYS } from '../status/figures.ts';
import { SearchQuery, SearchResponse } from '../schemas/search.ts';
import { openToNewFields } from '../schemas/open.ts';
import { registerChangesPath } from './changes.ts';
import { registerAlertsPath } from './alerts.ts';
import { alertsOperationId } from '../api/alerts.ts';
import { changesOperationId } from '../changes/endpoint.ts';
import { LEGACY_VERSIONS, LIMITS, MODERN_VERSION } from '../mcp/protocol.ts';
import { MAX_TIME_SERIES_SNAPSHOTS } from '../api/time-series.ts';
import { TOOLS } from '../mcp/tool-table.ts';

const kib = (bytes: number) => `${bytes / 1024} KiB`;
const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

const JSON_TYPE = 'application/json';

const SUMMARY: Record<DataEndpoint['kind'], (d: DataEndpoint['dataset']) => string> = {
  list: (d) => `List ${d.label}`,
  detail: (d) => `Get ${d.label} by ${d.entity.kind}`,
  timeSeries: (d) => `Get ${d.label} time series`,
  lowest: (d) => `Get the lowest ${d.label}`,
};

const DESCRIPTION: Record<DataEndpoint['kind'], (d: DataEndpoint['dataset']) => string> = {
  list: (d) => `The newest ${d.label} of every ${d.entity.kind}.`,
  detail: (d) =>
    `The newest ${d.label} of one ${d.entity.kind}. The id is matched case-insensitively; an unknown id is a 404 \`${d.entity.notFound}\`.`,
  timeSeries: (d) =>
    `Earlier ${d.label} from daily snapshots. \`date\` gives one snapshot (404 \`no_data\` when that date has none); ` +
    '`startDate` with `endDate` gives every snapshot of the inclusive range. With no date parameter the answer is 200 with an ' +
    'empty `timeSeries`, a `message` and `availableDates`. A snapshot exists only for dates when rates changed. ' +
    `One answer holds at most ${MAX_TIME_SERIES_SNAPSHOTS.toLocaleString('en')} snapshots, sent as a stream; a longer range is a 400 ` +
    '`invalid_request` whose `hint` names the first part to ask for.' +
    (d.ignoredTimeSeriesParams.length ? ` \`${d.ignoredTimeSeriesParams.join('`, `')}\` is accepted and ignored.` : ''),
  lowest: (d) => {
    const { path, measures } = EXPLORER[d.slug];
    const filters = filtersOf(d, 'lowest').map((f) => `\`${f.name}\` filters the offers as on the list. `);
    return (
      `The lowest ${d.label} of the newest snapshot open to anyone, per measure (${measures.map((m) => `\`${m.key}\``).join(', ')}), ` +
      `as the rates explorer at /rates/${path} shows them: every offer that makes it, and in \`restricted\` the offers below it ` +
      'that are not open to anyone, each with whom it is for (/docs/concepts#best-rates-and-restricted-offers). ' +
      `A measure no offer open to anyone has is left out. ${filters.join('')}` +
      `\`${d.entity.param}\` keeps one ${d.entity.kind}'s offers; one not in the newest snapshot is a 404 \`${d.entity.notFound}\`.`
    );
  },
};

/** `{ name: { summary, value } }` examples for one status, or nothing. */
function examplesFor(list: Example[] | undefined, status: number) {
  const matching = (list ?? []).filter((e) => e.status === status);
  if (matching.length === 0) return {};
  return {
    examples: Object.fromEntries(
      matching.map((e, i) => {
        const body = e.body as { error?: string; message?: string };
        const name = body.error
          ? `${body.error}${matching.filter((m) => (m.body as { error?: string }).error === body.error).length > 1 ? `_${i}` : ''}`
          : i === 0
            ? 'example'
            : `example_${i}`;
        return [name, { summary: `GET ${e.request}`, value: e.body }];
      }),
    ),
  };
}

const errorResponse = (description: string, list: Example[] | undefined, status: number) => ({
  description,
  content: { [JSON_TYPE]: { schema: COMPONENTS.error, ...examplesFor(list, status) } },
});

/**
 * An endpoint's query parameters as the document lists them: those it takes, and those it
 * accepts and ignores (`ignoredQuery`), described as such.
 */
function documentedQuery(endpoint: DataEndpoint): z.ZodObject {
  if (endpoint.ignoredQuery.length === 0) return endpoint.query;
  const { kind, param } = endpoint.dataset.entity;
  return endpoint.query.extend(
    Object.fromEntries(
      endpoint.ignoredQuery.map((name) => [
        name,
        z
          .string()
          .optional()
          .describe(`Accepted and ignored: data of every ${kind} is returned (to keep one ${kind}, use ${param}).`),
      ]),
    ),
  );
}

/**
 * The component schemas: the API's own zod schemas, named with zod's `.meta({ id })`. Named once
 * per process, because zod's registry refuses an id given twice. The rate answers and the error
 * body are closed; the others may gain fields and are published open (src/schemas/open.ts; the
 * lowest rates and the change log are opened where they are made).
 */
const COMPONENTS = {
  error: ErrorBody.meta({ id: 'Error' }),
  health: openToNewFields(Health).meta({ id: 'Health' }),
  status: openToNewFields(StatusFigures).meta({ id: 'StatusFigures' }),
  institutions: openToNewFields(InstitutionsResponse).meta({ id: 'Institutions' }),
  search: openToNewFields(SearchResponse).meta({ id: 'SearchResponse' }),
  datasets: Object.fromEntries(
    DATASETS.map((d) => [
      d.slug,
      {
        envelope: d.schemas.envelope.meta({ id: d.type }),
        timeSeries: d.schemas.timeSeries.meta({ id: d.timeSeriesType }),
        lowest: lowestSchemaOf(d).meta({ id: `${d.type}Lowest` }),
      },
    ]),
  ),
};

export function buildOpenApiDocument(options: { site: string; examples: ExampleSet }) {
  const { examples } = options;
  const registry = new OpenAPIRegistry();
  const error = COMPONENTS.error;

  for (const dataset of DATASETS) {
    const schemas = COMPONENTS.datasets[dataset.slug]!;
    const schemaOf = {
      list: schemas.envelope,
      detail: schemas.envelope,
      timeSeries: schemas.timeSeries,
      lowest: schemas.lowest,
    };
    for (const endpoint of Object.values(endpointsOf(dataset))) {
      const id = operationId(endpoint);
      const found = examples[id];
      registry.registerPath({
        method: 'get',
        path: endpoint.path,
        operationId: id,
        tags: [dataset.title],
        summary: SUMMARY[endpoint.kind](dataset),
        description: DESCRIPTION[endpoint.kind](dataset),
        request: {
          ...(endpoint.pathParam ? { params: z.object({ [endpoint.pathParam]: entityIdParam(dataset) }) } : {}),
          query: documentedQuery(endpoint),
        },
        responses: {
          200: {
            description: `${dataset.title}, with the terms of use.`,
            content: {
              [JSON_TYPE]: { schema: schemaOf[endpoint.kind], ...examplesFor(found, 200) },
            },
          },
          400: errorResponse(
            endpoint.kind === 'timeSeries'
              ? '`invalid_request`: a malformed parameter, a parameter this endpoint does not use, or a date rule broken.'
              : '`invalid_request`: a malformed parameter, or a parameter this endpoint does not use.',
            found,
            400,
          ),
          ...(endpoint.kind === 'list'
            ? {}
            : {
                404: errorResponse(
                  endpoint.kind === 'timeSeries'
                    ? `\`no_data\` or \`${dataset.entity.notFound}\``
                    : `\`${dataset.entity.notFound}\``,
                  found,
                  404,
                ),
              }),
          500: errorResponse(
            `\`server_error\`: the data could not be read; retry, and read ${HEALTH_PATH} if it persists.`,
            examples[serverErrorKey(id)],
            500,
          ),
        },
      });
    }
    // The change log's 500 example is its own request's answer too (registerChangesPath reads `serverError`).
    const changesServerError = examples[serverErrorKey(changesOperationId(dataset))] ?? [];
    registerChangesPath(
      registry,
      dataset,
      { ...examples, serverError: changesServerError },
      { examplesFor, errorResponse },
    );
    registerAlertsPath(
      registry,
      dataset,
      { ...examples, serverError: examples[serverErrorKey(alertsOperationId(dataset))] ?? [] },
      { examplesFor, errorResponse },
    );
  }

  const health = COMPONENTS.health;
  registry.registerPath({
    method: 'get',
    path: HEALTH_PATH,
    operationId: 'getHealth',
    tags: ['Service'],
    summary: 'Service health and data freshness',
    description:
      'Whether the snapshot store can be read, and per dataset `lastUpdated` (last change of the data), `lastChecked` (last successful collection) ' +
      'and `stale` (no successful collection in 3 hours). An old `lastUpdated` with `stale: false` means rates did not change; with `stale: true`, collection is failing. ' +
      'It also compares what the collector last found (`lastChanged`) with what this deployment serves (`deployment`: `behind` when a change collected over 30 minutes ago is not served), ' +
      'reports the collection status store (`collection`), and lists in `problems` every reason the status is not `ok`.',
    responses: {
      200: {
        description: '`ok`, or `degraded` with its reasons in `problems`.',
        content: { [JSON_TYPE]: { schema: health, ...examplesFor(examples.getHealth, 200) } },
      },
      400: errorResponse('`invalid_request`: health takes no query parameters.', examples.getHealth, 400),
      503: {
        description: '`error`: the snapshot store cannot be read.',
        content: { [JSON_TYPE]: { schema: health, ...examplesFor(examples.getHealth, 503) } },
      },
    },
  });

  registry.registerPath({
    method: 'get',
    path: STATUS_PATH,
    operationId: 'getStatus',
    tags: ['Service'],
    summary: 'Collection reliability per dataset',
    description:
      `Each dataset's collection over the last ${WINDOW_DAYS} days of hourly runs (the run log): \`successShare\` of its runs that succeeded (\`ok\` or \`unchanged\`), ` +
      '`hoursSinceLastGood`, `longestGapHours` between two good runs, `refusals` counted by the rule they broke, and the `institutions` and `rates` ' +
      'its good runs listed (the newest, the least and the most). Every dataset is present; one no recorded run collected has `runs: 0`, null figures and a `message` ' +
      '(as on a server with no collector), never zeros read as success. Never cached: it is counted to the time of the request. /docs/deploying#reliability-figures.',
    responses: {
      200: {
        description: 'The figures, or, with no run recorded, every dataset saying so.',
        content: { [JSON_TYPE]: { schema: COMPONENTS.status, ...examplesFor(examples.getStatus, 200) } },
      },
      400: errorResponse('`invalid_request`: the status takes no query parameters.', examples.getStatus, 400),
    },
  });

  registry.registerPath({
    method: 'get',
    path: INSTITUTIONS_PATH,
    operationId: 'listInstitutions',
    tags: ['Lenders'],
    summary: 'Every institution and issuer',
    description:
      'Every institution and card issuer any snapshot of any dataset has listed, once per id, also those no longer listed: its newest name, ' +
      'the datasets that list it (`datasets`, by slug), the dates of the first and last snapshots that list it (`firstSeen`, `lastSeen`), ' +
      'its website as the source page links to it from its name, tracking parameters removed (`website`, `null` when none is recorded; ' +
      '/docs/collection#lenders-websites), whether it is a registered bank (`lenderType`) and the eligibility rules read on its name (`restrictions`; ' +
      '/docs/concepts#best-rates-and-restricted-offers). The same lender has one id per kind: `institution:<slug>` and, as a card issuer, `issuer:<slug>` ' +
      '(/docs/concepts#ids). Cached like the rates.',
    responses: {
      200: {
        description: 'The registry, in id order.',
        content: { [JSON_TYPE]: { schema: COMPONENTS.institutions, ...examplesFor(examples.listInstitutions, 200) } },
      },
      400: errorResponse('`invalid_request`: the registry takes no query parameters.', examples.listInstitutions, 400),
      500: errorResponse(
        '`server_error`: the history cannot be read.',
        examples[serverErrorKey('listInstitutions')],
        500,
      ),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/api/search',
    operationId: 'searchDocs',
    tags: ['Documentation'],
    summary: 'Search the documentation',
    request: { query: SearchQuery },
    responses: {
      200: {
        description: 'Matching documentation sections, best first.',
        content: { [JSON_TYPE]: { schema: COMPONENTS.search } },
      },
      400: {
        description: '`invalid_request`: an empty query, a bad limit or an unknown parameter.',
        content: { [JSON_TYPE]: { schema: error } },
      },
    },
  });

  const JsonRpcMessage = z
    .looseObject({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number(), z.null()]).optional(),
      method: z.string().optional(),
    })
    .meta({
      description: 'A JSON-RPC 2.0 request, notification or (protocol 2025-03-26 without a version header) a batch.',
    });
  const JsonRpcError = z
    .looseObject({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number(), z.null()]),
      error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
    })
    .meta({ description: 'A JSON-RPC error response.' });
  const rpcError = (description: string) => ({ description, content: { [JSON_TYPE]: { schema: JsonRpcError } } });
  registry.registerPath({
    method: 'post',
    path: MCP_PATH,
    operationId: 'sendMcpMessage',
    tags: ['MCP'],
    summary: 'Send a Model Context Protocol message',
    description:
      `Streamable HTTP carrying JSON-RPC 2.0, stateless, JSON responses. Protocol ${MODERN_VERSION} (per-request \`_meta\` and the ` +
      `\`MCP-Protocol-Version\`, \`Mcp-Method\` and \`Mcp-Name\` headers) and the legacy versions ${LEGACY_VERSIONS.join(', ')} ` +
      `(\`initialize\` first). ${TOOLS.length} read-only tools over the same data, each dataset's list, detail, time series and lowest rates among them. GET and DELETE answer 405. ` +
      `Limits: a body of ${kib(LIMITS.bodyBytes)}, a batch of ${LIMITS.batchMessages} messages with at most ${LIMITS.batchToolCalls} tools/call ` +
      `and ${mib(LIMITS.responseBytes)} of answers, a tool result of ${mib(LIMITS.resultBytes)} (/docs/ai#limits). ` +
      'Every answer but the preflight carries `x-request-id`.',
    request: { body: { content: { [JSON_TYPE]: { schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]) } } } },
    responses: {
      200: {
        description: 'A JSON-RPC response (an array for a batch).',
        content: { [JSON_TYPE]: { schema: z.looseObject({ jsonrpc: z.literal('2.0') }) } },
      },
      202: { description: 'A notification was accepted; no body.' },
      400: rpcError(
        `Parse error (-32700), invalid request (-32600, also a batch over ${LIMITS.batchMessages} messages), a header mismatch (-32020), a missing \`_meta\` field (-32602) ` +
          'or an unsupported version (-32022, the supported versions in `error.data.supported`).',
      ),
      403: rpcError(
        'The `Host` header names a host this server does not answer MCP for (-32000 `Invalid Host`): a server listening on a loopback address answers ' +
          "only `localhost`, `127.0.0.1`, `[::1]` and its site URL's host (DNS-rebinding protection; `MCP_ALLOWED_HOSTS` adds names to these, on any address). Carries the CORS headers.",
      ),
      404: rpcError('Unknown method (-32601), protocol 2026-07-28.'),
      405: rpcError('GET or DELETE: the endpoint is stateless and takes POST only (-32000).'),
      406: rpcError('The `Accept` header does not list both application/json and text/event-stream (-32000).'),
      413: rpcError(`A body over ${kib(LIMITS.bodyBytes)} (-32600), refused without reading the rest.`),
      415: rpcError('A `Content-Type` other than application/json (-32000).'),
    },
  });

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'NZ Rates API',
      version: '1.0.0',
      description:
        `New Zealand ${datasetsInWords()} from interest.co.nz, as a public read-only JSON API. ${COLLECTION_WORDS} ` +
        'No authentication. Every rate response carries the terms of use, in `termsOfUse`: see /docs/terms.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.site, description: 'This deployment' }],
    tags: [
      ...DATASETS.map((d) => ({
        name: d.title,
        description: `${d.title}: list, one ${d.entity.kind}, the time series, the lowest rates and the change log.`,
      })),
      { name: 'Lenders', description: 'The registry: every institution and issuer of every dataset, in one list.' },
      { name: 'Service', description: 'Health, freshness and the reliability of collection.' },
      { name: 'MCP', description: 'The Model Context Protocol endpoint for AI agents.' },
      { name: 'Documentation', description: 'Search over these docs.' },
    ],
    security: [],
  });
  return document;
}
