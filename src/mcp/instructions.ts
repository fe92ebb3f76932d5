/** What an agent is told about this server in `initialize` and `server/discover`, written from the dataset table. */
import { DATASETS, type Dataset } from '../datasets.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { bestRatesOf } from '../explorer/best.ts';
import { API_PREFIX } from '../endpoints.ts';
import { COLLECTION_WORDS } from '../lib/collection-words.ts';
import { countWord, listInWords } from '../lib/words.ts';
import { PROMPTS } from './prompts.ts';
import { LIMITS, mib } from './protocol.ts';
import { FILTERED_TOOL_KINDS, REST_TOOL_KINDS, toolsTaking } from './rest-tools.ts';
import { OWN_TOOLS } from './tool-table.ts';

export const SERVER_INFO = { name: 'nz-rates', title: 'New Zealand lending rates', version: '1.0.0' };

/**
 * The instructions for a table of datasets (the real one by default; a test gives a changed copy).
 * A filter is named for the tools whose endpoint takes it (its `only`), and says so when not all.
 */
export function instructionsFor(datasets: readonly Dataset[] = DATASETS): string {
  /** What the datasets compare, each once, in words ("term, plan and rate"). */
  const measureNames = listInWords([...new Set(datasets.map((d) => EXPLORER[d.slug].measureName.toLowerCase()))]);

  /**
   * Each entity kind once, by the first dataset that has it, whose example id the instructions name
   * for every dataset of that kind (test/fixture-needs.test.ts checks they all declare the same).
   */
  const kinds = datasets.filter((d, i) => datasets.findIndex((o) => o.entity.kind === d.entity.kind) === i);

  const filters = datasets.flatMap((d) =>
    d.filters.map((f) => {
      const tools = toolsTaking(d, f);
      const who =
        tools.length === FILTERED_TOOL_KINDS.length
          ? `The ${d.label} tools take`
          : `Of the ${d.label} tools, only ${listInWords(tools)} ${tools.length === 1 ? 'takes' : 'take'}`;
      return `${who} ${f.name} ("${f.example}"${f.wholeNumber ? ': digits; a JSON number is accepted too' : ''}): ${f.description}`;
    }),
  );

  // The best rate as each dataset declares it (src/explorer/best.ts): one word where they all agree.
  const rates = [...new Map(datasets.flatMap((d) => bestRatesOf(EXPLORER[d.slug])).map((r) => [r.end, r])).values()];
  const best =
    rates.length === 1
      ? { word: rates[0]!.word, better: rates[0]!.side }
      : { word: 'best (the lowest of a rate paid, the highest of a rate earned)', better: 'better than' };

  return `New Zealand lending rates from interest.co.nz (${COLLECTION_WORDS}) Read-only tools, no authentication.

Datasets (${countWord(REST_TOOL_KINDS.length)} tools each, the twins of the REST endpoints): ${listInWords(datasets.map((d) => `${d.label} (by ${d.entity.kind})`))}.
- list_<dataset>: the newest rates of every ${kinds.map((d) => d.entity.kind).join(' or ')}, with their ids.
- ${kinds.map((d) => `get_<dataset>_by_${d.entity.kind}`).join(' / ')}: one ${kinds.map((d) => d.entity.kind).join(' or ')}.
- get_<dataset>_time_series: earlier snapshots.
- get_lowest_<dataset>: the ${best.word} newest rates open to anyone, per measure (${measureNames}), as the site's rates explorer shows them; restricted offers ${best.better} them are set apart with whom they are for.
- get_<dataset>_changes: the change log, per snapshot date since a date, each value that changed, was added or was removed, with its direction (up, down, new, gone) and, for a rate, bps (the move in basis points); it takes since, until, the ${kinds.map((d) => d.entity.param).join(' or ')}, direction and minBps, and none of the filters below.
- check_<dataset>_quote: where a rate someone was offered (rate, in percent) stands among the newest rates open to anyone of one measure (measure, as get_lowest_<dataset> names it): how many are lower, equal and higher, its percentile (the share of open offers no better than it), the ${best.word} and the median; ${kinds.map((d) => d.entity.param).join(' or ')} adds that lender's own offers.${OWN_TOOLS.map((t) => `\n- ${t.name}: ${t.title}.`).join('')}

Ids: ${listInWords(kinds.map((d) => `${d.entity.kind}s are "${d.entity.prefix}:<slug>" (e.g. ${d.exampleEntityId})`))}. They are matched case-insensitively and do not change between collections; call a list tool first to find them.

Every argument is a string.${filters.length ? ` ${filters.join(' ')}` : ''}

Time series: give date (YYYY-MM-DD, one snapshot) or startDate and endDate (inclusive range), never both; with no date the result lists availableDates. A snapshot exists only on dates when rates changed; rates on other dates equal the nearest earlier snapshot. A date without a snapshot is an error (no_data). One result may hold at most ${mib(LIMITS.resultBytes)}: a dataset's whole history can be several MB, so for long periods pass the ${kinds.map((d) => d.entity.param).join(' or ')} or a range of a few weeks (each time-series tool's description states the sizes).

Resources (resources/list): every docs page as Markdown, the OpenAPI document and each dataset's newest data, each at its address on the site. Prompts (prompts/list): ${listInWords(PROMPTS.map((p) => p.name))}.

Rates are percentages per year (4.29 means 4.29 %). Results are the same JSON as the REST API at ${API_PREFIX}. The data may be incorrect: the institution is the authority for its rates; each data result carries the terms of use (termsOfUse); an error result does not.`;
}

export const INSTRUCTIONS = instructionsFor();
