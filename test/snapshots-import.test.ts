import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { importHistory } from '../src/snapshots/import.ts';
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

  it('keeps mortgage and loan data verbatim, ids included', async () => {
    for (const slug of ['mortgage-rates', 'personal-loan-rates', 'car-loan-rates']) {
      for (const name of await readdir(join(LEGACY, slug))) {
        const file = join(slug, name);
        expect(await readJson(join(imported, file)), file).toEqual(await readJson(join(LEGACY, file)));
      }
    }
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
