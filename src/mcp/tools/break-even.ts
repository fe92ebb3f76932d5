/**
 * `get_<dataset>_break_even`: the twin of `GET /api/v1/<dataset>/break-even`, one per dataset whose
 * measures are fixed terms (src/api/break-even.ts). It is no REST_TOOL_GROUPS kind, as not every
 * dataset has the endpoint: it stands in OWN_TOOLS, forwarding to the endpoint as the twins do, so
 * its result is the REST answer, errors included, from the same kept answers.
 */
import type { Dataset } from '../../datasets.ts';
import { breakEvenEndpointOf } from '../../api/break-even.ts';
import { BREAK_EVEN_DATASETS, breakEvenSchemaOf, fixedTermBest, fixedTermMonths } from '../../explorer/break-even.ts';
import { endpointsOf, operationName } from '../../endpoints.ts';
import { listToolName } from '../rest-tools.ts';
import { BREAK_EVEN_FORMULA } from '../../schemas/break-even.ts';
import { defineTool, type Tool } from '../tool.ts';

/** `get_<slug>_break_even`, the slug's `-` as `_`, as the twins are named (src/endpoints.ts operationName). */
export const breakEvenToolName = (dataset: Dataset) => `get_${dataset.slug.replaceAll('-', '_')}_break_even`;

function breakEvenTool(dataset: Dataset): Tool {
  const endpoint = breakEvenEndpointOf(dataset)!;
  const { kind, param } = dataset.entity;
  const terms = fixedTermMonths(dataset).length;
  const pairs = (terms * (terms - 1)) / 2;
  // The words of the fixed terms' best rate (src/explorer/best.ts): a rate paid is refixed below, and costs.
  const best = fixedTermBest(dataset);
  const [same, better] = best.paid ? ['cost', 'cheaper'] : ['earn', 'ahead'];
  return defineTool({
    name: breakEvenToolName(dataset),
    title: `Break-even ${dataset.label} between fixed terms`,
    description:
      `Fix for how long: for each pair of fixed terms, a shorter of a months and a longer of b, breakEvenRate is the rate the shorter ` +
      `must be refixed at for the remaining b − a months to ${same} the same as fixing for b; refixing ${best.side} it, the shorter comes out ${better}. ` +
      `Without ${param}, from the ${best.word} newest rate open to anyone of each term (as ${operationName(endpointsOf(dataset).lowest)} answers them): ` +
      `an entry per pair of terms that both have one, at most ${pairs}, each with the two rates used, who offers them and a sentence. ` +
      `With ${param} (${listToolName(dataset)} lists every id), within each of that ${kind}'s products that offers both terms: ` +
      `an entry per pair per product, at most ${pairs} a product. The formula: ${BREAK_EVEN_FORMULA}.`,
    input: endpoint.query,
    output: breakEvenSchemaOf(dataset),
    example: {},
    dataset,
    // Its default answer (every pair of terms from the best open rates), measured as health's is.
    measured: endpoint.path,
    forward: (args) => {
      // As a URL reads it, so the kept answers' key is the REST request's own.
      const url = new URL(endpoint.path, 'http://tool.invalid');
      for (const [key, value] of Object.entries(args)) url.searchParams.set(key, value);
      return `${url.pathname}${url.search}`;
    },
  });
}

/** One tool per dataset that answers break-even rates, in table order. */
export const BREAK_EVEN_TOOLS: readonly Tool[] = BREAK_EVEN_DATASETS.map(breakEvenTool);
