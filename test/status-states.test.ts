/**
 * The states the status page shows (src/status/report.ts): each dataset's from its health and its
 * newest run, the banner's as the worst of them, the banner's sentence, and health's sentences with
 * their UTC times taken out to be said in New Zealand time. The page in a browser, with its colours,
 * is test/freshness-words.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import type { DatasetHealth, Health } from '../src/schemas/health.ts';
import {
  DATASET_STATES,
  type DatasetState,
  datasetState,
  headline,
  newestOutcomes,
  pageState,
  STATE_WORDS,
  sentenceParts,
} from '../src/status/report.ts';

const FRESH: DatasetHealth = {
  lastUpdated: '2025-03-05 01:32:05',
  lastChecked: '2026-11-27 21:00:00',
  stale: false,
  lastChanged: '2025-03-05 01:32:05',
  deployment: 'current',
};
const NEVER: DatasetHealth = { ...FRESH, lastChecked: null, stale: null, lastChanged: null, deployment: 'unknown' };
const collection = (status: Health['collection']['status'], required = false): Health['collection'] => ({
  status,
  store: 'filesystem',
  required,
});
const OK = collection('ok');
const health = (status: Health['status'], c = OK): Health => ({
  status,
  database: { status: status === 'error' ? 'error' : 'ok' },
  collection: c,
  datasets: {},
  problems: [],
  timestamp: '2026-11-27T21:00:00.000Z',
});

describe('a dataset’s state', () => {
  it.each<[string, DatasetHealth, Health['collection'], DatasetState]>([
    ['checked within the stale threshold and served', FRESH, OK, 'fresh'],
    ['never checked, no collector here', NEVER, collection('not_configured'), 'uncollected'],
    ['never checked while others are, no collector required', NEVER, OK, 'uncollected'],
    ['never checked where a collector is required', NEVER, collection('not_configured', true), 'unknown'],
    ['never checked: the status store could not be read', NEVER, collection('unavailable'), 'unknown'],
    ['not checked for longer than the stale threshold', { ...FRESH, stale: true }, OK, 'stale'],
    ['a newer collection not deployed', { ...FRESH, deployment: 'behind' }, OK, 'behind'],
    ['no data served', { ...FRESH, lastUpdated: null }, OK, 'missing'],
  ])('%s: %s', (_, record, c, state) => {
    expect(datasetState(record, c, undefined)).toBe(state);
  });

  it('is failing when its newest run failed or was refused, though it was checked within the stale threshold', () => {
    expect(datasetState(FRESH, OK, 'failed')).toBe('failing');
    expect(datasetState(FRESH, OK, 'refused')).toBe('failing');
    expect(datasetState(FRESH, OK, 'unchanged')).toBe('fresh');
    // Stale already says more than a failed run.
    expect(datasetState({ ...FRESH, stale: true }, OK, 'failed')).toBe('stale');
  });

  it('takes each dataset’s outcome from the newest run that collected it', () => {
    const run = (at: string, datasets: Record<string, 'ok' | 'failed'>) => ({
      at,
      outcome: 'ok' as const,
      datasets: Object.fromEntries(Object.entries(datasets).map(([slug, outcome]) => [slug, { outcome }])),
    });
    const outcomes = newestOutcomes([
      run('2026-11-27T19:00:00.000Z', { a: 'failed', b: 'failed' }),
      run('2026-11-27T20:00:00.000Z', { a: 'ok' }),
    ]);
    expect(Object.fromEntries(outcomes)).toEqual({ a: 'ok', b: 'failed' });
  });

  it('each state has its own words, and only fresh is called fresh', () => {
    const words = Object.values(STATE_WORDS);
    expect(new Set(words).size).toBe(words.length);
    expect(words.filter((w) => /fresh|ok|healthy/i.test(w))).toEqual(['Fresh']);
  });
});

describe('the banner', () => {
  it('follows the worst dataset', () => {
    expect(pageState(health('ok'), ['fresh', 'fresh'])).toBe('fresh');
    expect(pageState(health('ok'), ['fresh', 'uncollected'])).toBe('uncollected');
    expect(pageState(health('degraded'), ['fresh', 'stale', 'uncollected'])).toBe('stale');
    expect(pageState(health('degraded'), ['behind', 'stale'])).toBe('behind');
    for (const [i, state] of DATASET_STATES.entries())
      expect(pageState(health('degraded'), [...DATASET_STATES.slice(0, i + 1)].reverse())).toBe(
        i < DATASET_STATES.indexOf('unknown') ? 'unknown' : state,
      );
  });

  it('is never fresh or "not collected" when health is degraded, and says error when health does', () => {
    expect(pageState(health('degraded'), ['fresh'])).toBe('unknown');
    expect(pageState(health('degraded'), ['uncollected'])).toBe('unknown');
    expect(pageState(health('error'), ['fresh'])).toBe('error');
  });

  it('says what the state is', () => {
    expect(headline('fresh', health('ok'))).toBe('All datasets are fresh and served');
    expect(headline('uncollected', health('ok', collection('not_configured')))).toBe(
      'Serving the committed snapshots: no collector reports here',
    );
    expect(headline('failing', health('ok'))).toBe('The newest collection run failed for some datasets');
    expect(headline('stale', health('degraded'))).toBe('Something needs attention');
    expect(headline('error', health('error'))).toBe('The service cannot read its data');
  });
});

/** A dataset's slug, as health's sentences begin. */
const SLUG = DATASETS[0]!.slug;

describe('health’s sentences on the page', () => {
  it('keeps commands as code and takes out health’s UTC times, to be said in New Zealand time', () => {
    expect(
      sentenceParts(
        `${SLUG}: no successful collection since 2026-11-25 21:00:00 (more than 3 hours). Run \`npm run collect\`.`,
      ),
    ).toEqual([
      { text: `${SLUG}: no successful collection since ` },
      { time: new Date('2026-11-25T21:00:00.000Z') },
      { text: ' (more than 3 hours). Run ' },
      { code: 'npm run collect' },
      { text: '.' },
    ]);
    expect(sentenceParts('No time here.')).toEqual([{ text: 'No time here.' }]);
  });
});
