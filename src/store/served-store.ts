/**
 * The served data: each dataset's newest snapshot at hand (list, detail, health), built once per
 * process, and each dataset's whole history as an archive of yearly files read on demand (time
 * series, change log; src/store/history-archive.ts).
 */
import { DATASETS, datasetBySlug, type DatasetSlug } from '../datasets.ts';
import type { CompiledStore } from './compile.ts';
import { DatasetHistory } from './dataset-history.ts';
import { HistoryArchive, type ReadHistoryFile } from './history-archive.ts';

export { DatasetHistory, type FilterValues } from './dataset-history.ts';
export type { HistoryArchive } from './history-archive.ts';

export class ServedStore {
  private readonly newestHistories = new Map<string, DatasetHistory>();
  private readonly archives = new Map<string, Promise<HistoryArchive>>();

  constructor(
    newest: CompiledStore,
    /** Reads a file of the history folder (src/store/history-files.ts). */
    private readonly readHistory: ReadHistoryFile,
  ) {
    if (newest.format !== 2) throw new Error(`unknown compiled store format ${String(newest.format)}`);
    for (const [slug, dataset] of Object.entries(newest.datasets)) {
      const definition = datasetBySlug(slug);
      if (definition) this.newestHistories.set(slug, new DatasetHistory(definition, dataset));
    }
  }

  /** The dataset's newest snapshot only. */
  newest(slug: DatasetSlug): DatasetHistory {
    return this.newestHistories.get(slug) ?? emptyHistory(slug);
  }

  /** The dataset's whole history: its index now, its years as they are read. */
  history(slug: DatasetSlug): Promise<HistoryArchive> {
    let archive = this.archives.get(slug);
    if (!archive) {
      const dataset = DATASETS.find((d) => d.slug === slug)!;
      archive = HistoryArchive.load(dataset, this.readHistory);
      this.archives.set(slug, archive);
      // Try again next time rather than failing forever.
      archive.catch(() => this.archives.get(slug) === archive && this.archives.delete(slug));
    }
    return archive;
  }
}

function emptyHistory(slug: DatasetSlug): DatasetHistory {
  const dataset = DATASETS.find((d) => d.slug === slug)!;
  return new DatasetHistory(dataset, {
    version: 'empty',
    dates: [],
    lastUpdated: [],
    snapshots: [],
    entities: [],
    items: [],
  });
}
