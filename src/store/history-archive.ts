/**
 * One dataset's whole history as the time series and the change log read it: the index at hand
 * (dates, collection times, who is listed when), each calendar year's part read from its file on
 * first use. At most PARTS_KEPT parts stay loaded per dataset, so memory stays bounded however
 * long the history grows; a request keeps the part it is reading alive while it reads it.
 */
import type { ChangeLog } from '../changes/log.ts';
import { buildChangeLog } from '../changes/log.ts';
import type { Dataset } from '../datasets.ts';
import { type ChangeLogFile, changesFile, type HistoryIndex, indexFile, partFile } from './history-files.ts';
import type { CompiledDataset } from './compile.ts';
import { DatasetHistory } from './dataset-history.ts';
import { DatedSnapshots } from './dated-snapshots.ts';

/** Reads one history file by its path relative to the history folder (src/store/history-files.ts). */
export type ReadHistoryFile = (path: string) => Promise<string>;

/** Loaded years kept per dataset: a long range reads its years one after another, never all at once. */
export const PARTS_KEPT = 3;

export class HistoryArchive extends DatedSnapshots {
  /** Loaded parts by year, least recently used first. */
  private readonly parts = new Map<string, Promise<DatasetHistory>>();
  private changeLog?: Promise<ChangeLog>;

  constructor(
    readonly dataset: Dataset,
    private readonly index: HistoryIndex,
    private readonly read: ReadHistoryFile,
  ) {
    super(index.version, index.dates, index.lastUpdated);
  }

  static async load(dataset: Dataset, read: ReadHistoryFile): Promise<HistoryArchive> {
    return new HistoryArchive(dataset, JSON.parse(await read(indexFile(dataset.slug))) as HistoryIndex, read);
  }

  /** Whether the entity with this canonical (lower-case) id is listed in the snapshot, from the index alone. */
  lists(snapshot: number, canonicalId: string): boolean {
    const ranges = this.index.listed[canonicalId] ?? [];
    for (let r = 0; r < ranges.length; r += 2) {
      if (snapshot >= ranges[r]! && snapshot <= ranges[r + 1]!) return true;
    }
    return false;
  }

  /** Every entity the history ever listed: its id, newest name, and the dates it was first and last listed. */
  listedEver(): { id: string; name: string; firstSeen: string; lastSeen: string; website?: string }[] {
    return Object.entries(this.index.listed).map(([canonical, ranges]) => {
      const [id, name] = this.index.names[canonical]!;
      const website = this.index.websites?.[canonical];
      return {
        id,
        name,
        firstSeen: this.dates[ranges[0]!]!,
        lastSeen: this.dates[ranges.at(-1)!]!,
        ...(website ? { website } : {}),
      };
    });
  }

  /** The loaded year holding a snapshot, and the snapshot's number within it. */
  async locate(snapshot: number): Promise<{ part: DatasetHistory; local: number }> {
    const { parts } = this.index;
    let p = parts.length - 1;
    while (p > 0 && parts[p]!.first > snapshot) p--;
    const { year, first } = parts[p]!;
    let loading = this.parts.get(year);
    if (loading) {
      this.parts.delete(year); // re-inserted below: now the most recently used
    } else {
      loading = this.read(partFile(this.dataset.slug, year)).then(
        (text) => new DatasetHistory(this.dataset, JSON.parse(text) as CompiledDataset),
      );
      // A failed read is forgotten, so the next request tries again.
      loading.catch(() => this.parts.get(year) === loading && this.parts.delete(year));
    }
    this.parts.set(year, loading);
    if (this.parts.size > PARTS_KEPT) this.parts.delete(this.parts.keys().next().value as string);
    return { part: await loading, local: snapshot - first };
  }

  /** The change log, read on first use and kept. */
  changes(): Promise<ChangeLog> {
    this.changeLog ??= this.read(changesFile(this.dataset.slug)).then((text) => {
      const { days, known } = JSON.parse(text) as ChangeLogFile;
      return buildChangeLog(this.dataset, days, known);
    });
    this.changeLog.catch(() => (this.changeLog = undefined));
    return this.changeLog;
  }
}
