/** Reading values out of interest.co.nz table cells: nbsp, dashes, n/a, footnote marks, % and $ signs, thousands separators. */
import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';

const NOT_OFFERED = /^(?:-+|–|—|n\/?a|none|nil)$/i;

/**
 * Text as the page has it, trimmed: `&nbsp;` becomes a space and line breaks in the markup fold
 * to one space, but runs of plain spaces stay (the history keeps names like "Standard  LVR < 80%"
 * verbatim, and ids do not depend on them).
 */
export function plainText(text: string): string {
  return text
    .replace(/\u00a0/g, ' ')
    .replace(/ *[\r\n\t][\s]* */g, ' ')
    .trim();
}

/** Visible text of a cell, footnote superscripts and images left out. */
export function cellText(cell: Cheerio<AnyNode>): string {
  const copy = cell.clone();
  copy.find('sup, img, script, style').remove();
  return plainText(copy.text());
}

/** A text value, or null where the cell is empty or says the thing is not offered. */
export function textValue(text: string): string | null {
  const value = text.replace(/\*+$/, '').trim();
  return value === '' || NOT_OFFERED.test(value) ? null : value;
}

/**
 * A number from a cell: `%`, `$`, `*` and thousands separators ignored; `0` is a value;
 * empty, `-` and `n/a` are null. A cell with words around one number (`up to 55 days`)
 * gives that number; anything ambiguous gives null rather than a guess.
 */
export function parseNumber(text: string): number | null {
  const cleaned = text
    .replace(/\u00a0/g, ' ')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .trim();
  const bare = cleaned.replace(/[\s$%*†‡]/g, '');
  if (bare === '' || NOT_OFFERED.test(bare)) return null;
  if (/^-?\d+(?:\.\d+)?$/.test(bare)) return Number(bare);
  const numbers = cleaned.match(/\d+(?:\.\d+)?/g);
  return numbers?.length === 1 ? Number(numbers[0]) : null;
}

/** The institution named by a cell: a logo's `alt` (not its `title`, which may be a slogan), else the text. */
export function entityName(cell: Cheerio<AnyNode> | undefined): string {
  if (!cell || cell.length === 0) return '';
  const alt = cell.find('img[alt]').not('[class*="indicator"]').first().attr('alt');
  return alt?.trim() ? plainText(alt) : cellText(cell);
}
