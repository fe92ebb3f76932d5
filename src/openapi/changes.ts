/** The change log endpoints in the OpenAPI document (src/openapi/document.ts calls this per dataset). */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi/dist/index.mjs';
import type { Dataset } from '../datasets.ts';
import { HEALTH_PATH } from '../endpoints.ts';
import type { Example } from '../examples.ts';
import { changesEndpointOf, changesOperationId, DEFAULT_DAYS } from '../changes/endpoint.ts';
import { changesSchemaOf } from '../changes/schema.ts';
import { DATA_RULES, notModified, REFUSED, successHeaders } from './http.ts';

type ExamplesFor = (list: Example[] | undefined, status: number) => object;
type ErrorResponse = (description: string, list: Example[] | undefined, status: number) => object;

export function registerChangesPath(
  registry: OpenAPIRegistry,
  dataset: Dataset,
  examples: Record<string, Example[]>,
  helpers: { examplesFor: ExamplesFor; errorResponse: ErrorResponse },
): void {
  const endpoint = changesEndpointOf(dataset);
  const id = changesOperationId(dataset);
  const found = examples[id];
  const { param, kind, notFound } = dataset.entity;
  registry.registerPath({
    method: 'get',
    path: endpoint.path,
    operationId: id,
    tags: [dataset.title],
    summary: `Get ${dataset.label} changes`,
    description:
      `What changed in the ${dataset.label}, per snapshot date from \`since\` to \`until\` (inclusive, oldest first): every value that changed ` +
      '(`from`, `to`), was added (`to`) or was removed (`from`) compared with the snapshot before, each with its `direction` ' +
      '(`up`, `down`, `new`, `gone`) and, for a rate, `bps`: the move in signed whole basis points. ' +
      '`direction` keeps some directions and `minBps` the rate moves of at least that many basis points (new and gone values have none). ' +
      `\`since\` defaults to ${DEFAULT_DAYS} days before \`until\`, \`until\` to the newest snapshot's date; a \`since\` after the newest snapshot gives an empty list. ` +
      `\`${param}\` keeps one ${kind} (any ${kind} ever listed; one never listed is a 404 \`${notFound}\`). ` +
      'A date whose snapshot moved no value (a rename) has no entry. The same changes are published as Atom feeds under /rates/.',
    request: { query: endpoint.query },
    responses: {
      200: {
        description: `The ${dataset.label} changes, with the terms of use.`,
        headers: successHeaders(DATA_RULES),
        content: { 'application/json': { schema: changesSchemaOf(dataset), ...helpers.examplesFor(found, 200) } },
      },
      304: notModified('always'),
      400: helpers.errorResponse(
        '`invalid_request`: a malformed date, `since` after `until`, a direction other than up, down, new and gone, a `minBps` that is no whole number, or a parameter this endpoint does not use.',
        found,
        400,
      ),
      404: helpers.errorResponse(`\`${notFound}\`: no ${kind} with that id was ever listed.`, found, 404),
      500: helpers.errorResponse(
        `\`server_error\`: the data could not be read; retry, and read ${HEALTH_PATH} if it persists.`,
        examples.serverError,
        500,
      ),
      default: REFUSED,
    },
  });
}
