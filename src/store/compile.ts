/**
 * Build step: read and validate the whole snapshot tree once, and compile it into the form the
 * function serves. History is stored with structural sharing: every distinct product or plan is
 * kept once (as its canonical JSON), every distinct institution once (as its id, name and item
 * numbers), and a snapshot is the list of its institutions' numbers. A day on which one rate
 * moved adds one product and one institution, not a copy of the dataset, so years of history
 * stay small. A bad file stops the build with the file named, so it is never served.
 */
import { createHash } from 'node:crypto';
import { DATASETS, itemsOf, type Snapshot } from '../datasets.ts';
import { readLinks } from '../snapshots/links.ts';
import { listSnapshotDates, readSnapshot, SnapshotFileError } from '../snapshots/tree.ts';

/** An institution or issuer: id, name, and the numbers of its items (products or plans). */
export type CompiledEntity = [id: string, name: string, items: number[]];

export interface CompiledDataset {
  /** Hash of the dataset's whole content; part of every ETag, so it changes when the data does. */
  version: string;
  /** Snapshot dates, oldest first. */
  dates: string[];
  /** Collection time of each snapshot. */
  lastUpdated: string[];
  /** Each snapshot's entities, by number. */
  snapshots: number[][];
  entities: CompiledEntity[];
  /** The canonical JSON of each distinct item. */
  items: string[];
  /**
   * Per entity id, its website from the links file beside the snapshots (src/snapshots/links.ts).
   * Left out of `version`: a website is no rate, so it never changes a rate answer's ETag.
   */
  websites?: Record<string, string>;
}

export interface CompiledStore {
  format: 2;
  datasets: Record<string, CompiledDataset>;
}

export class CompileError extends Error {
  constructor(readonly failures: SnapshotFileError[]) {
    super(`${failures.length} snapshot file(s) are invalid:\n${failures.map((f) => `  ${f.message}`).join('\n')}`);
    this.name = 'CompileError';
  }
}

/** Collects snapshots of one dataset into the shared form. */
export class DatasetCompiler {
  private readonly compiled: Omit<CompiledDataset, 'version'> = {
    dates: [],
    lastUpdated: [],
    snapshots: [],
    entities: [],
    items: [],
  };
  private readonly itemNumbers = new Map<string, number>();
  private readonly entityNumbers = new Map<string, number>();

  private intern<T>(table: T[], numbers: Map<string, number>, key: string, value: T): number {
    let n = numbers.get(key);
    if (n === undefined) {
      n = table.push(value) - 1;
      numbers.set(key, n);
    }
    return n;
  }

  /** Add a validated snapshot (its objects in schema key order). Dates must come oldest first. */
  add(date: string, snapshot: Pick<Snapshot, 'data' | 'lastUpdated'>): void {
    this.addCompiled(
      date,
      snapshot.lastUpdated,
      snapshot.data.map((entity) => ({
        id: entity.id,
        name: entity.name,
        items: itemsOf(entity).map((item) => JSON.stringify(item)),
      })),
    );
  }

  /** The same with each item already as its canonical JSON (a part of a compiled history). */
  addCompiled(date: string, lastUpdated: string, data: { id: string; name: string; items: string[] }[]): void {
    const entities = data.map(({ id, name, items }) => {
      const value: CompiledEntity = [
        id,
        name,
        items.map((json) => this.intern(this.compiled.items, this.itemNumbers, json, json)),
      ];
      return this.intern(this.compiled.entities, this.entityNumbers, JSON.stringify(value), value);
    });
    this.compiled.dates.push(date);
    this.compiled.lastUpdated.push(lastUpdated);
    this.compiled.snapshots.push(entities);
  }

  finish(): CompiledDataset {
    const version = createHash('sha256').update(JSON.stringify(this.compiled)).digest('base64url').slice(0, 16);
    return { version, ...this.compiled };
  }
}

export async function compileSnapshotTree(dir: string): Promise<CompiledStore> {
  const datasets: Record<string, CompiledDataset> = {};
  const failures: SnapshotFileError[] = [];
  for (const dataset of DATASETS) {
    const compiler = new DatasetCompiler();
    for (const date of await listSnapshotDates(dir, dataset)) {
      try {
        compiler.add(date, await readSnapshot(dir, dataset, date));
      } catch (error) {
        if (!(error instanceof SnapshotFileError)) throw error;
        failures.push(error);
      }
    }
    datasets[dataset.slug] = compiler.finish();
    try {
      const { websites } = await readLinks(dir, dataset);
      if (Object.keys(websites).length > 0) datasets[dataset.slug]!.websites = websites;
    } catch (error) {
      if (!(error instanceof SnapshotFileError)) throw error;
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new CompileError(failures);
  return { format: 2, datasets };
}

/**
 * Only each dataset's newest snapshot, renumbered: what list, detail and health need. It is
 * embedded eagerly and is small; the full history loads when a time series is first asked for,
 * so a cold start does not parse years of history.
 */
export function newestOnly(store: CompiledStore): CompiledStore {
  const datasets: Record<string, CompiledDataset> = {};
  for (const [slug, d] of Object.entries(store.datasets)) {
    const last = d.snapshots.length - 1;
    if (last < 0) {
      datasets[slug] = d;
      continue;
    }
    const items: string[] = [];
    const itemNumbers = new Map<number, number>();
    const renumber = (i: number) => {
      let n = itemNumbers.get(i);
      if (n === undefined) itemNumbers.set(i, (n = items.push(d.items[i]!) - 1));
      return n;
    };
    const entities = d.snapshots[last]!.map((e): CompiledEntity => {
      const [id, name, own] = d.entities[e]!;
      return [id, name, own.map(renumber)];
    });
    datasets[slug] = {
      version: d.version,
      dates: [d.dates[last]!],
      lastUpdated: [d.lastUpdated[last]!],
      snapshots: [entities.map((_, i) => i)],
      entities,
      items,
    };
  }
  return { format: 2, datasets };
}
