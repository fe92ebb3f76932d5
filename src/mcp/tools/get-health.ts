/**
 * get_health: the health endpoint as a tool. Its result is the health body whatever the status:
 * where REST answers `error` with 503 (the data cannot be read), the tool still answers that body
 * as its result, not as an error, since the answer is the information an agent asked for.
 */
import { z } from 'zod';
import { STALE_AFTER } from '../../lib/stale-after.ts';
import { HEALTH_PATH } from '../../paths.ts';
import { Health } from '../../schemas/health.ts';
import { defineTool } from '../tool.ts';

export const GET_HEALTH = defineTool({
  name: 'get_health',
  title: 'Get the service health',
  description:
    'Whether this service can read its data (`status` ok, degraded or error, with `problems` saying why it is not ok) and, ' +
    'for each dataset by slug, when its data was last collected (lastUpdated), when a collection last succeeded (lastChecked) ' +
    `and whether it is stale (true when no collection succeeded in the last ${STALE_AFTER.words}). An old lastUpdated with stale false means ` +
    'the rates did not change; with stale true, collection is failing. The same JSON as the REST health endpoint, ' +
    'an error status included. Takes no arguments.',
  input: z.strictObject({}),
  output: Health,
  example: {},
  measured: HEALTH_PATH,
  resultStatuses: [503],
  forward: () => HEALTH_PATH,
});
