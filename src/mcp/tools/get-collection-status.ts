/** get_collection_status: the status figures endpoint (each dataset's collection reliability) as a tool. */
import { z } from 'zod';
import { STATUS_PATH } from '../../paths.ts';
import { StatusFigures } from '../../schemas/status.ts';
import { WINDOW_DAYS } from '../../status/figures.ts';
import { defineTool } from '../tool.ts';

export const GET_COLLECTION_STATUS = defineTool({
  name: 'get_collection_status',
  title: 'Get the collection reliability',
  description:
    `How reliably each dataset was collected over the last ${WINDOW_DAYS} days of recorded runs: runs, how many succeeded ` +
    'and their share, outcomes (ok, unchanged, refused, failed), the last good run and the hours since it, the longest gap ' +
    'between good runs, refusals by the rule they broke, and the institution and rate counts. A figure no recorded run supports ' +
    'is null, never 0. The same JSON as the REST status endpoint. Takes no arguments.',
  input: z.strictObject({}),
  output: StatusFigures,
  example: {},
  measured: STATUS_PATH,
  forward: () => STATUS_PATH,
});
