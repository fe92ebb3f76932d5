/** The threshold alerts feeds in the OpenAPI document (src/openapi/document.ts calls this per dataset). */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi/dist/index.mjs';
import type { Dataset } from '../datasets.ts';
import { endpointsOf, HEALTH_PATH } from '../endpoints.ts';
import type { Example } from '../examples.ts';
import { alertsEndpointOf, alertsOperationId } from '../api/alerts.ts';
import { ALERTS_FEED_FILE, FEEDS_PREFIX } from '../paths.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { bestRatesOf, bestWordOf } from '../explorer/best.ts';
import { AlertsFeed } from '../schemas/alerts.ts';
import { openToNewFields } from '../schemas/open.ts';
import { DATA_RULES, notModified, type PathRules, REFUSED, successHeaders } from './http.ts';

type ExamplesFor = (list: Example[] | undefined, status: number) => object;
type ErrorResponse = (description: string, list: Example[] | undefined, status: number, rules?: PathRules) => object;

/** Open, as JSON Feed's own objects are (/docs/stability#where-new-fields-may-appear). */
const FEED_SCHEMA = openToNewFields(AlertsFeed).meta({ id: 'AlertsFeed' });

/** The Atom twin: outside /api/v1, so no request id (/docs/concepts#x-request-id); cached, with ETags, like the feed. */
const ATOM_RULES: PathRules = { ids: false, cached: true, etag: 'always' };

/** `/feeds/<dataset>/alerts.atom`: the path the REST core answers the feed on in Atom. */
const alertsAtomPath = (dataset: Dataset) => `${FEEDS_PREFIX}/${dataset.slug}/${ALERTS_FEED_FILE}`;

export function registerAlertsPath(
  registry: OpenAPIRegistry,
  dataset: Dataset,
  examples: Record<string, Example[]>,
  helpers: { examplesFor: ExamplesFor; errorResponse: ErrorResponse },
): void {
  const endpoint = alertsEndpointOf(dataset);
  const id = alertsOperationId(dataset);
  const found = examples[id];
  const { param, kind, notFound } = dataset.entity;
  // The threshold's side follows the best rate the dataset declares (src/explorer/best.ts).
  const best = bestWordOf(EXPLORER[dataset.slug]);
  const rates = bestRatesOf(EXPLORER[dataset.slug]);
  const other = rates.length > 1 ? undefined : rates[0]!.side === 'below' ? 'above' : 'below';
  const sides =
    rates
      .map(
        (r) =>
          `\`${r.side}\` is the threshold of a rate ${r.paid ? 'paid' : 'earned'}${rates.length > 1 ? ` (a measure whose best is the ${r.word})` : ''}`,
      )
      .join('; ') +
    (other ? `; ${dataset.label} are rates ${rates[0]!.paid ? 'paid' : 'earned'}, so \`${other}\` is a 400.` : '.');
  /** The feed's answers in either format: the errors are the same JSON error bodies; Atom's carry no examples, whose requests are JSON's. */
  const responses = (atom: boolean) => {
    const rules = atom ? ATOM_RULES : DATA_RULES;
    const shown = atom ? undefined : found;
    return {
      200: {
        description: 'The feed.',
        headers: successHeaders(rules),
        content: atom
          ? {
              'application/atom+xml': {
                schema: { type: 'string' as const, description: 'An Atom 1.0 feed (RFC 4287).' },
              },
            }
          : { 'application/feed+json': { schema: FEED_SCHEMA, ...helpers.examplesFor(found, 200) } },
      },
      304: notModified(rules.ids ? 'always' : 'never'),
      400: helpers.errorResponse(
        '`invalid_request`: no threshold, a threshold not a decimal number, both `below` and `above`, `above` on rates paid, no measure or one the dataset does not have (the hint names those it has), or a parameter this endpoint does not use.',
        shown,
        400,
        rules,
      ),
      404: helpers.errorResponse(`\`${notFound}\`: no ${kind} with that id was ever listed.`, shown, 404, rules),
      500: helpers.errorResponse(
        `\`server_error\`: the data could not be read; retry, and read ${HEALTH_PATH} if it persists.`,
        atom ? undefined : examples.serverError,
        500,
        rules,
      ),
      default: REFUSED,
    };
  };
  registry.registerPath({
    method: 'get',
    path: endpoint.path,
    operationId: id,
    tags: [dataset.title],
    summary: `Follow the ${best} ${dataset.label} past a threshold (JSON Feed)`,
    description:
      `A JSON Feed 1.1 (\`application/feed+json\`) for a feed reader or a feed-to-email service: over every snapshot, an item each time the ${best} rate ` +
      `open to anyone of one measure crosses the threshold (into it or out of it) and each time it moves while past it, newest first, at most 100, ` +
      `each with the lenders, the old and the new rate and a link to the measure's comparison page. The rate is the one ${endpointsOf(dataset).lowest.path} answers. ` +
      `Name the measure as /lowest names it in \`measure\`${dataset.filters.some((f) => f.name === 'termInMonths') ? ' (or a fixed term as `termInMonths`)' : ''}; ` +
      `${sides} \`${param}\` keeps one ${kind}. ` +
      `The same feed in Atom: ${alertsAtomPath(dataset)} with the same parameters.`,
    request: { query: endpoint.query },
    responses: responses(false),
  });
  registry.registerPath({
    method: 'get',
    path: alertsAtomPath(dataset),
    operationId: `${id}Atom`,
    tags: [dataset.title],
    summary: `Follow the ${best} ${dataset.label} past a threshold (Atom)`,
    description: `The feed of ${endpoint.path} in Atom 1.0 (\`application/atom+xml\`), for feed readers that take no JSON Feed: the same parameters, items and errors.`,
    request: { query: endpoint.query },
    responses: responses(true),
  });
}
