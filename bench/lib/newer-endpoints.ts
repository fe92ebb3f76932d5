/**
 * The endpoints of issue 37 on a running production server: the time of a URL's first request
 * (worked out from the history and kept) and of a repeat (the kept answer), each the median of
 * several. An alert feed is worked out once per selection and threshold, so its "first request"
 * row asks a new threshold each time: what a caller who varies `below=` costs the server, the one
 * answer here whose work grows with the history. The issue states no speed floor: these are
 * figures to watch as the history grows, not targets.
 */
import { alertsEndpointOf, exampleMeasureQuery } from '../../src/api/alerts.ts';
import type { Dataset } from '../../src/datasets.ts';
import { endpointsOf } from '../../src/endpoints.ts';
import { INSTITUTIONS_PATH, STATUS_PATH } from '../../src/paths.ts';
import { fmt, median, timedGet } from './harness.ts';

/** Requests per row: the median of this many. */
const SAMPLES = 7;

interface Row {
  name: string;
  /** The path of the i-th first request: a URL no earlier request asked. */
  first: (i: number) => string;
  /** The path a repeat asks (answered from what the first request kept). */
  repeat: string;
}

function rowsOf(dataset: Dataset): Row[] {
  const lowest = endpointsOf(dataset).lowest.path;
  // Distinct thresholds a hundredth apart, all above every rate here: each feed has its items.
  const alerts = (i: number) =>
    `${alertsEndpointOf(dataset).path}?${exampleMeasureQuery(dataset)}&below=${(30 + i / 100).toFixed(2)}`;
  return [
    { name: `${dataset.label}: lowest`, first: () => lowest, repeat: lowest },
    { name: `${dataset.label}: alerts, a new threshold each request`, first: alerts, repeat: alerts(0) },
    { name: 'institutions (every dataset)', first: () => INSTITUTIONS_PATH, repeat: INSTITUTIONS_PATH },
    { name: 'status figures (run log)', first: () => STATUS_PATH, repeat: STATUS_PATH },
  ];
}

/**
 * The table's lines for a server nobody has asked these URLs yet. A row whose first request
 * does not change its URL (lowest, institutions, status) has one first request: the rest are repeats.
 */
export async function newerEndpointsRows(url: string, dataset: Dataset, history: string): Promise<string[]> {
  const lines: string[] = [];
  for (const row of rowsOf(dataset)) {
    const firsts: number[] = [];
    let status = 0;
    let bytes = 0;
    const distinct = row.first(0) !== row.first(1);
    for (let i = 0; i < (distinct ? SAMPLES : 1); i++) {
      const answer = await timedGet(`${url}${row.first(i)}`);
      ({ status, bytes } = answer);
      firsts.push(answer.totalMs);
    }
    const repeats: number[] = [];
    for (let i = 0; i < SAMPLES; i++) repeats.push((await timedGet(`${url}${row.repeat}`)).totalMs);
    lines.push(
      `| ${history} | ${row.name} | ${status} | ${fmt(bytes / 1e3, 1)} KB | ${fmt(median(firsts), 1)} ms${distinct ? ` (median of ${SAMPLES})` : ''} | ${fmt(median(repeats), 1)} ms |`,
    );
  }
  return lines;
}

export const NEWER_ENDPOINTS_HEADER = [
  `| history | request | status | body | first request of a URL | a repeat (median of ${SAMPLES}) |`,
  '| --- | --- | ---: | ---: | ---: | ---: |',
];
