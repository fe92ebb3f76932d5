import type { Entity } from '../../datasets.ts';

/** What a page parser returns: every entity as the page lists it (merging happens afterwards). */
export interface PageParse {
  tableCount: number;
  data: Entity[];
  /** Cells or rows that were skipped, for the log; they never fail a dataset. */
  warnings: string[];
}

export type PageParser = (html: string) => PageParse;
