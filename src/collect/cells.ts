/**
 * Reading values out of interest.co.nz table cells. A cell is empty (blank, `&nbsp;`, a dash,
 * `n/a`: the thing is not offered), or holds exactly one value, or cannot be read — and a cell
 * that cannot be read is reported, never guessed at: "see note 3" is not 3, "3 9" is not 39.
 */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { INVISIBLE_CHARACTERS } from '../schemas/common.ts';

/** What the schema refuses in any name (src/schemas/common.ts), all of it. */
const INVISIBLE = new RegExp(INVISIBLE_CHARACTERS.source, 'gu');

/** What the page writes for "not offered". */
const NOT_OFFERED = /^(?:-+|–|—|n\/?a|none|nil)$/i;
/** Footnote marks after a value. */
const MARKS = /[*†‡#^]+$/;
/**
 * One number, written whole: an optional `$`, digits (with `,` between thousands), an optional
 * decimal part, an optional `%`. Nothing else: a leading `.5`, `4.5.6`, `1e308` or `NaN` is not one.
 */
const NUMBER = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*%?$/;

/**
 * Text as the page has it, trimmed: `&nbsp;` becomes a space and line breaks in the markup fold
 * to one space, but runs of plain spaces stay (the history keeps names like "Standard  LVR < 80%"
 * verbatim, and ids do not depend on them).
 */
export function plainText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\u00a0/g, ' ')
    .replace(/ *[\r\n\t][\s]* */g, ' ')
    .replace(INVISIBLE, '')
    .trim();
}

/** Visible text of a cell, footnote superscripts and images left out, a line break read as a space ("6<br>months"). */
export function cellText(cell: Cheerio<AnyNode>): string {
  const copy = cell.clone();
  copy.find('sup, img, script, style').remove();
  copy.find('br').replaceWith(' ');
  return plainText(copy.text());
}

/** Whether a cell says nothing: blank, or "not offered". */
export function isEmptyCell(text: string): boolean {
  const value = text.replace(MARKS, '').trim();
  return value === '' || NOT_OFFERED.test(value);
}

/** A text value, or null where the cell is empty or says the thing is not offered. */
export function textValue(text: string): string | null {
  return isEmptyCell(text) ? null : text.replace(MARKS, '').trim();
}

/** A cell read as a number: its value, nothing (empty), or unreadable (non-empty, but not one number). */
export type NumberCell = { value: number } | { value: null; unreadable: boolean };

/**
 * A number from a cell, only when the whole cell is one number: `%`, `$`, footnote marks and
 * thousands separators allowed around it, and `unit` after it when given (`55 days`); `0` is a
 * value. Anything else non-empty is unreadable.
 */
export function readNumber(text: string, unit?: RegExp): NumberCell {
  if (isEmptyCell(text)) return { value: null, unreadable: false };
  let bare = text
    .replace(/\u00a0/g, ' ')
    .replace(MARKS, '')
    .trim();
  if (unit) bare = bare.replace(unit, '').trim();
  const match = NUMBER.exec(bare);
  if (!match) return { value: null, unreadable: true };
  return { value: Number(`${match[1]!.replaceAll(',', '')}${match[2] ?? ''}`) };
}

/** The number of a cell, or null when it is empty or unreadable (the parsers report which). */
export function parseNumber(text: string, unit?: RegExp): number | null {
  return readNumber(text, unit).value;
}

/**
 * A name as the service keeps it: Unicode NFC, no invisible or control characters, spaces folded,
 * and no stray punctuation at its ends ("SBS Bank." is "SBS Bank", "ICBC " is "ICBC").
 */
export function cleanName(text: string): string {
  return plainText(text)
    .replace(/\s+/g, ' ')
    .replace(/^[\s.,;:·•*\-–—]+|[\s.,;:·•*\-–—]+$/g, '');
}

/** The institution named by a cell: a logo's `alt` (not its `title`, which may be a slogan), else the text. */
export function entityName(cell: Cheerio<AnyNode> | undefined): string {
  if (!cell || cell.length === 0) return '';
  const alt = cell.find('img[alt]').not('[class*="indicator"]').first().attr('alt');
  return cleanName(alt?.trim() ? alt : cellText(cell));
}
