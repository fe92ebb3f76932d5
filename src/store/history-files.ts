/**
 * The history as the functions read it: per dataset, a small index and one file per calendar year,
 * written by the build (src/store/history-build.ts) and read on demand (src/store/history-archive.ts). A request reads the
 * index and then only the years it asks for, one at a time, so the first byte of any answer waits
 * for one year's file, however long the history grows. The change log is worked out here, at
 * build time, so no request diffs the history.
 *
 * Files, relative to the history folder:
 *   <dataset>/index.json    HistoryIndex
 *   <dataset>/<year>.json   CompiledDataset of that year's snapshots (numbered from 0 within the year)
 *   <dataset>/changes.json  ChangeLogFile
 */
import type { ChangeDay } from '../changes/model.ts';

export interface HistoryIndex {
  /** The dataset's content hash (CompiledDataset.version): part of every ETag. */
  version: string;
  /** Snapshot dates, oldest first; a snapshot's number is its place here. */
  dates: string[];
  /** Collection time of each snapshot. */
  lastUpdated: string[];
  /** One part per calendar year that has snapshots: its year and the number of its first snapshot. */
  parts: { year: string; first: number }[];
  /**
   * Per canonical (lower-case) entity id, the snapshots it is listed in, as inclusive ranges
   * `[first, last, first, last, …]`: enough to answer "not found" before any part is read.
   */
  listed: Record<string, number[]>;
  /** Per canonical entity id, its id as the snapshots spell it and the name it was last listed under. */
  names: Record<string, [id: string, name: string]>;
  /** Per canonical entity id, its website (src/schemas/links.ts); absent in an index written before websites were kept. */
  websites?: Record<string, string>;
}

/** The change log's days and every entity id ever listed (src/changes/log.ts builds the answers from it). */
export interface ChangeLogFile {
  days: ChangeDay[];
  known: string[];
}

export const indexFile = (slug: string) => `${slug}/index.json`;
export const partFile = (slug: string, year: string) => `${slug}/${year}.json`;
export const changesFile = (slug: string) => `${slug}/changes.json`;
