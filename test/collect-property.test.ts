/**
 * Generated pages, checked by a property. Each page is the real-style fixture of a dataset's
 * newest snapshot (test/fixtures/real-style-page.ts), changed by one to four mutations of the
 * grammar in test/support/page-grammar.ts, which knows what the changed page says
 * (test/support/page-truth.ts). Served over a real socket and collected against a fresh copy of
 * the newest snapshot tree, each page is either refused, the dataset's snapshots byte for byte as
 * they were, or written exactly as it says — every offer under its lender, item and measure,
 * nothing more, every offer the snapshot already held under its old id — into a tree the site
 * builds (test/support/collect-property.ts). Pages the collector must refuse are refused, and
 * pages of benign mutations alone (the same statements written differently) are collected.
 *
 * Budget, from fixed seeds: PAGES generated pages and BENIGN benign ones per dataset, 960 pages in
 * all, about 35 ms of CPU each: some 40 s on an idle 2-core machine when the property holds, about
 * a minute under the load of parallel jobs (each dataset's line prints its figures). A failure
 * shrinks to fewer mutations and fewer lenders, and fast-check prints it with the collector's
 * answer; `npm run fuzz:collect -- --seconds 600` runs the same property as long as asked and keeps
 * each shrunk failure in test/fixtures/collect-regressions/, replayed below.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as cheerio from 'cheerio';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetSlug } from '../src/datasets.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import {
  checkPage,
  closeWorld,
  collectProperty,
  explain,
  type Regression,
  specOf,
  Tally,
  type World,
  openWorld,
  pageOf,
} from './support/collect-property.ts';
import { EACH } from './support/datasets.ts';
import { historyDir, newestDates } from './support/history.ts';
import { MUTATIONS } from './support/page-grammar.ts';
import { basePage, layoutOfDataset, renderPage } from './support/page-model.ts';
import { offerKey, offersOfSnapshot, truthOf } from './support/page-truth.ts';

/** Generated pages per dataset, and benign ones. */
const PAGES = 200;
const BENIGN = 40;
/** One seed per dataset, fixed: the same pages every run. */
const SEED = 20_261_127;

const REGRESSIONS_DIR = join(import.meta.dirname, 'fixtures/collect-regressions');
const REGRESSIONS = readdirSync(REGRESSIONS_DIR)
  .filter((name) => name.endsWith('.json'))
  .map((name) => [name, JSON.parse(readFileSync(join(REGRESSIONS_DIR, name), 'utf8')) as Regression] as const);

let world: World;
beforeAll(async () => {
  world = await openWorld(historyDir(), newestDates());
});
afterAll(() => closeWorld(world));

const allLenders = (slug: DatasetSlug) => world.newest[slug].data.map((_, i) => i);
const sortedOffers = (offers: { lender: string; item: string; measure: string; value: string }[]) =>
  offers.map((o) => `${offerKey(o)} = ${o.value}`).sort();

describe('the page model', () => {
  it.each(EACH)(
    '%s: renders the real-style page cell for cell, and says what the newest snapshot holds',
    (slug, dataset) => {
      const data = world.newest[slug].data;
      const page = basePage(dataset, data);
      const cells = (html: string) => {
        const $ = cheerio.load(html);
        return $('td, th')
          .toArray()
          .map((cell) => $.html(cell));
      };
      expect(cells(renderPage(page))).toEqual(cells(renderRealStylePage(slug, data)));
      const truth = truthOf(page);
      expect(truth.verdict).toBe('accept');
      expect(sortedOffers(truth.offers)).toEqual(sortedOffers(offersOfSnapshot(layoutOfDataset(dataset), data)));
    },
  );

  it.each(EACH)('%s: each benign mutation, wherever it lands, leaves what the page says as it was', (slug, dataset) => {
    const expected = sortedOffers(offersOfSnapshot(layoutOfDataset(dataset), world.newest[slug].data));
    for (const mutation of MUTATIONS.filter((m) => m.benign))
      for (const picks of [[0], [1, 2, 3, 4, 5, 6], [7, 13, 5, 2, 9, 1]]) {
        const { page, applied } = pageOf(world, dataset, {
          lenders: allLenders(slug),
          mutations: [{ name: mutation.name, picks }],
        });
        if (applied.length === 0) continue;
        const truth = truthOf(page);
        expect(truth.why, mutation.name).toEqual([]);
        expect(sortedOffers(truth.offers), mutation.name).toEqual(expected);
      }
  });

  it('every mutation applies to the page of some dataset', () => {
    const unused = MUTATIONS.filter(
      (m) =>
        !EACH.some(([slug, dataset]) =>
          [[], [1, 2, 3, 4, 5, 6]].some(
            (picks) =>
              pageOf(world, dataset, { lenders: allLenders(slug), mutations: [{ name: m.name, picks }] }).applied
                .length > 0,
          ),
        ),
    ).map((m) => m.name);
    expect(unused).toEqual([]);
  });
});

describe.each(EACH)('%s: generated pages', (slug, dataset) => {
  const seed = SEED + EACH.findIndex(([s]) => s === slug);

  it(`${PAGES} pages: each refused, the newest snapshot untouched, or written exactly as it says`, async () => {
    const tally = new Tally();
    const started = performance.now();
    await fc.assert(collectProperty(world, dataset, { tally }), { seed, numRuns: PAGES });
    console.log(`${slug}: ${tally.summary} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 300_000);

  it(`${BENIGN} pages of benign mutations alone are collected as the newest snapshot holds`, async () => {
    const tally = new Tally();
    await fc.assert(collectProperty(world, dataset, { benign: true, tally }), { seed, numRuns: BENIGN });
    expect(tally.refused + tally.failed).toBe(0);
  }, 300_000);
});

describe('kept regressions (test/fixtures/collect-regressions)', () => {
  it.each(REGRESSIONS)('%s', async (_, regression) => {
    const dataset = EACH.find(([slug]) => slug === regression.dataset)![1];
    const checked = await checkPage(world, dataset, specOf(world, regression));
    expect(checked.applied.length, 'the recipe still applies').toBeGreaterThan(0);
    expect(checked.wrong, explain(checked)).toEqual([]);
  });
});
