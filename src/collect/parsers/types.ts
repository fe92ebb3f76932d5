import type { Entity } from '../../datasets.ts';
import { cleanText } from '../../lib/clean-text.ts';
import { type NumberKind, readNumber } from '../cells.ts';
import type { NameLink } from '../tables.ts';

/** What a page parser returns: every entity as the page lists it (merging happens afterwards). */
export interface PageParse {
  tableCount: number;
  data: Entity[];
  /** The page's non-empty value cells, and those of them that could not be read. */
  cells: { read: number; unreadable: string[] };
  /** The links of the name cells, as the page wrote them (collect/links.ts reads websites from them). */
  links: NameLink[];
}

export type PageParser = (html: string) => PageParse;

/** A cell's text as a message may quote it: short and clean, whatever the page put there. */
const quoted = (text: string) => JSON.stringify(cleanText(text, 60));

/**
 * The value cells a parser reads, counted: each non-empty one, and each that cannot be read,
 * named by where it stands. An empty cell is no value and is not counted.
 */
export class CellLog {
  read = 0;
  readonly unreadable: string[] = [];

  /** A number of its kind (see readNumber), or null for an empty or unreadable cell. */
  number(text: string, where: string, kind: NumberKind): number | null {
    const cell = readNumber(text, kind);
    if (cell.value !== null || cell.unreadable) this.read++;
    if (cell.value === null && cell.unreadable) this.unreadable.push(`${where}: ${quoted(text)}`);
    return cell.value;
  }

  /** A cell whose whole content could not be understood (a follow-on line, say). */
  cannotRead(where: string, text: string): void {
    this.read++;
    this.unreadable.push(`${where}: ${quoted(text)}`);
  }

  get summary(): PageParse['cells'] {
    return { read: this.read, unreadable: this.unreadable };
  }
}
