/** REST's words in a text an agent reads (an error, an argument's description), as the tools to call. */
import { DATASETS } from '../datasets.ts';
import { endpointsOf, operationName } from '../endpoints.ts';

const TOOL_FOR_PATH = new Map(
  DATASETS.flatMap((dataset) => {
    const endpoints = endpointsOf(dataset);
    return [endpoints.list, endpoints.timeSeries, endpoints.lowest].map((e) => [e.path, operationName(e)] as const);
  }),
);

/**
 * A REST error text as an agent should read it: where REST points to a request
 * (`GET /api/v1/<slug>`, `GET /api/v1/<slug>/lowest`, `Request …/time-series without date parameters`), the tool to call.
 */
export function forAgents(text: string): string {
  return text
    .replace(/Request (\/api\/v1\/[a-z-]+\/time-series) without date parameters/g, (whole, path: string) => {
      const tool = TOOL_FOR_PATH.get(path);
      return tool ? `Call ${tool} without date arguments` : whole;
    })
    .replace(
      /GET (\/api\/v1\/[a-z-]+(?:\/[a-z-]+)?)(?![a-z/-])/g,
      (whole, path: string) => TOOL_FOR_PATH.get(path) ?? whole,
    );
}
