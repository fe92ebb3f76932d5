/**
 * A dataset whose newer collection is still being deployed (health's `deployment: "pending"`) is
 * shown as Fresh, since it is served within the grace health gives a deployment: the banner and
 * the deploying page say so rather than calling every dataset served.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { durationWords, loadDocPages } from '../src/docs/pages.ts';
import { STALE_AFTER } from '../src/lib/stale-after.ts';
import { DEPLOY_GRACE_MS } from '../src/status/health.ts';
import type { DatasetHealth, Health } from '../src/schemas/health.ts';
import { datasetState, headline, pageState } from '../src/status/report.ts';
import { ROOT, SITE } from './support/constants.ts';

const dataset = (deployment: DatasetHealth['deployment']): DatasetHealth => ({
  lastUpdated: '2025-03-05 01:32:05',
  lastChecked: '2026-11-27 21:00:00',
  stale: false,
  lastChanged: '2026-11-27 20:50:00',
  deployment,
});
const healthOf = (deployments: DatasetHealth['deployment'][]): Health => ({
  status: 'ok',
  database: { status: 'ok' },
  collection: { status: 'ok', store: 'filesystem', required: false },
  datasets: Object.fromEntries(DATASETS.map((d, i) => [d.slug, dataset(deployments[i] ?? 'current')])),
  problems: [],
  timestamp: '2026-11-27T21:00:00.000Z',
});

describe('a newer collection being deployed', () => {
  it('is Fresh, and the banner says it is being deployed rather than that every dataset is served', () => {
    const pending = healthOf(['pending']);
    const states = Object.values(pending.datasets).map((d) => datasetState(d, pending.collection, 'ok'));
    expect(states.every((s) => s === 'fresh')).toBe(true);
    expect(pageState(pending, states)).toBe('fresh');
    expect(headline('fresh', pending)).toBe('All datasets are fresh; a newer collection is being deployed');
    expect(headline('fresh', healthOf([]))).toBe('All datasets are fresh and served');
  });

  it('the deploying page defines Fresh with the stale threshold and the deployment grace health gives', async () => {
    // As the docs site shows it: {{staleAfter}} from STALE_AFTER, {{deployGrace}} from DEPLOY_GRACE_MS.
    const pages = await loadDocPages({ contentDir: join(ROOT, 'content/docs'), site: SITE, examples: {}, figures: [] });
    const text = pages.find((p) => p.slug === 'deploying')!.markdown.replace(/\s+/g, ' ');
    expect(text).toContain(
      `**Fresh** (green: checked within ${STALE_AFTER.words}, its newest run fine, the newest data served — or a newer collection being deployed, for at most ${durationWords(DEPLOY_GRACE_MS / 1000)}, which its row and the banner say)`,
    );
  });
});
