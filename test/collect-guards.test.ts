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
import { CreditCardIssuer } from '../src/schemas/rates.ts';
import { datasetOfSchema, EACH } from './support/datasets.ts';
import {
  allRates,
  expectNewestUntouched,
  newestDates,
  newestSnapshots,
  type SnapshotFile,
  tempDir,
  treeOfNewest,
  withRates,
} from './support/history.ts';
import { startSourceServer, type SourceServer } from './support/source-server.ts';

let server: SourceServer;
let newest: Record<DatasetSlug, SnapshotFile>;
let snapshots: string;
const pathOf = (slug: DatasetSlug) => DATASETS.find((d) => d.slug === slug)!.sourcePath;
const slugOf = (id: string) => id.slice(id.indexOf(':') + 1);

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
  await expectNewestUntouched(snapshots, slug);
  return result.reason!;
}

/** The newest snapshot's data of a dataset, a copy to edit. */
const dataOf = (slug: DatasetSlug) => structuredClone(newest[slug].data) as any[];
/** Card plans carry a fee with bounds of its own. */
const cards = datasetOfSchema(CreditCardIssuer);

describe.each(EACH)('%s: identity and size, against the newest snapshot', (slug, dataset) => {
  const { prefix } = dataset.entity;

  it('a page of other lenders is refused, even when it has as many', async () => {
    const data = dataOf(slug);
    const strangers = data.map((e, i) => ({ ...e, id: `${prefix}:lender-${i}`, name: `Lender ${i}` }));
    const reason = await expectRefused(slug, await collectData(slug, strangers), 'other lenders');
    expect(reason).toContain(`only 0 of the newest snapshot's ${data.length} institutions are listed`);
  });

  it('every lender listed again under another name, at 0.01 %, is refused: the page grew past 150 %', async () => {
    const data = dataOf(slug);
    // Under another name: listed twice under the same one, the rows are refused sooner, as alike (collect-identity.test.ts).
    const cheap = withRates(data, () => 0.01).map((e: any, i: number) => ({
      ...e,
      id: `${prefix}:cheap-${i}`,
      name: `Cheap ${i}`,
    }));
    const twice = data.flatMap((e, i) => [e, cheap[i]]);
    await expectRefused(slug, await collectData(slug, twice), 'growth');
  });

  it(`half the lenders with every rate ×5 is refused: a rate moved more than ${GUARD_LIMITS.maxRateMove} points`, async () => {
    const timesFive = (rate: number) => Math.min(39, rate * 5);
    // Every other lender from the first with a rate ×5 moves past the limit (one above 1.25 %): the refusal names its move.
    const first = dataOf(slug).findIndex((e) =>
      allRates([e]).some((r) => timesFive(r.value) - r.value > GUARD_LIMITS.maxRateMove),
    );
    expect(first, `${slug}: no lender has a rate above 1.25 % and below 34 %`).toBeGreaterThanOrEqual(0);
    const data = withRates(dataOf(slug), timesFive, (_, i) => i % 2 === first % 2);
    const reason = await expectRefused(
      slug,
      await collectData(slug, data),
      `a rate moved more than ${GUARD_LIMITS.maxRateMove} percentage points in one run`,
    );
    expect(reason).toMatch(new RegExp(`:${slugOf(data[first].id)}:\\S* \\w+ [\\d.]+ → [\\d.]+`));
  });

  it('every rate moving a little at once, as after a cash rate decision, is collected', async () => {
    const data = withRates(dataOf(slug), (rate) => (rate > 1 ? Math.round((rate - 0.25) * 100) / 100 : rate));
    const result = await collectData(slug, data);
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('written');
  });

  it('a lender renamed with a stop after each letter is not merged into itself: two names for one id are refused', async () => {
    const data = dataOf(slug);
    const name = data[0].name as string;
    data[0].name = `${[...name].join('.')}.`; // "ANZ" → "A.N.Z.": the same id
    const reason = await expectRefused(
      slug,
      await collectData(slug, data),
      'two names, one id (only the alias table may join names)',
    );
    expect(reason).toContain(`${data[0].id}: "${name}" and "${[...name].join('.')}"`); // cleaned of its last stop
  });

  it('a lender named "Changes" is refused at collection, so it can never block a build', async () => {
    const data = dataOf(slug);
    data.push({ ...structuredClone(data[1]), id: `${prefix}:changes`, name: 'Changes' });
    const reason = await expectRefused(slug, await collectData(slug, data), 'a reserved slug');
    expect(reason).toContain(`${prefix}:changes ("Changes")`);
  });
});

describe('card plans: repeated rows, and every number within its bounds, at collection and at build', () => {
  const slug = cards.slug;

  it('each issuer’s first plan listed again, with or without its interest-free days, is refused as repeated rows', async () => {
    // Carrying other measures, each copy can be told from its namesake (identity.ts); alike, it is refused sooner.
    const data = dataOf(slug).map((e) => ({
      ...e,
      plans: [
        ...e.plans,
        ...e.plans.slice(0, 1).map((p: any) => ({ ...p, interestFreeDays: p.interestFreeDays === null ? 44 : null })),
      ],
    }));
    const reason = await expectRefused(slug, await collectData(slug, data), 'repeated rows');
    expect(reason).toMatch(
      /\d+ of \d+ items repeat another item's name within their institution, where the newest snapshot had \d+/,
    );
  });

  it('a card fee of $99,999,999 is refused, naming the plan and the value', async () => {
    const data = dataOf(slug);
    data[0].plans[0].annualFeeNZD = 99_999_999;
    const reason = await expectRefused(slug, await collectData(slug, data), 'does not fit the schema');
    expect(reason).toContain(
      `(${data[0].plans[0].id} annualFeeNZD = 99999999): Too big: expected number to be <=10000`,
    );
  });

  it('a fee written 1e15 is no number at all: an unreadable cell, not a published fee', async () => {
    const data = dataOf(slug);
    data[0].plans[0].annualFeeNZD = 4321; // a fee no other cell shows
    const page = renderSourcePage(slug, data, { quirks: false });
    expect(page.split('$4,321')).toHaveLength(2);
    const result = await collectPage(slug, page.replace('$4,321', '1e15'));
    expect(result.unreadable).toEqual([expect.stringContaining('annual fee: "1e15"')]);
  });

  it('the build refuses the same snapshot, with the same evidence', async () => {
    const tree = await treeOfNewest();
    const file = join(tree, slug, `${newestDates()[slug]}.json`);
    const snapshot = JSON.parse(await readFile(file, 'utf8'));
    snapshot.data[0].plans[0].annualFeeNZD = 99_999_999;
    snapshot.data[1].name = 'Some\u202e Lender';
    await writeFile(file, JSON.stringify(snapshot));
    await expect(compileSnapshotTree(tree)).rejects.toThrow(
      /annualFeeNZD = 99999999\): Too big[\s\S]*name = "Some\\u202e Lender"\): must not hold control, bidi or zero-width characters/,
    );
  });
});

describe.each(EACH)('%s: names', (slug) => {
  it('control, bidi and zero-width characters and ANSI escapes never reach a snapshot or a log line', async () => {
    const data = dataOf(slug);
    const name = data[1].name;
    data[1].name = `${name}\u202e\u200b`; // the same name once cleaned: the same institution
    const items = data[2].products ?? data[2].plans;
    items[0].name = `\u001b[31m${items[0].name}\u001b[0m`;
    server.serve(pathOf(slug), { page: renderSourcePage(slug, data, { quirks: false }) });
    const lines: string[] = [];
    const [result] = await collect({
      baseUrl: server.url,
      snapshotsDir: snapshots,
      status: new FileStatusStore(await tempDir('rates-status-')),
      datasets: [slug],
      fetch: { timeoutMs: 5_000, retries: 0, retryDelayMs: 1 },
      log: (line) => lines.push(line),
    });
    expect(result!.outcome).toBe('written');
    const written = await readFile(join(snapshots, slug, (await readdir(join(snapshots, slug))).at(-1)!), 'utf8');
    const invisible = INVISIBLE_CHARACTERS; // controls (ANSI escapes begin with one), bidi, zero-width
    expect(JSON.stringify(JSON.parse(written))).not.toMatch(invisible);
    expect(JSON.parse(written).data[1].name).toBe(name);
    for (const line of [...lines, ...result!.changes!.lines]) expect(line).not.toMatch(invisible);
  });
});
