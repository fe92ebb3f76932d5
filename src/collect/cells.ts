/**
 * Reading values out of interest.co.nz table cells. A cell is empty (blank, `&nbsp;`, a dash,
 * `n/a`: the thing is not offered), or holds exactly one value, or cannot be read — and a cell
 * that cannot be read is reported, never guessed at: "see note 3" is not 3, "3 9" is not 39.
 *
 * Everything here runs in time linear in the cell: a cell's text is gathered once by walking its
 * nodes (no copy of its markup), no more than MAX_CELL_CHARS of it, and no pattern here can
 * backtrack over a run of the cell (ends are trimmed by loops, runs matched by character classes).
 */
import type { AnyNode, Element } from 'domhandler';
import { INVISIBLE_CHARACTERS } from '../schemas/common.ts';

/**
 * The most characters a cell's text is read to. A rate is a few characters and the longest text in
 * the history 45: a longer cell is no cell of a rate table, and the reader refuses its table
 * without reading further (tables.ts).
 */
export const MAX_CELL_CHARS = 1_000;

/** What the schema refuses in any name (src/schemas/common.ts), but line breaks and tabs, which plainText folds to a space. */
const INVISIBLE_BUT_BREAKS = new RegExp(`(?![\\r\\n\\t])${INVISIBLE_CHARACTERS.source}`, 'gu');

/** What the page writes for "not offered". */
const NOT_OFFERED = /^(?:-+|–|—|n\/?a|none|nil)$/i;
/** Footnote marks after a value. */
const MARKS = '*†‡#^';
/** Stray punctuation at a name's ends ("SBS Bank." is "SBS Bank"). */
const NAME_ENDS = '.,;:·•*-–—';

/** Elements whose text is no part of the cell's value: footnote superscripts, images, code. */
const SKIPPED = new Set(['sup', 'img', 'script', 'style']);

/** `text` with the characters of `chars` (and white space) trimmed from its ends, by loops: linear. */
function trimChars(text: string, chars: string): string {
  const strip = (c: string) => chars.includes(c) || c.trim() === '';
  let start = 0;
  let end = text.length;
  while (start < end && strip(text[start]!)) start++;
  while (end > start && strip(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** `text` without the footnote marks (and spaces) at its end. */
function withoutMarks(text: string): string {
  let end = text.length;
  while (end > 0 && (MARKS.includes(text[end - 1]!) || text[end - 1]!.trim() === '')) end--;
  return text.slice(0, end).trim();
}

/**
 * Text as the page has it, trimmed: `&nbsp;` becomes a space and a line break in the markup, with
 * the white space around it, folds to one space, but runs of plain spaces stay (the history keeps
 * names like "Standard  LVR < 80%" verbatim, and ids do not depend on them).
 */
function plainText(text: string): string {
  const lines = text
    .normalize('NFC')
    .replace(/\u00a0/g, ' ')
    .replace(INVISIBLE_BUT_BREAKS, '')
    .split(/[\r\n\t]/);
  return lines
    .map((line, i) => (i > 0 ? line.trimStart() : line))
    .map((line, i) => (i < lines.length - 1 ? line.trimEnd() : line))
    .filter((line) => line !== '')
    .join(' ')
    .trim();
}

/**
 * Visible text of a cell, footnote superscripts and images left out, a line break read as a space
 * ("6<br>months"), walking the cell's nodes once (no copy of its markup) and no further than
 * MAX_CELL_CHARS + 1 characters: `whole` says whether that was all of it.
 */
export function readCellText(cell: Element | undefined): { text: string; whole: boolean } {
  if (!cell) return { text: '', whole: true };
  let text = '';
  const stack: AnyNode[] = [...cell.children].reverse();
  while (stack.length > 0 && text.length <= MAX_CELL_CHARS) {
    const node = stack.pop()!;
    if (node.type === 'text') text += (node as { data: string }).data;
    else if (node.type === 'tag') {
      const element = node as Element;
      if (element.name === 'br') text += ' ';
      else if (!SKIPPED.has(element.name))
        for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i]!);
    }
  }
  return { text: plainText(text.slice(0, MAX_CELL_CHARS + 1)), whole: text.length <= MAX_CELL_CHARS };
}

/** A cell's visible text (readCellText), as far as it was read. */
export const cellText = (cell: Element | undefined) => readCellText(cell).text;

/** Whether a cell says nothing: blank, or "not offered". */
function isEmptyCell(text: string): boolean {
  const value = withoutMarks(text);
  return value === '' || NOT_OFFERED.test(value);
}

/** A text value, or null where the cell is empty or says the thing is not offered. */
export function textValue(text: string): string | null {
  return isEmptyCell(text) ? null : withoutMarks(text);
}

/** A cell read as a number: its value, nothing (empty), or unreadable (non-empty, but not one number). */
export type NumberCell = { value: number } | { value: null; unreadable: boolean };

/**
 * What a column's numbers are: a rate (`5.79`, `5.79%`, `5.79% p.a.`), money (`$1,250`), or days
 * (`55`, `55 days`). A sign belongs to its kind only: `$149` in a days column is not 149 days.
 */
export type NumberKind = 'rate' | 'money' | 'days';

/** The number itself, written whole: digits (`,` between thousands), an optional decimal part. */
const NUMBER = /^(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?$/;
/** "p.a." (per year) after a rate, in any case: a pattern of a fixed few characters, so it cannot backtrack over the cell. */
const PER_YEAR = /p\.?\s?a\.?$/i;

/** The number of a cell stripped of its kind's signs (another kind's sign stays, and makes it unreadable). */
function bareNumber(text: string, kind: NumberKind): string {
  switch (kind) {
    case 'rate': {
      const number = text.replace(PER_YEAR, '').trimEnd();
      return number.endsWith('%') ? number.slice(0, -1) : number;
    }
    case 'money':
      return text.startsWith('$') ? text.slice(1).trimStart() : text;
    case 'days':
      return text.replace(/\s?days?$/i, '');
  }
}

/**
 * A number from a cell, only when the whole cell is one number of its kind: footnote marks and
 * thousands separators allowed, full-width digits read as the digits they are (Unicode NFKC), and
 * the kind's own signs around it; `0` is a value. Anything else non-empty is unreadable.
 */
export function readNumber(text: string, kind: NumberKind): NumberCell {
  if (isEmptyCell(text)) return { value: null, unreadable: false };
  const bare = bareNumber(withoutMarks(text.normalize('NFKC').replace(/\u00a0/g, ' ')), kind);
  const match = NUMBER.exec(bare.trim());
  if (!match) return { value: null, unreadable: true };
  return { value: Number(`${match[1]!.replaceAll(',', '')}${match[2] ?? ''}`) };
}

/**
 * A name as the service keeps it: Unicode NFC, no invisible or control characters, spaces folded,
 * and no stray punctuation at its ends ("SBS Bank." is "SBS Bank", "ICBC " is "ICBC").
 */
export function cleanName(text: string): string {
  return trimChars(plainText(text).replace(/\s+/g, ' '), NAME_ENDS);
}

/**
 * Whether a logo's `title` reads as a name rather than a slogan: campaign logos carry slogans
 * there ("Home Loans %u2013 Apply now or find out more", "click to contact …", " - creating
 * futures."). A name is a few words, starts with a letter or digit, and carries none of a
 * sentence's marks or a call to act.
 */
function isNameLike(title: string): boolean {
  const text = title.trim();
  return (
    /^[\p{L}\p{N}]/u.test(text) &&
    text.split(/\s+/).length <= 4 &&
    !/%u[0-9a-f]{4}|[–—!?…:]|\.$/i.test(text) &&
    !/\b(?:click|apply|find|contact|invest|more|now|here|today|call|visit|learn)\b/i.test(text)
  );
}

/**
 * The institution a name cell names: a logo's `alt`, else the cell's text, else a logo's or its
 * link's `title` when that reads as a name (isNameLike); '' when it names none.
 */
export function entityName(cell: Element | undefined): string {
  if (!cell) return '';
  const images = elementsIn(cell, 'img').filter((img) => !(img.attribs.class ?? '').includes('indicator'));
  const links = elementsIn(cell, 'a');
  const alt = images.map((img) => cleanName(img.attribs.alt ?? '')).find(Boolean);
  if (alt) return alt;
  const text = cleanName(cellText(cell));
  if (text) return text;
  const titles = [...images, ...links].map((e) => e.attribs.title ?? '').filter(isNameLike);
  return titles.length > 0 ? cleanName(titles[0]!) : '';
}

/** Where a name cell's link points (the `href` of its first link), as the page wrote it. */
export function nameCellLink(cell: Element | undefined): string | undefined {
  const href = cell ? elementsIn(cell, 'a').find((a) => a.attribs.href)?.attribs.href : undefined;
  return href?.trim() || undefined;
}

/** The elements named `name` inside `root`, in document order, walked without recursion. */
function elementsIn(root: Element, name: string): Element[] {
  const found: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    const element = node as Element;
    if (element.name === name) found.push(element);
    for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i]!);
  }
  return found;
}

/** Whether a name cell holds anything at all: text, or an image (a logo that may name no one). */
export function cellHasContent(cell: Element | undefined): boolean {
  return cell !== undefined && (cellText(cell) !== '' || elementsIn(cell, 'img').length > 0);
}
