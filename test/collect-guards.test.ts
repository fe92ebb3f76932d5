/**
 * A hostile or broken page publishes nothing wrong and blocks nothing: each page below, served to
 * the collector over a real socket, is refused with the dataset, the rule and the evidence, and
 * the newest snapshot stays byte for byte; what the collector keeps has clean names; and what the
 * collector refuses for its bounds and names, the build refuses too (one schema, both sides).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../src/collect/collect.ts';
import { GUARD_LIMITS } from '../src/collect/guards.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { INVISIBLE_CHARACTERS } from '../src/schemas/common.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { NEWEST } from './support/constants.ts';
import { historyDir, newestSnapshots, type SnapshotFile, tempDir, treeOfNewest } from './support/history.ts';
import { startSourceServer, type SourceServer } from './support/source-server.ts';

let server: SourceServer;
let newest: Record<DatasetSlug, SnapshotFile>;
let snapshots: string;
const pathOf = (slug: DatasetSlug) => DATASETS.find((d) => d.slug === slug)!.sourcePath;

beforeAll(async () => {
  server = await startSourceServer();
  newest = await newestSnapshots();
});
afterAll(() => server.close());
beforeEach(async () => {
  snapshots = await treeOfNewest();
});

/** Serve `data` as the dataset's page and collect it: the run's result for that dataset. */
async function collectPage(slug: DatasetSlug, page: string) {
  server.serve(pathOf(slug), { page });
  const [result] = await collect({
    baseUrl: server.url,
    snapshotsDir: snapshots,
    status: new FileStatusStore(await tempDir('rates-status-')),
    datasets: [slug],
    fetch: { timeoutMs: 5_000, retries: 0, retryDelayMs: 1 },
  });
  return result!;
}

const collectData = (slug: DatasetSlug, data: any[]) =>
  collectPage(slug, renderSourcePage(slug, data, { quirks: false }));

/** A refusal: the dataset failed, nothing was written, the newest snapshot is the same bytes. */
async function expectRefused(slug: DatasetSlug, result: Awaited<ReturnType<typeof collectPage>>, rule: string) {
  expect(result.outcome).toBe('failed');
  expect(result.reason).toContain(`refused (${rule})`);
  expect(await readdir(join(snapshots, slug))).toEqual([`${NEWEST[slug]}.json`]);
  expect(await readFile(join(snapshots, slug, `${NEWEST[slug]}.json`), 'utf8')).toBe(
    await readFile(join(historyDir(), slug, `${NEWEST[slug]}.json`), 'utf8'),
  );
  return result.reason!;
}

const mortgage = () => structuredClone(newest['mortgage-rates'].data) as any[];
const cards = () => structuredClone(newest['credit-card-rates'].data) as any[];

describe('identity and size, against the newest snapshot', () => {
  it('a page of other lenders is refused, even when it has as many', async () => {
    const strangers = mortgage().map((e, i) => ({ ...e, id: `institution:lender-${i}`, name: `Lender ${i}` }));
    const reason = await expectRefused(
      'mortgage-rates',
      await collectData('mortgage-rates', strangers),
      'other lenders',
    );
    expect(reason).toContain("only 0 of the newest snapshot's 34 institutions are listed");
  });

  it('every lender listed twice, once at 0.01 %, is refused: the page grew past 150 %', async () => {
    const twice = mortgage().flatMap((e) => [
      e,
      {
        ...e,
        products: e.products.map((p: any) => ({ ...p, rates: p.rates.map((r: any) => ({ ...r, rate: 0.01 })) })),
      },
    ]);
    await expectRefused('mortgage-rates', await collectData('mortgage-rates', twice), 'growth');
  });

  it('each lender’s products listed twice are refused as repeated rows', async () => {
    const data = cards().map((e) => ({ ...e, plans: [...e.plans, ...e.plans.slice(0, 1)] }));
    const reason = await expectRefused(
      'credit-card-rates',
      await collectData('credit-card-rates', data),
      'repeated rows',
    );
    expect(reason).toMatch(
      /\d+ of \d+ items repeat another item's name within their institution, where the newest snapshot had \d+/,
    );
  });

  it(`half the lenders with every rate ×5 is refused: a rate moved more than ${GUARD_LIMITS.maxRateMove} points`, async () => {
    const data = mortgage().map((e, i) =>
      i % 2
        ? e
        : {
            ...e,
            products: e.products.map((p: any) => ({
              ...p,
              rates: p.rates.map((r: any) => ({ ...r, rate: Math.min(39, r.rate * 5) })),
            })),
          },
    );
    const reason = await expectRefused(
      'mortgage-rates',
      await collectData('mortgage-rates', data),
      `a rate moved more than ${GUARD_LIMITS.maxRateMove} percentage points in one run`,
    );
    expect(reason).toMatch(/rate:anz:[^ ]+ rate [\d.]+ → [\d.]+/);
  });

  it('every rate moving a little at once, as after a cash rate decision, is collected', async () => {
    const data = mortgage().map((e) => ({
      ...e,
      products: e.products.map((p: any) => ({
        ...p,
        rates: p.rates.map((r: any) => ({ ...r, rate: r.rate > 1 ? r.rate - 0.25 : r.rate })),
      })),
    }));
    const result = await collectData('mortgage-rates', data);
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('written');
  });

  it('a lender renamed "A.N.Z." is not merged into ANZ: two names for one id are refused', async () => {
    const data = mortgage();
    data[0].name = 'A.N.Z.';
    const reason = await expectRefused(
      'mortgage-rates',
      await collectData('mortgage-rates', data),
      'two names, one id (only the alias table may join names)',
    );
    expect(reason).toContain('institution:anz: "ANZ" and "A.N.Z"'); // cleaned of its last stop
  });

  it('a lender named "Changes" is refused at collection, so it can never block a build', async () => {
    const data = mortgage();
    data.push({ id: 'institution:changes', name: 'Changes', products: structuredClone(data[1].products) });
    const reason = await expectRefused('mortgage-rates', await collectData('mortgage-rates', data), 'a reserved slug');
    expect(reason).toContain('institution:changes ("Changes")');
  });
});

describe('every number within its bounds, at collection and at build', () => {
  it('a card fee of $99,999,999 is refused, naming the plan and the value', async () => {
    const data = cards();
    data[0].plans[1].annualFeeNZD = 99_999_999;
    const reason = await expectRefused(
      'credit-card-rates',
      await collectData('credit-card-rates', data),
      'does not fit the schema',
    );
    expect(reason).toMatch(/\(plan:amex:[^ ]+ annualFeeNZD = 99999999\): Too big: expected number to be <=10000/);
  });

  it('a fee written 1e15 is no number at all: an unreadable cell, not a published fee', async () => {
    const page = renderSourcePage('credit-card-rates', cards(), { quirks: false }).replace('$149', '1e15');
    const result = await collectPage('credit-card-rates', page);
    expect(result.unreadable).toEqual([expect.stringContaining('annual fee: "1e15"')]);
  });

  it('the build refuses the same snapshot, with the same evidence', async () => {
    const tree = await treeOfNewest();
    const file = join(tree, 'credit-card-rates', `${NEWEST['credit-card-rates']}.json`);
    const snapshot = JSON.parse(await readFile(file, 'utf8'));
    snapshot.data[0].plans[1].annualFeeNZD = 99_999_999;
    snapshot.data[1].name = 'Auck.\u202e Dist. Law Society';
    await writeFile(file, JSON.stringify(snapshot));
    await expect(compileSnapshotTree(tree)).rejects.toThrow(
      /annualFeeNZD = 99999999\): Too big[\s\S]*name = "Auck\.\\u202e Dist\. Law Society"\): must not hold control, bidi or zero-width characters/,
    );
  });
});

describe('names', () => {
  it('control, bidi and zero-width characters and ANSI escapes never reach a snapshot or a log line', async () => {
    const data = mortgage();
    data[1].name = 'ASB\u202e\u200b'; // still ASB once cleaned: the same institution
    data[2].products[0].name = `\u001b[31m${data[2].products[0].name}\u001b[0m`;
    server.serve(pathOf('mortgage-rates'), { page: renderSourcePage('mortgage-rates', data, { quirks: false }) });
    const lines: string[] = [];
    const [result] = await collect({
      baseUrl: server.url,
      snapshotsDir: snapshots,
      status: new FileStatusStore(await tempDir('rates-status-')),
      datasets: ['mortgage-rates'],
      fetch: { timeoutMs: 5_000, retries: 0, retryDelayMs: 1 },
      log: (line) => lines.push(line),
    });
    expect(result!.outcome).toBe('written');
    const written = await readFile(
      join(snapshots, 'mortgage-rates', (await readdir(join(snapshots, 'mortgage-rates'))).at(-1)!),
      'utf8',
    );
    const invisible = INVISIBLE_CHARACTERS; // controls (ANSI escapes begin with one), bidi, zero-width
    expect(JSON.stringify(JSON.parse(written))).not.toMatch(invisible);
    expect(JSON.parse(written).data[1].name).toBe('ASB');
    for (const line of [...lines, ...result!.changes!.lines]) expect(line).not.toMatch(invisible);
  });
});
