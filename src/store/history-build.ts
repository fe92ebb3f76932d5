/**
 * Build time: the history files of src/store/history-files.ts, made from the compiled history,
 * and a served store over them held in memory (the build's examples, tests, tools).
 */
import { changeDays } from '../changes/model.ts';
import { DATASETS, type Dataset } from '../datasets.ts';
import { snapshotsOf } from '../explorer/history.ts';
import { type CompiledDataset, type CompiledStore, DatasetCompiler, newestOnly } from './compile.ts';
import { type ChangeLogFile, changesFile, type HistoryIndex, indexFile, partFile } from './history-files.ts';
import { ServedStore } from './served-store.ts';

/** The inclusive snapshot ranges each entity is listed in. */
function listedRanges(compiled: CompiledDataset): Record<string, number[]> {
  const listed: Record<string, number[]> = {};
  compiled.snapshots.forEach((entities, s) => {
    for (const e of entities) {
      const ranges = (listed[compiled.entities[e]![0].toLowerCase()] ??= []);
      if (ranges.at(-1) === s - 1) ranges[ranges.length - 1] = s;
      else ranges.push(s, s);
    }
  });
  return listed;
}

/** Per canonical entity id, its id and the name of its newest listing (snapshots are oldest first). */
function newestNames(compiled: CompiledDataset): Record<string, [string, string]> {
  const names: Record<string, [string, string]> = {};
  for (const entities of compiled.snapshots) {
    for (const e of entities) {
      const [id, name] = compiled.entities[e]!;
      names[id.toLowerCase()] = [id, name];
    }
  }
  return names;
}

/** Snapshots `first` to `last` inclusive, renumbered as a dataset of their own (same version). */
function part(compiled: CompiledDataset, first: number, last: number): CompiledDataset {
  const compiler = new DatasetCompiler();
  for (let s = first; s <= last; s++) {
    compiler.addCompiled(
      compiled.dates[s]!,
      compiled.lastUpdated[s]!,
      compiled.snapshots[s]!.map((e) => {
        const [id, name, own] = compiled.entities[e]!;
        return { id, name, items: own.map((i) => compiled.items[i]!) };
      }),
    );
  }
  return { ...compiler.finish(), version: compiled.version };
}

/** Every file of one dataset's history, by path relative to the history folder. */
function datasetHistoryFiles(dataset: Dataset, compiled: CompiledDataset): Map<string, string> {
  const files = new Map<string, string>();
  const parts: HistoryIndex['parts'] = [];
  compiled.dates.forEach((date, s) => {
    const year = date.slice(0, 4);
    if (parts.at(-1)?.year !== year) parts.push({ year, first: s });
  });
  parts.forEach(({ year, first }, p) => {
    const last = (parts[p + 1]?.first ?? compiled.dates.length) - 1;
    files.set(partFile(dataset.slug, year), JSON.stringify(part(compiled, first, last)));
  });
  const index: HistoryIndex = {
    version: compiled.version,
    dates: compiled.dates,
    lastUpdated: compiled.lastUpdated,
    parts,
    listed: listedRanges(compiled),
    names: newestNames(compiled),
    websites: Object.fromEntries(Object.entries(compiled.websites ?? {}).map(([id, url]) => [id.toLowerCase(), url])),
  };
  files.set(indexFile(dataset.slug), JSON.stringify(index));
  const changes: ChangeLogFile = {
    days: changeDays(dataset, snapshotsOf(dataset, compiled)),
    known: [...new Set(compiled.entities.map(([id]) => id))],
  };
  files.set(changesFile(dataset.slug), JSON.stringify(changes));
  return files;
}

const EMPTY: CompiledDataset = { version: 'empty', dates: [], lastUpdated: [], snapshots: [], entities: [], items: [] };

/** Every file of every dataset's history. */
export function historyFiles(store: CompiledStore): Map<string, string> {
  const files = new Map<string, string>();
  for (const dataset of DATASETS) {
    // Every dataset gets an index, an empty one before its first snapshot: a missing file is a fault.
    const compiled = store.datasets[dataset.slug] ?? EMPTY;
    for (const [path, text] of datasetHistoryFiles(dataset, compiled)) files.set(path, text);
  }
  return files;
}

/** A served store over a compiled history, its history files held in memory. */
export function servedStoreOf(compiled: CompiledStore, files = historyFiles(compiled)): ServedStore {
  return new ServedStore(newestOnly(compiled), async (path) => {
    const text = files.get(path);
    if (text === undefined) throw new Error(`no history file ${path}`);
    return text;
  });
}
