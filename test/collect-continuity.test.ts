/**
 * The first live run must continue the history: the newest committed snapshot of each dataset,
 * rendered in the real page's markup and spellings (test/fixtures/real-style-page.ts), collects as
 * unchanged. And every entry of the spelling and alias tables does what it says, towards a form
 * the committed history holds.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../src/collect/collect.ts';
import { historySpelling, INSTITUTION_ALIASES, institutionName, SPELLINGS } from '../src/collect/page-spellings.ts';
import { PAGE_PARSERS } from '../src/collect/parsers/index.ts';
import { DATASETS } from '../src/datasets.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { CreditCardIssuer } from '../src/schemas/rates.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { historyDir, newestSnapshots, tempDir, treeOfNewest } from './support/history.ts';
import { startSourceServer, type SourceServer } from './support/source-server.ts';

let server: SourceServer;
beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(() => server.close());

describe('the newest snapshot, as the live page writes it, collects as unchanged', () => {
  it.each(DATASETS.map((d) => d.slug))('%s', async (slug) => {
    const newest = (await newestSnapshots())[slug];
    const dataset = DATASETS.find((d) => d.slug === slug)!;
    const page = renderRealStylePage(slug, newest.data);
    // The markup really is the page's, not the history's: card texts take the page's spellings.
    if (dataset.entitySchema === CreditCardIssuer) expect(SPELLINGS.some((s) => page.includes(s.page))).toBe(true);
    server.serve(dataset.sourcePath, { page });
    const [result] = await collect({
      baseUrl: server.url,
      snapshotsDir: await treeOfNewest(),
      status: new FileStatusStore(await tempDir('rates-status-')),
      datasets: [slug],
      fetch: { timeoutMs: 2_000, retries: 0, retryDelayMs: 1 },
    });
    expect(result!.reason).toBeUndefined();
    expect(result!.unreadable).toEqual([]);
    expect(result!.outcome).toBe('unchanged');
  });
});

/** Every name and card text the committed history holds, in any snapshot. */
async function historyTexts(): Promise<{ names: Set<string>; plans: Set<string>; periods: Set<string> }> {
  const texts = { names: new Set<string>(), plans: new Set<string>(), periods: new Set<string>() };
  for (const dataset of DATASETS) {
    for (const file of await readdir(join(historyDir(), dataset.slug))) {
      const snapshot = JSON.parse(await readFile(join(historyDir(), dataset.slug, file), 'utf8'));
      for (const entity of snapshot.data) {
        texts.names.add(entity.name);
        for (const plan of entity.plans ?? []) {
          texts.plans.add(plan.name);
          if (plan.balanceTransferPeriod) texts.periods.add(plan.balanceTransferPeriod);
        }
      }
    }
  }
  return texts;
}

describe('the alias table', () => {
  it.each(INSTITUTION_ALIASES.map((a) => [a.label, a.name]))(
    '"%s" is "%s", a name the history holds',
    async (label, name) => {
      expect(institutionName(label)).toBe(name);
      expect((await historyTexts()).names).toContain(name);
    },
  );

  it('a label the table does not list keeps its own name: no two names become one unless listed', () => {
    expect(institutionName('A.N.Z.')).toBe('A.N.Z.');
    expect(institutionName('Nelson Building Society')).toBe('Nelson Building Society');
  });

  it.each(DATASETS.map((d) => [d.slug, d] as const))(
    '%s: a page that labels an entity by an alias files its items under the history’s id',
    async (slug, dataset) => {
      const [first] = (await newestSnapshots())[slug].data;
      const html = renderSourcePage(slug, [{ ...first, name: 'Nelson Bldg Socy' }], { quirks: false });
      const [nelson] = PAGE_PARSERS[slug](html).data as any[];
      expect(nelson.id).toBe(`${dataset.entity.prefix}:nelson-bldg-society`);
      const item = dataset.itemsKey === 'plans' ? 'plan' : 'product';
      for (const { id } of nelson[dataset.itemsKey]) expect(id).toMatch(new RegExp(`^${item}:nelson-bldg-society:`));
    },
  );
});

describe('the spelling table', () => {
  it.each(SPELLINGS.map((s) => [s.page, s.history, s.field] as const))(
    '"%s" is "%s" in a card %s, a form the history holds',
    async (page, history, field) => {
      const text = field === 'plan' ? `${page} Platinum` : `6 ${page}`;
      expect(historySpelling(text, field)).toBe(field === 'plan' ? `${history} Platinum` : `6 ${history}`);
      const held = [...(await historyTexts())[field === 'plan' ? 'plans' : 'periods']];
      expect(held.some((t) => t.includes(history))).toBe(true);
    },
  );

  it('a plan name or period takes the capital first letter the history gives it', () => {
    expect(historySpelling('life of bal tsfrd', 'period')).toBe('Life of balance transferred');
    expect(historySpelling('airpoint Visa Platinum', 'plan')).toBe('Airpoints Visa Platinum');
  });
});
