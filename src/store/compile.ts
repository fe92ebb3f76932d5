/**
 * Build step: read and validate the whole snapshot tree once, and produce the compiled form
 * the function serves. A bad file stops the build with the file named, so it is never served.
 */
import { DATASETS, type Snapshot } from '../datasets.ts';
import { listSnapshotDates, readSnapshot, SnapshotFileError } from '../snapshots/tree.ts';

export interface CompiledDataset {
  /** Snapshot dates, oldest first; `snapshots[i]` was collected on `dates[i]`. */
  dates: string[];
  snapshots: Snapshot[];
}

export interface CompiledStore {
  format: 1;
  datasets: Record<string, CompiledDataset>;
}

export class CompileError extends Error {
  constructor(readonly failures: SnapshotFileError[]) {
    super(`${failures.length} snapshot file(s) are invalid:\n${failures.map((f) => `  ${f.message}`).join('\n')}`);
    this.name = 'CompileError';
  }
}

export async function compileSnapshotTree(dir: string): Promise<CompiledStore> {
  const datasets: Record<string, CompiledDataset> = {};
  const failures: SnapshotFileError[] = [];
  for (const dataset of DATASETS) {
    const dates = await listSnapshotDates(dir, dataset);
    const snapshots: Snapshot[] = [];
    for (const date of dates) {
      try {
        snapshots.push(await readSnapshot(dir, dataset, date));
      } catch (error) {
        if (!(error instanceof SnapshotFileError)) throw error;
        failures.push(error);
      }
    }
    datasets[dataset.slug] = { dates, snapshots };
  }
  if (failures.length > 0) throw new CompileError(failures);
  return { format: 1, datasets };
}
