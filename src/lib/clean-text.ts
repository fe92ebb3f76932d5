/**
 * Text that came from a page we do not control (a refusal's evidence, a title, a header, a cell)
 * made safe to store and print: no control, bidi or zero-width characters (a newline or an ANSI
 * escape in a title must not reach the Actions log, the status JSON or the page), and never
 * longer than a stated bound, so a 2 MB title costs 2,000 characters wherever it is kept.
 */
import { INVISIBLE_CHARACTERS } from '../schemas/common.ts';

/** The most characters any stored or printed reason holds (status store, run log, stdout, /status, health, the failure issue). */
export const REASON_MAX_CHARS = 2_000;

/** The most characters of page text quoted inside a reason (a title, a header, a row). */
export const QUOTE_MAX_CHARS = 200;

/** Every invisible character, each read once (a character class: linear, no backtracking). */
const INVISIBLE = new RegExp(INVISIBLE_CHARACTERS.source, 'gu');

/** `text` cut to at most `max` characters, an ellipsis marking the cut; never splits a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // a high surrogate whose pair would be cut off
  return `${text.slice(0, end)}…`;
}

/**
 * `text` with every control, bidi and zero-width character replaced by a space, cut to `max`
 * characters. Cut first (with room for the cleaning), so a huge text costs O(max).
 */
export function cleanText(text: string, max: number = REASON_MAX_CHARS): string {
  return cut(cut(text, max + 1).replace(INVISIBLE, ' '), max);
}

/** Page text quoted in a reason: clean, and at most QUOTE_MAX_CHARS. */
export const quote = (text: string) => `"${cleanText(text, QUOTE_MAX_CHARS)}"`;
