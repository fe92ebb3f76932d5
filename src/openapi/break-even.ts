/** The break-even rates in the OpenAPI document, for each dataset that has them (src/openapi/document.ts calls this per dataset). */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi/dist/index.mjs';
import type { Dataset } from '../datasets.ts';
import { endpointsOf, HEALTH_PATH } from '../endpoints.ts';
import type { Example } from '../examples.ts';
import { breakEvenEndpointOf, breakEvenOperationId } from '../api/break-even.ts';
import { BREAK_EVEN_DATASETS, breakEvenSchemaOf, breakEvenTypeOf, fixedTermBest } from '../explorer/break-even.ts';
import { BREAK_EVEN_FORMULA } from '../schemas/break-even.ts';
import { DATA_RULES, notModified, REFUSED, successHeaders } from './http.ts';

/** Each answer's component schema, named once per process (zod's registry refuses an id given twice). */
const COMPONENTS = new Map(
  BREAK_EVEN_DATASETS.map((d) => [d.slug, breakEvenSchemaOf(d).meta({ id: breakEvenTypeOf(d) })]),
);

type ExamplesFor = (list: Example[] | undefined, status: number, noun?: string) => object;
type ErrorResponse = (description: string, list: Example[] | undefined, status: number) => object;

/** Registers the dataset's break-even path, if it has one; its examples are those of `breakEvenOperationId`. */
export function registerBreakEvenPath(
  registry: OpenAPIRegistry,
  dataset: Dataset,
  examples: Record<string, Example[]>,
  helpers: { examplesFor: ExamplesFor; errorResponse: ErrorResponse },
): void {
  const endpoint = breakEvenEndpointOf(dataset);
  if (!endpoint) return;
  const id = breakEvenOperationId(dataset);
  const found = examples[id];
  const { param, kind, notFound } = dataset.entity;
  const best = fixedTermBest(dataset);
  registry.registerPath({
    method: 'get',
    path: endpoint.path,
    operationId: id,
    tags: [dataset.title],
    summary: `Break-even ${dataset.label} between fixed terms`,
    description:
      `Fix for how long: for each pair of fixed terms, a shorter of a months at r_a and a longer of b months at r_b, \`breakEvenRate\` is the rate x ` +
      `the shorter must be refixed at for the remaining b − a months to come out the same as fixing for b; refixing ${best.side} it, the shorter comes out better. ` +
      `The formula: ${BREAK_EVEN_FORMULA} (/docs/concepts#break-even-rates). ` +
      `Without \`${param}\`, the rates are the ${best.word} open rate of each term, as ${endpointsOf(dataset).lowest.path} answers them (\`basis\`: \`lowest\`), ` +
      `an entry per pair of terms that both have one, shorter term first; with it, each of that ${kind}'s products that offers both terms is paired within itself ` +
      `(\`basis\`: \`product\`), a product not open to anyone saying whom it is for; one not in the newest snapshot is a 404 \`${notFound}\`.`,
    request: { query: endpoint.query },
    responses: {
      200: {
        description: `The break-even ${dataset.label}, with the terms of use.`,
        headers: successHeaders(DATA_RULES),
        content: {
          'application/json': { schema: COMPONENTS.get(dataset.slug)!, ...helpers.examplesFor(found, 200, 'pairs') },
        },
      },
      304: notModified('always'),
      400: helpers.errorResponse(
        '`invalid_request`: a malformed parameter, or a parameter this endpoint does not use (it pairs every term: no `termInMonths`).',
        found,
        400,
      ),
      404: helpers.errorResponse(`\`${notFound}\`: no ${kind} with that id is in the newest snapshot.`, found, 404),
      500: helpers.errorResponse(
        `\`server_error\`: the data could not be read; retry, and read ${HEALTH_PATH} if it persists.`,
        examples.serverError,
        500,
      ),
      default: REFUSED,
    },
  });
}
