/**
 * What each dataset's test data must hold for the tests that read it, as CONTRIBUTING.md ("Adding
 * a dataset", step 4) says, each need with the test that depends on it: its newest test snapshot
 * lists at least LEAST_ENTITIES institutions or issuers; one of them has a rate the guard tests'
 * ×5 moves more than the guard's limit; some rate is above 2 %; some entity lists a different
 * number of products or plans from the example entity; and its example id is the one every
 * dataset of its entity kind names. A dataset collected after the test history's last date brings
 * its test data in test/fixtures/history/<slug>/. Each check says why when it fails.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as cheerio from 'cheerio';
import { beforeAll, describe, expect, it } from 'vitest';
import { GUARD_LIMITS } from '../src/collect/guards.ts';
import { makeId } from '../src/collect/ids.ts';
import { DATASETS, type DatasetSlug, type Entity, itemsOf } from '../src/datasets.ts';
import { countWord } from '../src/lib/words.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { ROOT } from './support/constants.ts';
import { allRates, newestSnapshots, type SnapshotFile } from './support/history.ts';

/**
 * The fewest entities the collector tests work with. The fixture pages spread a dataset's entities
 * over up to four sections by their order, and a test drops a section that must hold one
 * (test/collect-run.test.ts); the guard tests keep 51 % of them, then 51 % of that, and replace
 * 49 % of them twice (test/collect-shapes.test.ts), which the guards refuse only when the rounding
 * leaves fewer than half: with four it leaves exactly half. Cut to five, the card issuers' first
 * plans repeat names past the repeated-rows share in the replacement test; six is the fewest every
 * dataset's fixtures pass those tests with.
 */
const LEAST_ENTITIES = 6;

/**
 * test/collect-guards.test.ts multiplies every rate of every other lender by five, capped at 39 %,
 * from the first lender with a rate that moves more than the guard's limit so, and expects the
 * refusal to name its move: a rate between 1.25 % and 34 % does (the limit being 5 points).
 */
const movesTimesFive = (rate: number) => Math.min(39, rate * 5) - rate > GUARD_LIMITS.maxRateMove;

/** test/collect-windows.test.ts's cash-rate week lowers only the rates above 2 %, and expects each day written. */
const CASH_RATE_WEEK_ABOVE = 2;

let newest: Record<DatasetSlug, SnapshotFile>;
beforeAll(async () => {
  newest = await newestSnapshots();
});

const tables = (html: string) => cheerio.load(html)('table.interest_financial_datatable').length;

/** Step 4 of CONTRIBUTING.md's "Adding a dataset", its spaces made single. */
async function fixturesStep(): Promise<string> {
  const text = await readFile(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  return text.slice(text.indexOf('4. **Fixtures**'), text.indexOf('5. **Docs page**')).replace(/\s+/g, ' ');
}

describe('the least test data a dataset needs', () => {
  it.each(DATASETS.map((d) => d.slug))('%s: its newest test snapshot lists enough entities', (slug) => {
    expect(newest[slug].data.length).toBeGreaterThanOrEqual(LEAST_ENTITIES);
  });

  it.each(DATASETS.map((d) => d.slug))(
    '%s: drawn with the least entities, each fixture page has every section it has when drawn with all',
    (slug) => {
      const data = newest[slug].data;
      const least = data.slice(0, LEAST_ENTITIES);
      expect(tables(renderSourcePage(slug, least))).toBe(tables(renderSourcePage(slug, data)));
      expect(tables(renderRealStylePage(slug, least))).toBe(tables(renderRealStylePage(slug, data)));
    },
  );

  it("CONTRIBUTING.md's checklist states the least number", async () => {
    expect(await fixturesStep()).toContain(
      `at least ${countWord(LEAST_ENTITIES)} institutions or issuers (\`LEAST_ENTITIES\``,
    );
  });
});

describe('the rates a dataset’s newest test snapshot needs', () => {
  it('×5 moves a rate past the guard’s limit exactly between 1.25 % and 34 %, as CONTRIBUTING.md says', async () => {
    expect([1.25, 1.26, 33.99, 34].map(movesTimesFive)).toEqual([false, true, true, false]);
    expect(await fixturesStep()).toContain('a rate above 1.25 % and below 34 % in some institution or issuer');
  });

  it.each(DATASETS.map((d) => d.slug))('%s: some entity has a rate ×5 moves past the guard’s limit', (slug) => {
    expect(
      allRates(newest[slug].data).some((r) => movesTimesFive(r.value)),
      `${slug}'s newest test snapshot needs a rate above 1.25 % and below 34 %: test/collect-guards.test.ts moves ` +
        'the rates of every other lender from the first holding one ×5 (capped at 39 %) and expects the guard to refuse its move',
    ).toBe(true);
  });

  it.each(DATASETS.map((d) => d.slug))('%s: some rate is above 2 %', (slug) => {
    expect(
      allRates(newest[slug].data).some((r) => r.value > CASH_RATE_WEEK_ABOVE),
      `${slug}'s newest test snapshot needs a rate above ${CASH_RATE_WEEK_ABOVE} %: test/collect-windows.test.ts's cash-rate week lowers only those, and expects each day's page written`,
    ).toBe(true);
  });
});

describe('the entities a dataset’s newest test snapshot needs', () => {
  it.each(DATASETS.map((d) => [d.slug, d] as const))(
    '%s: an entity lists a different number of items from the one the rename tests rename',
    (slug, dataset) => {
      const data = newest[slug].data as Entity[];
      // The entity test/collect-summary.test.ts renames: the example entity, if its id is its name's.
      const candidates = data.filter((e) => itemsOf(e).length > 0 && makeId(dataset.entity.prefix, e.name) === e.id);
      const renamed = candidates.find((e) => e.id === dataset.exampleEntityId) ?? candidates[0];
      expect(renamed, `${slug} needs an entity with items whose id is made from its name`).toBeDefined();
      expect(
        data.some((e) => itemsOf(e).length > 0 && itemsOf(e).length !== itemsOf(renamed!).length),
        `${slug}'s newest test snapshot needs an entity listing a different number of ${dataset.itemsKey} from ${renamed!.id}: ` +
          'test/collect-summary.test.ts renames such an entity to check that no rename is suggested for one that lists other things',
      ).toBe(true);
    },
  );

  it('every dataset of one entity kind declares the same example id', () => {
    for (const d of DATASETS) {
      const first = DATASETS.find((o) => o.entity.kind === d.entity.kind)!;
      expect(
        d.exampleEntityId,
        `${d.slug}'s exampleEntityId must be ${first.slug}'s: the MCP instructions (src/mcp/instructions.ts) name one example id per entity kind, ` +
          "and test/mcp-http.test.ts and test/mcp-client.test.ts expect every dataset's in them; so its test history must list that entity too",
      ).toBe(first.exampleEntityId);
    }
  });
});

it("CONTRIBUTING.md's checklist names the test behind each need", async () => {
  const step = await fixturesStep();
  for (const test of [
    'test/collect-run.test.ts',
    'test/collect-shapes.test.ts',
    'test/collect-guards.test.ts',
    'test/collect-windows.test.ts',
    'test/collect-summary.test.ts',
    'test/mcp-http.test.ts',
    'test/datasets.test.ts',
  ])
    expect(step, test).toContain(`\`${test}\``);
});
