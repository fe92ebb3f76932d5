/**
 * What the docs and llms.txt say about the change log, the feeds and the CSV downloads, made from
 * the dataset table (so every address is written once, in src/changes/urls.ts) and from the real
 * examples the build collects.
 */
import { DATASETS } from '../datasets.ts';
import type { ExampleSet } from '../examples.ts';
import { changesOperationId } from '../changes/endpoint.ts';
import { csvColumns } from '../changes/csv.ts';
import {
  ALL_FEED_URL,
  changesApiUrl,
  csvUrl,
  csvYearUrlPattern,
  datasetFeedUrl,
  entityFeedUrl,
} from '../changes/urls.ts';

const code = (text: string) => `\`${text}\``;

/** How many values of each kind the example keeps. */
const KEPT_VALUES = 2;

/**
 * A JSON example cut to its last date and that date's first values of each kind, so it stays
 * readable (and valid), with what was cut in words; nothing to say when nothing was cut.
 */
function cut(answer: unknown): { body: unknown; words: string[] } {
  const body = answer as { changes?: unknown } | null;
  if (!body || !Array.isArray(body.changes)) return { body, words: [] };
  type Day = { changed: unknown[]; added: unknown[]; removed: unknown[] };
  const days: Day[] = body.changes;
  const last = days.at(-1);
  const kinds = ['changed', 'added', 'removed'] as const;
  const words = [
    ...(days.length > 1 ? [`\`changes\` cut to its last of ${days.length} dates`] : []),
    ...kinds
      .filter((kind) => (last?.[kind].length ?? 0) > KEPT_VALUES)
      .map((kind) => `\`${kind}\` to its first ${KEPT_VALUES} of ${last![kind].length}`),
  ];
  const short = (list: unknown[]) => list.slice(0, KEPT_VALUES);
  return {
    body: {
      ...body,
      changes: days
        .slice(-1)
        .map((day) => ({ ...day, changed: short(day.changed), added: short(day.added), removed: short(day.removed) })),
    },
    words,
  };
}

const changesExample = (site: string, request: string, { body, words }: ReturnType<typeof cut>) =>
  [
    '```sh',
    `curl '${site}${request}'`,
    '```',
    '',
    `Response \`200\` (real data${words.length ? `; ${words.join('; ')}` : ''}):`,
    '',
    '```json',
    JSON.stringify(body, null, 2),
    '```',
  ].join('\n');

/** `{{changeFeeds}}`, `{{changeColumns}}` and `{{changesExample}}` for content/docs/changes.md. */
export function changesSubstitutions(site: string, examples: ExampleSet): Record<string, string> {
  const mortgages = DATASETS[0];
  const example = examples[changesOperationId(mortgages)]?.find((e) => e.status === 200);
  return {
    changeFeeds: [
      '| dataset | change log (JSON) | Atom feed | one institution or issuer | newest snapshot (CSV) | newest two years (CSV) | one year (CSV) |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...DATASETS.map(
        (d) =>
          `| ${d.title} | ${code(changesApiUrl(d))} | [${datasetFeedUrl(d)}](${datasetFeedUrl(d)}) | ${code(entityFeedUrl(d, `${d.entity.prefix}:<slug>`))} | ` +
          `[${csvUrl(d, 'latest').split('/').pop()}](${csvUrl(d, 'latest')}) | [${csvUrl(d, 'history').split('/').pop()}](${csvUrl(d, 'history')}) | ${code(csvYearUrlPattern(d).split('/').pop()!)} |`,
      ),
      `| every dataset | — | [${ALL_FEED_URL}](${ALL_FEED_URL}) | — | — | — | — |`,
    ].join('\n'),
    changeColumns: [
      '| dataset | columns |',
      '| --- | --- |',
      ...DATASETS.map((d) => `| ${d.title} | ${csvColumns(d).map(code).join(', ')} |`),
    ].join('\n'),
    changesExample: example
      ? changesExample(site, example.request, cut(example.body))
      : '_No change has been collected yet._',
  };
}

/** The llms.txt lines: the change log of each dataset, the feeds and the downloads. */
export function changesLlmsLines(site: string): string[] {
  const link = (title: string, url: string, description: string) => `- [${title}](${site}${url}): ${description}`;
  return [
    ...DATASETS.map((d) =>
      link(
        `${d.title} changes`,
        changesApiUrl(d),
        `per snapshot date since a date (since=YYYY-MM-DD, default 30 days), the values that changed, were added or removed, each with its direction (up, down, new, gone) and, for a rate, bps (basis points); ${d.entity.param} keeps one ${d.entity.kind}, direction=down,new some directions, minBps=25 the rate moves of at least 25 basis points`,
      ),
    ),
    link('Atom feed of every change', ALL_FEED_URL, 'one entry per snapshot that moved a rate, every dataset'),
    ...DATASETS.flatMap((d) => [
      link(
        `${d.title} Atom feed`,
        datasetFeedUrl(d),
        `changes to ${d.label}; one feed per ${d.entity.kind} at ${entityFeedUrl(d, `${d.entity.prefix}:<slug>`)}`,
      ),
      link(
        `${d.title} as CSV`,
        csvUrl(d, 'latest'),
        `the newest snapshot; the snapshots of the newest two years are ${csvUrl(d, 'history')}, those of one year ${csvYearUrlPattern(d)} (the dataset's page lists every year)`,
      ),
    ]),
  ];
}
