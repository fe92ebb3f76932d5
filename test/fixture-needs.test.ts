/**
 * What each dataset's test data must hold for the collector tests, as CONTRIBUTING.md ("Adding a
 * dataset", step 4) says: its newest test snapshot lists at least LEAST_ENTITIES institutions or
 * issuers. A dataset collected after the test history's last date brings it in
 * test/fixtures/history/<slug>/.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as cheerio from 'cheerio';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { countWord } from '../src/lib/words.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { ROOT } from './support/constants.ts';
import { newestSnapshots, type SnapshotFile } from './support/history.ts';

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

let newest: Record<DatasetSlug, SnapshotFile>;
beforeAll(async () => {
  newest = await newestSnapshots();
});

const tables = (html: string) => cheerio.load(html)('table.interest_financial_datatable').length;

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
    const text = await readFile(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
    const step = text.slice(text.indexOf('4. **Fixtures**'), text.indexOf('5. **Docs page**')).replace(/\s+/g, ' ');
    expect(step).toContain(`at least ${countWord(LEAST_ENTITIES)} institutions or issuers (\`LEAST_ENTITIES\``);
  });
});
