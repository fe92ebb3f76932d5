import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORRECTIONS, type Correction } from '../src/snapshots/corrections.ts';
import { importHistory, unmatchedCorrections } from '../src/snapshots/import.ts';
import { REPO_SNAPSHOTS } from './support/global-setup.ts';
import { tempDir } from './support/history.ts';

/** Raw files in the earlier deployment's shape (a few of those the committed tree was imported from). */
const LEGACY = resolve(import.meta.dirname, 'fixtures/legacy-history');

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
    for (const slug of ['mortgage-rates', 'personal-loan-rates', 'car-loan-rates', 'credit-card-rates']) {
      const names = await readdir(join(LEGACY, slug));
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) {
        expect(await readFile(join(imported, slug, name), 'utf8'), `${slug}/${name}`).toBe(
          await readFile(join(REPO_SNAPSHOTS, slug, name), 'utf8'),
        );
      }
    }
  });

  it('writes one canonical file per source snapshot', async () => {
    expect(await readdir(join(imported, 'car-loan-rates'))).toEqual(['2024-02-24.json', '2024-02-25.json']);
    const text = await readFile(join(imported, 'car-loan-rates', '2024-02-25.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toBe('  "type": "CarLoanRates",');
    expect(Object.keys(JSON.parse(text))).toEqual(['type', 'data', 'lastUpdated']);
  });

  it('keeps mortgage and loan data verbatim, ids included, but for the values the corrections table fixes', async () => {
    let fixed = 0;
    for (const slug of ['mortgage-rates', 'personal-loan-rates', 'car-loan-rates']) {
      for (const name of await readdir(join(LEGACY, slug))) {
        const file = join(slug, name);
        const expected = await readJson(join(LEGACY, file));
        // These datasets' corrections are of an institution's own field (its name).
        for (const c of CORRECTIONS.filter((c) => c.dataset === slug)) {
          const entity = expected.data.find((e: any) => e.id === c.entityId);
          expect(c.itemId).toBeUndefined();
          if (entity?.[c.field] === c.wrong) [entity[c.field], fixed] = [c.right, fixed + 1];
        }
        expect(await readJson(join(imported, file)), file).toEqual(expected);
      }
    }
    expect(fixed).toBe(1); // SBS Bank's name in personal-loan-rates/2025-02-04.json
  });

  it('maps the credit-card field names and merges issuers listed twice, losing no plan', async () => {
    const source = await readJson(join(LEGACY, 'credit-card-rates/2025-01-07.json'));
    const importedCards = await readJson(join(imported, 'credit-card-rates/2025-01-07.json'));
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
  async function smallHistory() {
    const from = await tempDir('rates-from-');
    await mkdir(join(from, 'car-loan-rates'), { recursive: true });
    for (const date of ['2024-02-24', '2024-02-25']) {
      await writeFile(
        join(from, 'car-loan-rates', `${date}.json`),
        await readFile(join(LEGACY, 'car-loan-rates', `${date}.json`)),
      );
    }
    return from;
  }

  it('a second run writes nothing; a different existing snapshot is kept unless --force', async () => {
    const from = await smallHistory();
    const to = await tempDir('rates-to-');
    expect((await importHistory({ from, to })).map((r) => r.outcome)).toEqual(['written', 'written']);
    expect((await importHistory({ from, to })).map((r) => r.outcome)).toEqual(['unchanged', 'unchanged']);

    const target = join(to, 'car-loan-rates', '2024-02-25.json');
    const edited = (await readFile(target, 'utf8')).replace(/"rate": ([\d.]+)/, '"rate": 99.5');
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
    const bad = await readJson(join(from, 'car-loan-rates', '2024-02-25.json'));
    bad.data[0].products[0].rates[0].rate = '12.95%';
    await writeFile(join(from, 'car-loan-rates', '2024-02-25.json'), JSON.stringify(bad));
    const to = await tempDir('rates-to-');
    const reports = await importHistory({ from, to });
    expect(reports.map((r) => r.outcome)).toEqual(['written', 'invalid']);
    expect(reports[1]!.detail).toContain('2024-02-25.json');
    expect(reports[1]!.detail).toContain('data[0].products[0].rates[0].rate');
    expect(await readdir(join(to, 'car-loan-rates'))).toEqual(['2024-02-24.json']);
  });

  it('the command prints progress and a summary, and exits non-zero when a file is bad', async () => {
    const from = await smallHistory();
    const to = await tempDir('rates-to-');
    const ok = await run('npm', ['run', '--silent', 'snapshots:import', '--', from, '--to', to], { cwd: ROOT });
    expect(ok.stdout).toContain('car-loan-rates: 2 file(s) read');
    expect(ok.stdout).toContain('Done: 2 file(s): 2 written, 0 unchanged, 0 conflict(s), 0 invalid.');

    await writeFile(join(from, 'car-loan-rates', '2024-03-03.json'), '{"type": "CarLoanRates", "data": [');
    const failed = await run('npm', ['run', '--silent', 'snapshots:import', '--', from, '--to', to], {
      cwd: ROOT,
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('2024-03-03.json: not readable JSON');
    expect(failed.stdout).toContain('1 invalid');
  });
});

describe('corrections of known wrong values (src/snapshots/corrections.ts)', () => {
  const AMEX_FEE = CORRECTIONS.find(
    (c) => c.itemId === 'plan:amex:platinum-charge-card' && c.field === 'annualFeeNZD',
  )!;
  const platinum = (snapshot: any) =>
    snapshot.data
      .find((i: any) => i.id === 'issuer:amex')
      .plans.find((p: any) => p.id === 'plan:amex:platinum-charge-card');

  /** The legacy credit-card file alone, its Platinum Charge Card fee set to `fee` when given. */
  async function cardHistory(fee?: number) {
    const from = await tempDir('rates-from-');
    await mkdir(join(from, 'credit-card-rates'), { recursive: true });
    const source = await readJson(join(LEGACY, 'credit-card-rates/2025-01-07.json'));
    if (fee !== undefined)
      for (const plan of source.data.flatMap((i: any) => i.plans))
        if (plan.id === 'plan:amex:platinum-charge-card') plan.primaryFeeNZD = fee;
    await writeFile(join(from, 'credit-card-rates/2025-01-07.json'), JSON.stringify(source, null, 2));
    return from;
  }

  it('every entry names its value and gives its evidence', () => {
    expect(AMEX_FEE).toMatchObject({ dataset: 'credit-card-rates', entityId: 'issuer:amex', wrong: 1, right: 1250 });
    for (const c of CORRECTIONS) {
      expect(c.entityId && c.field, JSON.stringify(c)).toBeTruthy();
      expect(c.wrong).not.toEqual(c.right);
      expect(c.evidence.length).toBeGreaterThan(20);
    }
  });

  it('the Amex Platinum Charge Card fee the earlier collector read as 1 is imported as 1250', async () => {
    const source = await readJson(join(LEGACY, 'credit-card-rates/2025-01-07.json'));
    expect(
      source.data.flatMap((i: any) => i.plans).find((p: any) => p.name === 'Platinum Charge Card').primaryFeeNZD,
    ).toBe(1);
    const to = await tempDir('rates-to-');
    const [report] = await importHistory({ from: await cardHistory(), to });
    expect(report).toMatchObject({ outcome: 'written', corrected: [AMEX_FEE] });
    expect(platinum(await readJson(join(to, 'credit-card-rates/2025-01-07.json'))).annualFeeNZD).toBe(1250);
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
    const reports = await importHistory({ from: await cardHistory(1400), to });
    expect(reports[0]!.corrected).toBeUndefined();
    expect(platinum(await readJson(join(to, 'credit-card-rates/2025-01-07.json'))).annualFeeNZD).toBe(1400);
    expect(unmatchedCorrections(reports)).toEqual([AMEX_FEE]);
  });

  it('reports an entry that matches nothing in a dataset it read, and applies one to a rate', async () => {
    const stale: Correction = {
      ...AMEX_FEE,
      itemId: 'plan:amex:no-such-card',
      evidence: 'a test entry that matches nothing',
    };
    const rate: Correction = {
      dataset: 'car-loan-rates',
      entityId: 'institution:asb',
      itemId: 'product:asb:personal-loan',
      field: 'rate:asb:personal-loan:secured-by-car:from',
      wrong: 12.95,
      right: 12.5,
      evidence: 'a test entry that corrects a rate',
    };
    const corrections = [AMEX_FEE, stale, rate];
    const to = await tempDir('rates-to-');
    const reports = await importHistory({ from: LEGACY, to, corrections });
    expect(unmatchedCorrections(reports, corrections)).toEqual([stale]);
    const cars = reports.filter((r) => r.dataset === 'car-loan-rates');
    expect(cars.map((r) => r.corrected)).toEqual([[rate], [rate]]);
    const asb = (await readJson(join(to, 'car-loan-rates/2024-02-25.json'))).data.find(
      (e: any) => e.id === rate.entityId,
    );
    const rates = asb.products.find((p: any) => p.id === rate.itemId).rates;
    expect(rates.find((r: any) => r.id === rate.field).rate).toBe(12.5);
    // A dataset the import did not read says nothing about its entries.
    expect(
      unmatchedCorrections(
        reports.filter((r) => r.dataset === 'car-loan-rates'),
        corrections,
      ),
    ).toEqual([]);
  });

  it('the command says what it corrected and warns of an entry that matched no file', async () => {
    const to = await tempDir('rates-to-');
    const args = ['run', '--silent', 'snapshots:import', '--', await cardHistory(), '--to', to];
    const ok = await run('npm', args, { cwd: ROOT });
    expect(ok.stdout).toContain('Corrected 1 known wrong value(s) (src/snapshots/corrections.ts).');
    expect(ok.stderr).not.toContain('warning');

    const stale = await run(
      'npm',
      ['run', '--silent', 'snapshots:import', '--', await cardHistory(1250), '--to', await tempDir('rates-to-')],
      {
        cwd: ROOT,
      },
    );
    expect(stale.stderr).toContain(
      'warning: correction matched no file: credit-card-rates · issuer:amex · plan:amex:platinum-charge-card · annualFeeNZD: 1 → 1250',
    );
    expect(stale.stdout).not.toContain('Corrected');
  });
});
