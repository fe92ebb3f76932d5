/**
 * What the collector accepts always builds. A lender named as one of the site's own addresses —
 * a measure's comparison page (/rates/personal-loans/other), an API segment after the dataset
 * (/api/v1/<dataset>/changes) — is refused at collection naming the clash, over a real socket
 * with the live page's markup; and from every snapshot tree a run leaves, the build's own checks
 * pass and the explorer's routes (each page the Astro routes would write) are all distinct.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservedSlugProblems } from '../src/changes/endpoint.ts';
import { collect } from '../src/collect/collect.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import {
  comparisonPaths,
  type DatasetView,
  datasetViews,
  entityMeasurePaths,
  entityUrl,
} from '../src/explorer/pages.ts';
import { ALERTS_SEGMENT, CHANGES_SEGMENT, LOWEST_SEGMENT, TIME_SERIES_SEGMENT } from '../src/paths.ts';
import { CreditCardIssuer, LoanInstitution } from '../src/schemas/rates.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { datasetOfSchema, datasetsOfSchema, EACH } from './support/datasets.ts';
import { expectNewestUntouched, newestSnapshots, type SnapshotFile, tempDir, treeOfNewest } from './support/history.ts';
import { startSourceServer, type SourceServer } from './support/source-server.ts';

let server: SourceServer;
let newest: Record<DatasetSlug, SnapshotFile>;

beforeAll(async () => {
  server = await startSourceServer();
  newest = await newestSnapshots();
});
afterAll(() => server.close());

const pathOf = (slug: DatasetSlug) => DATASETS.find((d) => d.slug === slug)!.sourcePath;
const CARDS = datasetOfSchema(CreditCardIssuer).slug;
const LOANS = datasetsOfSchema(LoanInstitution).map((d) => d.slug);

/** Collect the newest snapshot with one more lender, `name` (a copy of the second's offers), into a fresh tree. */
async function collectWithLender(slug: DatasetSlug, name: string) {
  const snapshots = await treeOfNewest();
  const data = structuredClone(newest[slug].data) as any[];
  data.push({ ...structuredClone(data[1]), id: `${data[1].id.split(':')[0]}:new`, name });
  server.serve(pathOf(slug), { page: renderRealStylePage(slug, data) });
  const [result] = await collect({
    baseUrl: server.url,
    snapshotsDir: snapshots,
    status: new FileStatusStore(await tempDir('rates-status-')),
    datasets: [slug],
    now: () => new Date('2026-11-21T03:00:00.000Z'),
    fetch: { timeoutMs: 20_000, retries: 0, retryDelayMs: 1 },
  });
  return { result: result!, snapshots };
}

/**
 * Every page the explorer's Astro routes write for a view, as its path: the lenders' pages and
 * their measure pages and feeds, the comparison pages and their feeds (src/pages/rates/[dataset]).
 */
function routesOf(view: DatasetView): string[] {
  const base = `/rates/${view.definition.path}`;
  return [
    ...view.latest.data.flatMap((e) => [
      `${entityUrl(view.definition, e.id)}/`,
      `${entityUrl(view.definition, e.id)}/changes.atom`,
    ]),
    ...entityMeasurePaths(view).map(
      ({ entity, measure }) => `${entityUrl(view.definition, entity.id)}/${measure.slug}/`,
    ),
    ...comparisonPaths(view).map(({ measure, rest }) => `${base}/${measure.slug}/${rest ? `${rest}/` : ''}`),
    ...comparisonPaths(view)
      .filter((p) => p.rest === undefined)
      .map(({ measure }) => `${base}/${measure.slug}/lowest.atom`),
  ];
}

/** The tree builds: the build's checks of reserved slugs and of addresses pass, and no two routes are one page. */
async function expectBuilds(snapshots: string) {
  const store = await compileSnapshotTree(snapshots);
  expect(reservedSlugProblems(store)).toEqual([]);
  const views = datasetViews(store); // throws "… would clash with a measure's", as the build does
  expect(views).toHaveLength(DATASETS.length);
  for (const view of views) {
    const routes = routesOf(view);
    expect(routes.filter((r, i) => routes.indexOf(r) !== i)).toEqual([]);
  }
}

describe('names the site’s own paths use are refused at collection', () => {
  it.each(LOANS)(
    '%s: a lender named "Other" is refused, naming its clash with the Other comparison page',
    async (slug) => {
      const { result, snapshots } = await collectWithLender(slug, 'Other');
      expect(result.outcome).toBe('failed');
      expect(result.reason).toContain('refused (a reserved slug)');
      expect(result.reason).toContain(
        `institution:other ("Other"): its page /rates/${EXPLORER[slug].path}/other would clash with a measure's (Other)`,
      );
      await expectNewestUntouched(snapshots, slug);
      await expectBuilds(snapshots);
    },
  );

  it(`${CARDS}: an issuer named "Purchase" is refused, naming its clash with the Purchase comparison page`, async () => {
    const { result, snapshots } = await collectWithLender(CARDS, 'Purchase');
    expect(result.outcome).toBe('failed');
    expect(result.reason).toContain(
      `refused (a reserved slug): issuer:purchase ("Purchase"): its page /rates/${EXPLORER[CARDS].path}/purchase would clash with a measure's (Purchase)`,
    );
    await expectNewestUntouched(snapshots, CARDS);
  });

  it.each(EACH)('%s: a lender named "Time series" is refused: its API address is the time series', async (slug) => {
    const { result, snapshots } = await collectWithLender(slug, 'Time series');
    expect(result.reason).toMatch(
      new RegExp(
        `^refused \\(a reserved slug\\): \\w+:time-series \\("Time series"\\): /api/v1/${slug}/time-series is an endpoint of the API`,
      ),
    );
    await expectNewestUntouched(snapshots, slug);
  });
});

describe('what the collector accepts always builds', () => {
  it.each(EACH)(
    '%s: a lender named after each measure and API segment, or an ordinary new name: every tree a run leaves builds',
    async (slug) => {
      const names = [
        ...EXPLORER[slug].measures.map((m) => m.label),
        ...[TIME_SERIES_SEGMENT, CHANGES_SEGMENT, LOWEST_SEGMENT, ALERTS_SEGMENT].map((s) => s.replace('-', ' ')),
        'Aotearoa Credit Union',
      ];
      const outcomes: Record<string, string> = {};
      for (const name of names) {
        const { result, snapshots } = await collectWithLender(slug, name);
        outcomes[name] = result.outcome;
        if (result.outcome === 'failed') await expectNewestUntouched(snapshots, slug);
        else {
          const written = JSON.parse(await readFile(join(snapshots, result.file!), 'utf8'));
          expect(written.data.map((e: any) => e.name)).toContain(name);
        }
        await expectBuilds(snapshots);
      }
      // Only the ordinary name is collected: every other takes an address the site or the API uses.
      expect(Object.entries(outcomes).filter(([, outcome]) => outcome !== 'failed')).toEqual([
        ['Aotearoa Credit Union', 'written'],
      ]);
    },
  );
});
