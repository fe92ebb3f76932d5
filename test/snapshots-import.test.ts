import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { CreditCardIssuer } from '../src/schemas/rates.ts';
import { CORRECTIONS, type Correction, describeCorrection } from '../src/snapshots/corrections.ts';
import { importHistory, unmatchedCorrections } from '../src/snapshots/import.ts';
import { datasetOfSchema } from './support/datasets.ts';
import { REPO_SNAPSHOTS } from './support/global-setup.ts';
import { firstRate, tempDir } from './support/history.ts';

/** Raw files in the earlier deployment's shape (a few of those the committed tree was imported from). */
const LEGACY = resolve(import.meta.dirname, 'fixtures/legacy-history');
/** The datasets the earlier deployment had (a folder of legacy files each), with their file names. */
const LEGACY_DATASETS = DATASETS.flatMap((dataset) => {
  const names = (() => {
    try {
      return readdirSync(join(LEGACY, dataset.slug)).sort();
    } catch {
      return [];
    }
  })();
  return names.length ? [{ dataset, names }] : [];
});
/** Card issuers: the earlier deployment named two of their plans' fields differently. */
const cards = datasetOfSchema(CreditCardIssuer);
const CARD_FILE = `${cards.slug}/${LEGACY_DATASETS.find((l) => l.dataset === cards)!.names[0]}`;
/** The earlier names of the card plan fields the import renames. */
const LEGACY_FIELD: Record<string, string> = {
  annualFeeNZD: 'primaryFeeNZD',
  interestFreeDays: 'interestFreePeriodInMonths',
};
/** A dataset with two legacy files, for the import's safety rules. */
const small = LEGACY_DATASETS.find((l) => l.names.length >= 2)!;

const run = promisify(execFile);
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));
const ROOT = resolve(import.meta.dirname, '..');

describe('importing the real history', () => {
  let imported: string;
  beforeAll(async () => {
    imported = await tempDir('rates-imported-');
    const reports = await importHistory({ from: LEGACY, to: imported });
    expect(reports.map((r) => r.outcome)).toEqual(Array(reports.length).fill('written'));
  });

  it('the committed snapshots are exactly what the import writes, byte for byte', async () => {
    expect(LEGACY_DATASETS.length).toBeGreaterThan(0);
    for (const { dataset, names } of LEGACY_DATASETS) {
      const slug = dataset.slug;
      for (const name of names) {
        expect(await readFile(join(imported, slug, name), 'utf8'), `${slug}/${name}`).toBe(
          await readFile(join(REPO_SNAPSHOTS, slug, name), 'utf8'),
        );
      }
    }
  });

  it.each(LEGACY_DATASETS.map((l) => [l.dataset.slug, l] as const))(
    '%s: writes one canonical file per source snapshot',
    async (slug, { dataset, names }) => {
      expect(await readdir(join(imported, slug))).toEqual(names);
      const text = await readFile(join(imported, slug, names.at(-1)!), 'utf8');
      expect(text.endsWith('}\n')).toBe(true);
      expect(text.split('\n')[1]).toBe(`  "type": "${dataset.type}",`);
      expect(Object.keys(JSON.parse(text))).toEqual(['type', 'data', 'lastUpdated']);
    },
  );

  it('keeps the data of products verbatim, ids included, but for the values the corrections table fixes', async () => {
    const fixed = new Set<Correction>();
    const products = LEGACY_DATASETS.filter((l) => l.dataset.entitySchema !== CreditCardIssuer);
    expect(products.length).toBeGreaterThan(0);
    for (const { dataset, names } of products) {
      for (const name of names) {
        const file = join(dataset.slug, name);
        const expected = await readJson(join(LEGACY, file));
        // These datasets' corrections are of an institution's own field (its name).
        for (const c of CORRECTIONS.filter((c) => c.dataset === dataset.slug)) {
          const entity = expected.data.find((e: any) => e.id === c.entityId);
          expect(c.itemId).toBeUndefined();
          if (entity?.[c.field] !== c.wrong) continue;
          entity[c.field] = c.right;
          fixed.add(c);
        }
        expect(await readJson(join(imported, file)), file).toEqual(expected);
      }
    }
    // Each of their corrections fixed a legacy file.
    expect([...fixed]).toEqual(CORRECTIONS.filter((c) => products.some((l) => l.dataset.slug === c.dataset)));
  });

  it('maps the card plans’ field names and merges issuers listed twice, losing no plan', async () => {
    const source = await readJson(join(LEGACY, CARD_FILE));
    const importedCards = await readJson(join(imported, CARD_FILE));
    const sourceIds = source.data.map((i: any) => i.id);
    expect(new Set(sourceIds).size).toBeLessThan(sourceIds.length); // the source has duplicate issuers
    expect(importedCards.data.map((i: any) => i.id)).toEqual([...new Set(sourceIds)]);
    const sourcePlans = source.data.flatMap((i: any) => i.plans);
    const importedPlans = importedCards.data.flatMap((i: any) => i.plans);
    expect(importedPlans).toHaveLength(sourcePlans.length);
    const firstAmex = sourcePlans[0];
    expect(importedPlans[0]).toEqual({
      id: firstAmex.id,
      name: firstAmex.name,
      purchaseRate: firstAmex.purchaseRate,
      cashAdvanceRate: firstAmex.cashAdvanceRate,
      balanceTransferRate: firstAmex.balanceTransferRate,
      balanceTransferPeriod: firstAmex.balanceTransferPeriod,
      interestFreeDays: firstAmex.interestFreePeriodInMonths,
      annualFeeNZD: firstAmex.primaryFeeNZD,
    });
    const ids = JSON.stringify(importedCards).match(/"id":"[^"]+"/g)!;
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('import safety', () => {
  const slug = small.dataset.slug;
  const [first, second] = small.names as [string, string];
  async function smallHistory() {
    const from = await tempDir('rates-from-');
    await mkdir(join(from, slug), { recursive: true });
    for (const name of [first, second])
      await writeFile(join(from, slug, name), await readFile(join(LEGACY, slug, name)));
    return from;
  }

  it('a second run writes nothing; a different existing snapshot is kept unless --force', async () => {
    const from = await smallHistory();
    const to = await tempDir('rates-to-');
    expect((await importHistory({ from, to })).map((r) => r.outcome)).toEqual(['written', 'written']);
    expect((await importHistory({ from, to })).map((r) => r.outcome)).toEqual(['unchanged', 'unchanged']);

    const target = join(to, slug, second);
    const written = await readJson(target);
    firstRate(written.data).holder[firstRate(written.data).key] = 39.5;
    const edited = JSON.stringify(written, null, 2);
    await writeFile(target, edited);
    const reports = await importHistory({ from, to });
    expect(reports.map((r) => r.outcome)).toEqual(['unchanged', 'conflict']);
    expect(reports[1]!.detail).toContain('--force');
    expect(await readFile(target, 'utf8')).toBe(edited);

    expect((await importHistory({ from, to, force: true })).map((r) => r.outcome)).toEqual(['unchanged', 'written']);
    expect(await readFile(target, 'utf8')).not.toBe(edited);
  });

  it('names a bad file and the field at fault, writes nothing for it, and still imports the rest', async () => {
    const from = await smallHistory();
    const bad = await readJson(join(from, slug, second));
    bad.data[0].name = 12.95;
    await writeFile(join(from, slug, second), JSON.stringify(bad));
    const to = await tempDir('rates-to-');
    const reports = await importHistory({ from, to });
    expect(reports.map((r) => r.outcome)).toEqual(['written', 'invalid']);
    expect(reports[1]!.detail).toContain(second);
    expect(reports[1]!.detail).toContain('data[0].name');
    expect(await readdir(join(to, slug))).toEqual([first]);
  });

  it('the command prints progress and a summary, and exits non-zero when a file is bad', async () => {
    const from = await smallHistory();
    const to = await tempDir('rates-to-');
    const ok = await run('npm', ['run', '--silent', 'snapshots:import', '--', from, '--to', to], { cwd: ROOT });
    expect(ok.stdout).toContain(`${slug}: 2 file(s) read`);
    expect(ok.stdout).toContain('Done: 2 file(s): 2 written, 0 unchanged, 0 conflict(s), 0 invalid.');

    await writeFile(join(from, slug, '2024-03-03.json'), `{"type": "${small.dataset.type}", "data": [`);
    const failed = await run('npm', ['run', '--silent', 'snapshots:import', '--', from, '--to', to], {
      cwd: ROOT,
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('2024-03-03.json: not readable JSON');
    expect(failed.stdout).toContain('1 invalid');
  });
});

describe('corrections of known wrong values (the table entries’ `corrections`)', () => {
  /** The table's correction of a card plan's field, which the legacy card file holds wrong. */
  const FEE = CORRECTIONS.find((c) => c.dataset === cards.slug && c.itemId && LEGACY_FIELD[c.field])!;
  const plan = (snapshot: any) =>
    snapshot.data.find((i: any) => i.id === FEE.entityId).plans.find((p: any) => p.id === FEE.itemId);

  /** The legacy card file alone, the corrected plan's field set to `value` when given. */
  async function cardHistory(value?: number) {
    const from = await tempDir('rates-from-');
    await mkdir(join(from, cards.slug), { recursive: true });
    const source = await readJson(join(LEGACY, CARD_FILE));
    if (value !== undefined)
      for (const p of source.data.flatMap((i: any) => i.plans))
        if (p.id === FEE.itemId) p[LEGACY_FIELD[FEE.field]!] = value;
    await writeFile(join(from, CARD_FILE), JSON.stringify(source, null, 2));
    return from;
  }

  it('every entry names its value and gives its evidence', () => {
    expect(FEE).toBeDefined();
    for (const c of CORRECTIONS) {
      expect(c.entityId && c.field, JSON.stringify(c)).toBeTruthy();
      expect(c.wrong).not.toEqual(c.right);
      expect(c.evidence.length).toBeGreaterThan(20);
    }
  });

  it('a card plan’s value the earlier collector read wrong is imported right', async () => {
    const source = await readJson(join(LEGACY, CARD_FILE));
    expect(
      source.data.flatMap((i: any) => i.plans).find((p: any) => p.id === FEE.itemId)[LEGACY_FIELD[FEE.field]!],
    ).toBe(FEE.wrong);
    const to = await tempDir('rates-to-');
    const [report] = await importHistory({ from: await cardHistory(), to });
    expect(report).toMatchObject({ outcome: 'written', corrected: [FEE] });
    expect(plan(await readJson(join(to, CARD_FILE)))[FEE.field]).toBe(FEE.right);
    // A second run writes nothing: the corrected file is what the import writes.
    expect((await importHistory({ from: await cardHistory(), to })).map((r) => r.outcome)).toEqual(['unchanged']);
  });

  it('no committed snapshot holds a value the table says is wrong', async () => {
    for (const c of CORRECTIONS) {
      const names = await readdir(join(REPO_SNAPSHOTS, c.dataset));
      let seen = 0;
      for (const name of names) {
        const entity = (await readJson(join(REPO_SNAPSHOTS, c.dataset, name))).data.find(
          (e: any) => e.id === c.entityId,
        );
        const item = c.itemId ? (entity?.plans ?? entity?.products)?.find((i: any) => i.id === c.itemId) : entity;
        if (!item) continue;
        seen++;
        const value = item.rates ? item.rates.find((r: any) => r.id === c.field)?.rate : item[c.field];
        expect(value, `${c.dataset}/${name}`).not.toEqual(c.wrong);
      }
      expect(seen, c.itemId ?? c.entityId).toBeGreaterThan(0);
    }
  });

  it('a value other than the wrong one is left alone, and the entry is reported as matching nothing', async () => {
    const to = await tempDir('rates-to-');
    const other = (FEE.right as number) + 150;
    const reports = await importHistory({ from: await cardHistory(other), to });
    expect(reports[0]!.corrected).toBeUndefined();
    expect(plan(await readJson(join(to, CARD_FILE)))[FEE.field]).toBe(other);
    expect(unmatchedCorrections(reports)).toEqual([FEE]);
  });

  it('reports an entry that matches nothing in a dataset it read, and applies one to a rate', async () => {
    const stale: Correction = { ...FEE, itemId: 'plan:no-such-card', evidence: 'a test entry that matches nothing' };
    // A rate of a dataset with two legacy files that both list it with the same value.
    const [one, two] = await Promise.all(
      small.names.slice(0, 2).map((n) => readJson(join(LEGACY, small.dataset.slug, n))),
    );
    const found = (one.data as any[]).flatMap((e) =>
      e.products.flatMap((p: any) =>
        p.rates
          .filter((r: any) =>
            two.data.some(
              (e2: any) =>
                e2.id === e.id &&
                e2.products.some(
                  (p2: any) => p2.id === p.id && p2.rates.some((r2: any) => r2.id === r.id && r2.rate === r.rate),
                ),
            ),
          )
          .map((r: any) => ({ entityId: e.id, itemId: p.id, field: r.id, wrong: r.rate })),
      ),
    )[0];
    const rate: Correction = {
      dataset: small.dataset.slug,
      ...found,
      right: found.wrong + 0.5,
      evidence: 'a test entry that corrects a rate',
    };
    const corrections = [FEE, stale, rate];
    const to = await tempDir('rates-to-');
    const reports = await importHistory({ from: LEGACY, to, corrections });
    expect(unmatchedCorrections(reports, corrections)).toEqual([stale]);
    const read = reports.filter((r) => r.dataset === rate.dataset);
    expect(read.map((r) => r.corrected)).toEqual([[rate], [rate]]);
    const entity = (await readJson(join(to, rate.dataset, small.names[1]!))).data.find(
      (e: any) => e.id === rate.entityId,
    );
    const rates = entity.products.find((p: any) => p.id === rate.itemId).rates;
    expect(rates.find((r: any) => r.id === rate.field).rate).toBe(rate.right);
    // A dataset the import did not read says nothing about its entries.
    expect(unmatchedCorrections(read, corrections)).toEqual([]);
  });

  it('the command says what it corrected and warns of an entry that matched no file', async () => {
    const to = await tempDir('rates-to-');
    const args = ['run', '--silent', 'snapshots:import', '--', await cardHistory(), '--to', to];
    const ok = await run('npm', args, { cwd: ROOT });
    expect(ok.stdout).toContain('Corrected 1 known wrong value(s) (src/snapshots/corrections.ts).');
    expect(ok.stderr).not.toContain('warning');

    const stale = await run(
      'npm',
      [
        'run',
        '--silent',
        'snapshots:import',
        '--',
        await cardHistory(FEE.right as number),
        '--to',
        await tempDir('rates-to-'),
      ],
      { cwd: ROOT },
    );
    expect(stale.stderr).toContain(`warning: correction matched no file: ${describeCorrection(FEE)}`);
    expect(stale.stdout).not.toContain('Corrected');
  });
});
