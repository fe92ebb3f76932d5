/**
 * Import a history in the earlier deployment's shape (`<folder>/<dataset>/<YYYY-MM-DD>.json`):
 * validate each file, map the old credit-card field names, merge duplicate issuers, fix the known
 * wrong values (src/snapshots/corrections.ts), and write canonical snapshots — never replacing an
 * existing different snapshot unless forced.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DATASETS, type Dataset, type Entity, type Snapshot } from '../datasets.ts';
import { IsoDateTime } from '../schemas/common.ts';
import { CreditCardIssuer } from '../schemas/rates.ts';
import { idWithPrefix } from '../schemas/common.ts';
import { normalizeDataset } from './normalize.ts';
import { applyCorrections, CORRECTIONS, type Correction } from './corrections.ts';
import {
  describeIssues,
  listSnapshotDates,
  serializeSnapshot,
  snapshotPath,
  SnapshotFileError,
  validateSnapshot,
} from './tree.ts';
import { writeFileAtomic } from '../lib/atomic-write.ts';

/** The earlier credit-card plan: `interestFreePeriodInMonths` held days, `primaryFeeNZD` the annual fee. */
const LegacyCreditCardPlan = z
  .strictObject({
    id: idWithPrefix('plan'),
    name: z.string(),
    interestFreePeriodInMonths: z.number().int().nonnegative().nullable(),
    primaryFeeNZD: z.number().nonnegative().nullable(),
    balanceTransferRate: z.number().nullable(),
    balanceTransferPeriod: z.string().nullable(),
    cashAdvanceRate: z.number().nullable(),
    purchaseRate: z.number().nullable(),
  })
  .transform((plan) => ({
    id: plan.id,
    name: plan.name,
    purchaseRate: plan.purchaseRate,
    cashAdvanceRate: plan.cashAdvanceRate,
    balanceTransferRate: plan.balanceTransferRate,
    balanceTransferPeriod: plan.balanceTransferPeriod,
    interestFreeDays: plan.interestFreePeriodInMonths,
    annualFeeNZD: plan.primaryFeeNZD,
  }));

const LegacyCreditCardIssuer = z.strictObject({
  id: idWithPrefix('issuer'),
  name: z.string(),
  plans: z.array(LegacyCreditCardPlan),
});

/** The shape to read a source file with: the old one where it differs (issuers of cards), else the served one. */
function sourceSchema(dataset: Dataset, value: unknown) {
  const legacy =
    dataset.entitySchema === CreditCardIssuer &&
    JSON.stringify((value as { data?: unknown })?.data ?? null).includes('"interestFreePeriodInMonths"');
  const entity: z.ZodType = legacy ? LegacyCreditCardIssuer : dataset.entitySchema;
  // Duplicates are allowed here: merging and de-duplicating them is part of the import.
  return z.strictObject({ type: z.literal(dataset.type), data: z.array(entity), lastUpdated: IsoDateTime });
}

export type ImportOutcome = 'written' | 'unchanged' | 'conflict' | 'invalid';

export interface ImportReport {
  dataset: string;
  date: string;
  outcome: ImportOutcome;
  /** For invalid files and conflicts: what is wrong, naming the file. */
  detail?: string;
  /** The corrections that changed a value of this file (absent when none did, and for invalid files). */
  corrected?: Correction[];
}

export interface ImportOptions {
  from: string;
  to: string;
  force?: boolean;
  /** The table of known wrong values to fix; CORRECTIONS unless a test gives its own. */
  corrections?: readonly Correction[];
  onProgress?: (dataset: Dataset, done: number, total: number) => void;
}

/** Read, check and convert one source file into a served snapshot, with the values the corrections fix. */
async function convertHistoryFile(
  dataset: Dataset,
  file: string,
  date: string,
  corrections: readonly Correction[] = CORRECTIONS,
): Promise<{ snapshot: Snapshot; corrected: Correction[] }> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new SnapshotFileError(file, [`not readable JSON (${(error as Error).message})`]);
  }
  const parsed = sourceSchema(dataset, value).safeParse(value);
  if (!parsed.success) throw new SnapshotFileError(file, describeIssues(parsed.error.issues));
  const data = normalizeDataset(dataset, parsed.data.data as Entity[]);
  const corrected = applyCorrections(dataset.slug, data, corrections);
  return { snapshot: validateSnapshot(dataset, { ...parsed.data, data }, file, date), corrected };
}

export async function importHistory(options: ImportOptions): Promise<ImportReport[]> {
  const reports: ImportReport[] = [];
  for (const dataset of DATASETS) {
    const dates = await listSnapshotDates(options.from, dataset);
    for (const [index, date] of dates.entries()) {
      const source = join(options.from, dataset.slug, `${date}.json`);
      const report: ImportReport = { dataset: dataset.slug, date, outcome: 'written' };
      try {
        const { snapshot, corrected } = await convertHistoryFile(dataset, source, date, options.corrections);
        if (corrected.length) report.corrected = corrected;
        const target = snapshotPath(options.to, dataset, date);
        const content = serializeSnapshot(dataset, snapshot);
        const existing = existsSync(target) ? await readFile(target, 'utf8') : undefined;
        if (existing === content) report.outcome = 'unchanged';
        else if (existing !== undefined && !options.force) {
          report.outcome = 'conflict';
          report.detail = `${target} exists with different content; not replaced (use --force to replace it)`;
        } else await writeFileAtomic(target, content);
      } catch (error) {
        if (!(error instanceof SnapshotFileError)) throw error;
        report.outcome = 'invalid';
        report.detail = error.message;
      }
      reports.push(report);
      options.onProgress?.(dataset, index + 1, dates.length);
    }
  }
  return reports;
}

/**
 * The corrections that fixed nothing in a dataset the import read: a stale entry (the history no
 * longer holds that wrong value there), to be looked at. A dataset the import did not read has
 * nothing to say about its corrections.
 */
export function unmatchedCorrections(
  reports: readonly ImportReport[],
  corrections: readonly Correction[] = CORRECTIONS,
): Correction[] {
  const read = new Set(reports.filter((r) => r.outcome !== 'invalid').map((r) => r.dataset));
  const matched = new Set(reports.flatMap((r) => r.corrected ?? []));
  return corrections.filter((c) => read.has(c.dataset) && !matched.has(c));
}
