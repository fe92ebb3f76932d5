/**
 * Reading values out of interest.co.nz table cells. A cell is empty (blank, `&nbsp;`, a dash,
 * `n/a`: the thing is not offered), or holds exactly one value, or cannot be read — and a cell
 * that cannot be read is reported, never guessed at: "see note 3" is not 3, "3 9" is not 39,
 * "6.8¹9" is not 6.819. Text is read as the page means it: a footnote mark is a mark, never a
 * digit, and a fee of "Nil" is a fee of $0.
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
const NOT_OFFERED = /^(?:-+|–|—|n\/?a)$/i;
/** Words for nothing, in any case. In a number column ZERO_WORDS says what each is. */
const NOTHING_WORDS: readonly string[] = ['none', 'nil', 'free'];
/** The words for nothing that leave a text column (a plan, a period) without a value, as "not offered" does. */
const NO_TEXT_WORDS: readonly string[] = ['none', 'nil'];
/**
 * The words for nothing that are 0 in each kind of column: no fee is a $0 fee, no interest-free
 * days are 0 days ("free" is a fee's word only, and unreadable as days). A rate of "nil" may be
 * 0 % or not offered: the page does not say which, so in a rate column every such word is unreadable.
 */
export const ZERO_WORDS: Record<NumberKind, readonly string[]> = {
  money: ['none', 'nil', 'free'],
  days: ['none', 'nil'],
  rate: [],
};
/**
 * Footnote marks before or after a value: signs, and the superscript digits a page types instead
 * of a `<sup>` (which is never read). A superscript digit is a mark, never a digit: `6.89¹` is
 * 6.89. Between a number's digits a mark is unreadable, whatever it is (`6.8¹9`).
 */
export const FOOTNOTE_MARKS = '*†‡#^§¶⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾';
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

/** `text` without the footnote marks (and spaces) at its ends. */
const withoutMarks = (text: string) => trimChars(text, FOOTNOTE_MARKS);

/**
 * Full-width forms (`５.７９％`, `＄１，２５０`: a page typed in an East Asian input mode) as the
 * ASCII they stand for. Nothing else is folded: Unicode NFKC would also make `¹` a 1, and `6.89¹` 6.891.
 */
const FULL_WIDTH = /[\uff01-\uff5e]/g;
const asciiOfFullWidth = (text: string) =>
  text.replace(FULL_WIDTH, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replaceAll('\u3000', ' ');

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

/** A text value without its marks, or null where the cell is empty or says the thing is not offered or none. */
export function textValue(text: string): string | null {
  const value = withoutMarks(text);
  return value === '' || NOT_OFFERED.test(value) || NO_TEXT_WORDS.includes(value.toLowerCase()) ? null : value;
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
 * A number from a cell, only when the whole cell is one number of its kind: footnote marks around
 * it (before or after the kind's own signs), thousands separators, full-width digits read as the
 * digits they are, and the kind's own signs around it; `0` is a value, and so is a word for
 * nothing where ZERO_WORDS says so. Anything else non-empty is unreadable.
 */
export function readNumber(text: string, kind: NumberKind): NumberCell {
  const value = withoutMarks(asciiOfFullWidth(text).replace(/\u00a0/g, ' '));
  if (value === '' || NOT_OFFERED.test(value)) return { value: null, unreadable: false };
  const word = value.toLowerCase();
  if (NOTHING_WORDS.includes(word))
    return ZERO_WORDS[kind].includes(word) ? { value: 0 } : { value: null, unreadable: true };
  const match = NUMBER.exec(withoutMarks(bareNumber(value, kind)));
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

/** Words that name a picture, not a lender ("logo", "ANZ logo", "banner image"). */
const PICTURE_WORDS = /\b(?:logos?|images?|img|banners?|icons?|pictures?|photos?|graphics?)\b/i;
/** A file name or path (`anz-logo.png`, `/logo/3.png`): what a page's template writes when a logo has no alt of its own. */
const FILE_NAME = /\.(?:png|jpe?g|gif|svg|webp|avif|bmp|ico)\b|[/\\]/i;
/** The source site's own name ("interest.co.nz", "interest"): its logo is no lender's. */
const SITE_NAME = /^interest$|interest\.co\.nz/i;

/**
 * Whether a logo's `alt` or `title` reads as a name rather than a slogan or a picture's label:
 * campaign logos carry slogans there ("Home Loans %u2013 Apply now or find out more", "click to
 * contact …", " - creating futures."), and templates write "logo" or a file name. A name is a few
 * words, starts with a letter or digit, and carries none of a sentence's marks, a call to act, a
 * picture's word, a file name or the source site's name. ("now" alone is no call: "Finance Now"
 * is a lender.)
 */
function isNameLike(text: string): boolean {
  const trimmed = text.trim();
  return (
    /^[\p{L}\p{N}]/u.test(trimmed) &&
    trimmed.split(/\s+/).length <= 4 &&
    !/%u[0-9a-f]{4}|[–—!?…:]|\.$/i.test(trimmed) &&
    !/\b(?:click|apply|find|contact|invest|more|here|today|call|visit|learn)\b/i.test(trimmed) &&
    !PICTURE_WORDS.test(trimmed) &&
    !FILE_NAME.test(trimmed) &&
    !SITE_NAME.test(trimmed)
  );
}

/**
 * The institution a name cell names: a logo's `alt` when it reads as a name (isNameLike, a stray
 * last stop forgiven: the page's labels carry one, "SBS Bank."), else the cell's text (never the
 * site's own name), else a logo's or its link's `title` when that reads as a name; '' when it
 * names none.
 */
export function entityName(cell: Element | undefined): string {
  if (!cell) return '';
  const images = elementsIn(cell, 'img').filter((img) => !(img.attribs.class ?? '').includes('indicator'));
  const links = elementsIn(cell, 'a');
  const alt = images.map((img) => plainText(img.attribs.alt ?? '')).find((text) => isNameLike(text.replace(/\.$/, '')));
  if (alt) return cleanName(alt);
  const text = cleanName(cellText(cell));
  // The site's own name in a name cell is its own link or logo, never a lender: the row names nobody.
  if (SITE_NAME.test(text)) return '';
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
