/**
 * What the hand-written pages say of the API's surface, from the tables that make it: the
 * endpoints each dataset has, the slugs its paths reserve, and which tools' descriptions state
 * sizes. Filled into content/docs as `{{name}}` (src/docs/pages.ts).
 */
import type { AlertsEndpoint } from '../api/alerts.ts';
import type { BreakEvenEndpoint } from '../api/break-even.ts';
import { type ChangesEndpoint, RESERVED_SLUGS } from '../changes/endpoint.ts';
import { DATASETS } from '../datasets.ts';
import type { EndpointKind } from '../endpoints.ts';
import { listInWords } from '../lib/words.ts';
import { REST_TOOL_KINDS, restToolsOf, type TwinKind } from '../mcp/rest-tools.ts';
import { TOOLS } from '../mcp/tool-table.ts';

type DatasetEndpointKind = EndpointKind | ChangesEndpoint['kind'] | AlertsEndpoint['kind'] | BreakEvenEndpoint['kind'];

/** What each endpoint of a dataset answers, in the overview's words: a new kind of endpoint needs its words here. */
export const DATASET_ENDPOINT_WORDS: Record<DatasetEndpointKind, string> = {
  list: 'a list',
  detail: 'one institution or issuer',
  timeSeries: 'a time series',
  lowest: 'the best open rates (the lowest of a rate paid, the highest of a rate earned)',
  quote: 'a quote check (where a rate stands among the open offers)',
  changes: 'a change log',
  alerts: 'a threshold alerts feed, in JSON Feed and in Atom',
  breakEven: 'the break-even rates of its fixed terms, where it has them',
};

/** A twin tool's kind as the AI page names the tools: "the list, detail and time-series tools". */
const TOOL_KIND_WORDS: Record<TwinKind, string> = {
  list: 'list',
  detail: 'detail',
  timeSeries: 'time-series',
  lowest: 'lowest-rates',
  quote: 'quote-check',
  changes: 'change-log',
};

const orList = (items: readonly string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

/** The kinds of twin tool whose descriptions state their sizes (`sized`), or those whose do not. */
const toolKinds = (sized: boolean) =>
  listInWords(
    REST_TOOL_KINDS.filter((kind) => restToolsOf(DATASETS[0], [kind]).some((t) => Boolean(t.sizes) === sized)).map(
      (kind) => TOOL_KIND_WORDS[kind],
    ),
  );

function measuredTools(): string {
  const names = TOOLS.filter((t) => t.measured !== undefined).map((t) => `\`${t.name}\``);
  return names.length ? `, as ${names.length === 1 ? 'does' : 'do'} ${listInWords(names)}` : '';
}

export function surfaceSubstitutions(): Record<string, string> {
  return {
    /** "a list, one institution or issuer, … and a threshold alerts feed": every endpoint of a dataset. */
    datasetEndpoints: listInWords(Object.values(DATASET_ENDPOINT_WORDS)),
    /** "`changes`, `time-series`, `lowest` or `alerts`": the path segments no lender's slug may be. */
    reservedSlugs: orList(RESERVED_SLUGS.map((slug) => `\`${slug}\``)),
    /** The twin tools whose descriptions state their sizes, and those whose do not. */
    sizedTools: toolKinds(true),
    /** "; those of the … tools state none", or nothing when every kind states its sizes. */
    unsizedTools: toolKinds(false) ? `; those of the ${toolKinds(false)} tools state none` : '',
    /** ", as do `get_health` and …": the tools of no dataset whose descriptions state their answer's size. */
    measuredTools: measuredTools(),
  };
}
