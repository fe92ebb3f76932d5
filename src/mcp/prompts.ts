/**
 * The MCP prompts: tasks people bring to this data, each one user message telling the model which
 * tools to call, with which arguments, and what to make of the results. Arguments are named as
 * the tools name them (`termInMonths`, `rate`, `institutionId` or `issuerId`), and `dataset` is a
 * dataset's slug. A prompt about terms takes the datasets whose filters include `termInMonths`,
 * found in the table by that filter, never by name (test/dataset-mentions.test.ts).
 *
 * The quote, break-even and change-log tools are named here by their names' pattern
 * (`check_<dataset>_quote`, `get_<dataset>_break_even`, `get_<dataset>_changes`).
 */
import type { z } from 'zod';
import { DATASETS, type Dataset } from '../datasets.ts';
import { twinToolName } from './rest-tools.ts';
import { breakEvenToolName } from './tools/break-even.ts';
import { bestRateOf } from '../explorer/best.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { listInWords, withArticle } from '../lib/words.ts';
import { EntityIdParam, RateParam, TermInMonthsParam } from '../schemas/params.ts';
import type { Arguments } from './tool.ts';

/** The filter a prompt about terms needs, by the name the tools give it. */
const TERM = 'termInMonths';
const hasTerms = (dataset: Dataset) => dataset.filters.some((filter) => filter.name === TERM);
const TERMED = DATASETS.filter(hasTerms);

/** The names of a dataset's tools a prompt calls, as the tool table names them (test/mcp-prompts.test.ts checks each exists). */
const toolsOf = (dataset: Dataset) => ({
  list: twinToolName(dataset, 'list'),
  detail: twinToolName(dataset, 'detail'),
  lowest: twinToolName(dataset, 'lowest'),
  quote: twinToolName(dataset, 'quote'),
  breakEven: breakEvenToolName(dataset),
  changes: twinToolName(dataset, 'changes'),
});

/** A call as the message writes it: the tool and its arguments as JSON, strings throughout. */
const call = (tool: string, args: Arguments) => `${tool} with ${JSON.stringify(args)}`;

interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
  /** The value's format (every value is a string); `dataset` is checked against the prompt's datasets instead. */
  format?: z.ZodType<string>;
  example: string;
}

export interface Prompt {
  /** snake_case, unique. */
  name: string;
  title: string;
  description: string;
  arguments: readonly PromptArgument[];
  /** The datasets `dataset` may name. */
  datasets: readonly Dataset[];
  /** The dataset when `dataset` is not given; without one, the prompt is about every dataset then. */
  defaultDataset?: Dataset;
  /** The user message, from arguments that passed `readPromptArguments`. */
  text(args: Arguments, dataset: Dataset | undefined, today: string): string;
}

const slugs = (datasets: readonly Dataset[]) => listInWords(datasets.map((d) => d.slug));

function datasetArgument(datasets: readonly Dataset[], required: boolean, otherwise: string): PromptArgument {
  return {
    name: 'dataset',
    description: `The dataset, by its slug: ${datasets.map((d) => d.slug).join(', ')}.${required ? '' : ` ${otherwise}`}`,
    required,
    example: datasets[0]!.slug,
  };
}

/** `institutionId`, `issuerId`: one optional argument per kind of entity among the datasets, as the tools name it. */
function entityArguments(datasets: readonly Dataset[], what: string): PromptArgument[] {
  const kinds = datasets.filter((d, i) => datasets.findIndex((o) => o.entity.param === d.entity.param) === i);
  return kinds.map((d) => {
    const of = datasets.filter((o) => o.entity.param === d.entity.param);
    return {
      name: d.entity.param,
      description: `${what} (for ${slugs(of)}): its id, such as ${d.exampleEntityId}; ${toolsOf(d).list} lists every id.`,
      required: false,
      format: EntityIdParam,
      example: d.exampleEntityId,
    };
  });
}

const termArgument = (required: boolean): PromptArgument => ({
  name: TERM,
  description: `The fixed term in months, in digits, such as "12"${required ? '' : ` (for ${slugs(TERMED)} only)`}.`,
  required,
  format: TermInMonthsParam,
  example: '12',
});

/** "as at lastUpdated, and each lender is the authority": what every answer should say of the data. */
const CAVEATS =
  'Say when the rates were collected (lastUpdated), and that the data may be incorrect: each lender is the authority for its rates (termsOfUse).';

/** The date `days` days before `today`, both YYYY-MM-DD: a change log's `since`. */
const daysBefore = (today: string, days: number) =>
  new Date(Date.parse(today) - days * 86_400_000).toISOString().slice(0, 10);

/** A prompt about terms, made only when some dataset has terms. */
const ifTerms = (make: (termed: readonly Dataset[], first: Dataset) => Prompt) =>
  TERMED.length ? [make(TERMED, TERMED[0]!)] : [];

const COMPARE_LENDERS_FOR_TERM = ifTerms((termed, first) => ({
  name: 'compare_lenders_for_term',
  title: 'Compare lenders for a fixed term',
  description: 'Rank the lenders by their best open rate for one fixed term, with the restricted offers set apart.',
  arguments: [termArgument(true), datasetArgument(termed, false, `Default: ${first.slug}.`)],
  datasets: termed,
  defaultDataset: first,
  text(args, dataset = first) {
    const tools = toolsOf(dataset);
    const term = { [TERM]: args[TERM]! };
    const { kind } = dataset.entity;
    const best = bestRateOf(EXPLORER[dataset.slug], args[TERM]);
    return [
      `Compare the New Zealand lenders' ${dataset.label} for ${withArticle(`${args[TERM]}-month`)} fixed term.`,
      `1. Call ${call(tools.lowest, term)}: the ${best.word} open rate for that term, the offers that make it, and the restricted offers ${best.side} it, each with whom it is for.`,
      `2. Call ${call(tools.list, term)}: every ${kind}'s rates for that term.`,
      `Rank the ${kind}s by their best open rate for the term, ${best.word} first, in a table (${kind}, product, rate); ` +
        `leave out ${withArticle(kind)} with no rate for the term. Name the restricted offers apart, with whom each is for, outside the ranking. ${CAVEATS}`,
    ].join('\n');
  },
}));

const CHECK_QUOTE: Prompt = {
  name: 'check_quote',
  title: 'Check a quote',
  description: 'Where a rate a lender quoted stands among the open offers of the newest data, and who offers better.',
  arguments: [
    datasetArgument(DATASETS, true, ''),
    {
      name: 'rate',
      description: 'The quoted rate in percent a year, as a decimal number, such as "5.49".',
      required: true,
      format: RateParam,
      example: '5.49',
    },
    ...(TERMED.length ? [termArgument(false)] : []),
    ...entityArguments(DATASETS, 'The lender that quoted it'),
  ],
  datasets: DATASETS,
  text(args, dataset = DATASETS[0]!) {
    const tools = toolsOf(dataset);
    const { param, kind } = dataset.entity;
    const id = args[param];
    const term: Arguments = args[TERM] === undefined ? {} : { [TERM]: args[TERM] };
    const lender: Arguments = id === undefined ? {} : { [param]: id };
    const best = bestRateOf(EXPLORER[dataset.slug], args[TERM]);
    const [better, worse] = best.side === 'below' ? ['lower', 'higher'] : ['higher', 'lower'];
    return [
      `A lender quoted me ${args.rate} % a year for ${dataset.label}${args[TERM] === undefined ? '' : ` fixed for ${args[TERM]} months`}${id === undefined ? '' : ` (${id})`}. Is it a good rate?`,
      `1. Call ${call(tools.quote, { rate: args.rate!, ...term, ...lender })}: where the rate stands among the open offers (how many are ${better}, equal and ${worse}, its percentile), ` +
        `the ${best.word} open rate and the offers that make it${id === undefined ? '' : `, and that ${kind}'s own advertised offers`}. ` +
        `If it needs the measure the quote is for (a kind of loan or card rate), ${tools.lowest} lists the measures.`,
      ...(id === undefined
        ? []
        : [`2. Call ${call(tools.detail, { ...lender, ...term })}: that ${kind}'s newest rates.`]),
      `Say plainly how the quote compares: how far it is from the ${best.word} open rate, in percentage points; how many open offers are ${better} and whose they are; ` +
        `and, where the ${kind} advertises a ${better} rate than it quoted, that it is worth asking for. ${CAVEATS}`,
    ].join('\n');
  },
};

const WHAT_CHANGED_THIS_WEEK: Prompt = {
  name: 'what_changed_this_week',
  title: 'What changed this week',
  description: 'The rates that went up or down, and the offers that are new or gone, over the last seven days.',
  arguments: [
    datasetArgument(DATASETS, false, 'Default: every dataset.'),
    ...entityArguments(DATASETS, 'Only this lender'),
  ],
  datasets: DATASETS,
  text(args, dataset, today) {
    const since = daysBefore(today, 6);
    const param = DATASETS.map((d) => d.entity.param).find((p) => args[p] !== undefined);
    const datasets = dataset ? [dataset] : DATASETS.filter((d) => param === undefined || d.entity.param === param);
    const lender = param === undefined ? {} : { [param]: args[param]! };
    return [
      `What changed in New Zealand ${listInWords(datasets.map((d) => d.label))} in the seven days from ${since} to ${today}${param === undefined ? '' : ` at ${args[param]}`}?`,
      `Call ${datasets.length === 1 ? 'this tool' : 'each of these tools'}:`,
      ...datasets.map((d) => `- ${call(toolsOf(d).changes, { since, ...lender })}`),
      'Summarise by dataset and lender: the rates that went up and those that went down, by how much (in percentage points), and the offers that are new or gone. ' +
        `If nothing changed, say so: no rate moved in those days. ${CAVEATS}`,
    ].join('\n');
  },
};

const FIX_OR_FLOAT = ifTerms((termed, first) => ({
  name: 'fix_or_float',
  title: 'Fix or float',
  description:
    'Weigh floating against each fixed term: the best open rates, the break-even rates between terms, and how rates moved lately.',
  arguments: [
    ...entityArguments(termed, 'The lender to look at as well'),
    datasetArgument(termed, false, `Default: ${first.slug}.`),
  ],
  datasets: termed,
  defaultDataset: first,
  text(args, dataset = first, today) {
    const tools = toolsOf(dataset);
    const { param, kind } = dataset.entity;
    const id = args[param];
    const lender = id === undefined ? {} : { [param]: id };
    const best = bestRateOf(EXPLORER[dataset.slug]);
    return [
      `Help me choose between a floating rate and a fixed one, and for how long to fix (${dataset.label}${id === undefined ? '' : `, at ${id} or elsewhere`}).`,
      `1. Call ${call(tools.lowest, {})}: the ${best.word} open rate of floating and of each fixed term.`,
      `2. Call ${call(tools.breakEven, lender)}: for each pair of fixed terms, the rate the shorter term would have to be refixed at, for the rest of the longer one, to cost the same as fixing for the longer term.`,
      `3. Call ${call(tools.changes, { since: daysBefore(today, 29), ...lender })}: which way the rates moved in the last 30 days.`,
      ...(id === undefined ? [] : [`4. Call ${call(tools.detail, lender)}: that ${kind}'s own rates.`]),
      'Lay out the trade-off: the gap between floating and each fixed term; what each break-even rate means (fixing for the shorter term comes out ahead only if the rate at refixing is below it); ' +
        'and that a floating rate can be repaid or left at any time while breaking a fixed term may cost a fee (this data has no fees). ' +
        `The data says what lenders advertise, not what rates will do: present the figures, not a forecast. ${CAVEATS}`,
    ].join('\n');
  },
}));

/** The prompts, in the order prompts/list gives them. */
export const PROMPTS: readonly Prompt[] = [
  ...COMPARE_LENDERS_FOR_TERM,
  CHECK_QUOTE,
  WHAT_CHANGED_THIS_WEEK,
  ...FIX_OR_FLOAT,
];

/** Each prompt by name. */
export const PROMPT_BY_NAME: ReadonlyMap<string, Prompt> = new Map(PROMPTS.map((p) => [p.name, p]));

/** What prompts/list says of a prompt. */
export const promptEntry = (prompt: Prompt) => ({
  name: prompt.name,
  title: prompt.title,
  description: prompt.description,
  arguments: prompt.arguments.map(({ name, description, required }) => ({ name, description, required })),
});

const quoted = (value: unknown) => JSON.stringify(String(value).slice(0, 60));

/**
 * The arguments as strings and the dataset they name, or what is wrong with them, said so that
 * the call can be sent again right: the arguments the prompt takes and what each must be.
 */
export function readPromptArguments(
  prompt: Prompt,
  args: unknown,
): { values: Arguments; dataset: Dataset | undefined } | { problem: string } {
  const takes = `${prompt.name} takes ${listInWords(prompt.arguments.map((a) => `${a.name}${a.required ? ' (required)' : ''}`))}.`;
  if (args === undefined) args = {};
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return { problem: `arguments must be an object of named strings. ${takes}` };
  const problems: string[] = [];
  const values: Arguments = {};
  for (const [key, value] of Object.entries(args)) {
    const argument = prompt.arguments.find((a) => a.name === key);
    if (!argument) problems.push(`${prompt.name} does not take ${quoted(key)}`);
    else if (typeof value !== 'string') problems.push(`${key} must be a string, such as "${argument.example}"`);
    else {
      const issue = argument.format?.safeParse(value).error?.issues[0];
      if (issue) problems.push(`${key} ${issue.message} (got ${quoted(value)})`);
      else values[key] = value;
    }
  }
  for (const argument of prompt.arguments)
    if (argument.required && !Object.hasOwn(args, argument.name))
      problems.push(`${argument.name} is required, such as "${argument.example}"`);

  let dataset: Dataset | undefined;
  if (values.dataset !== undefined) {
    dataset = prompt.datasets.find((d) => d.slug === values.dataset);
    if (!dataset)
      problems.push(
        `dataset must be one of ${prompt.datasets.map((d) => d.slug).join(', ')} (got ${quoted(values.dataset)})`,
      );
  }
  // An id or a term the dataset (the one named, else the default) does not take.
  const chosen = dataset ?? prompt.defaultDataset;
  if (chosen) {
    for (const argument of prompt.arguments)
      if (
        argument.format === EntityIdParam &&
        values[argument.name] !== undefined &&
        argument.name !== chosen.entity.param
      )
        problems.push(`${chosen.slug} is by ${chosen.entity.kind}: give ${chosen.entity.param}, not ${argument.name}`);
    if (values[TERM] !== undefined && !hasTerms(chosen))
      problems.push(`${chosen.slug} has no terms: leave out ${TERM}`);
  } else {
    const ids = prompt.arguments.filter((a) => a.format === EntityIdParam && values[a.name] !== undefined);
    if (ids.length > 1) problems.push(`give one of ${listInWords(ids.map((a) => a.name))}, or a dataset`);
  }
  if (problems.length) return { problem: `${problems.join('; ')}. ${takes}` };
  return { values, dataset: chosen };
}
