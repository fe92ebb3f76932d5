/** Lists in prose, so that a sentence naming every dataset is written from the table, not by hand. */

/** "a", "a and b", "a, b and c". */
export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Names that end in the same word, that word said once: "home loan rates", "deposit rates" →
 * "home loan and deposit rates". Names that do not share it are listed whole.
 */
export function namesInWords(names: readonly string[]): string {
  const last = names.map((n) => n.split(' ').at(-1)!);
  const shared = last[0]!;
  if (names.length < 2 || last.some((w) => w !== shared) || names.some((n) => !n.includes(' ')))
    return listInWords(names);
  return `${listInWords(names.map((n) => n.slice(0, -shared.length - 1)))} ${shared}`;
}

/**
 * Words that begin with a vowel letter but a consonant sound ("a unit", "a one-year"), and with a
 * consonant letter but a vowel sound ("an hour"): the exceptions to choosing "a" or "an" by the
 * first letter. Numbers are read as said: "an 18-month", "an 8.99 %", "an 11-year".
 */
const CONSONANT_SOUND = /^(?:uni(?!n)|use|usu|eu|one\b|once\b)/i;
const VOWEL_SOUND = /^(?:hour|honest|honou?r|8|11|18|80)/i;

/** "a" or "an" before `phrase`, as it is said: "an unsecured car loan rate", "a 1-year fixed mortgage rate". */
export function withArticle(phrase: string): string {
  const vowel = VOWEL_SOUND.test(phrase) || (/^[aeiou]/i.test(phrase) && !CONSONANT_SOUND.test(phrase));
  return `${vowel ? 'an' : 'a'} ${phrase}`;
}

/** A name's possessive: "ANZ's", "CFML Loans'" (a name ending in s takes the apostrophe alone). */
export function possessive(name: string): string {
  return /s$/i.test(name) ? `${name}'` : `${name}'s`;
}

/**
 * A term as it stands before a noun: "1 year" → "1-year", "6 months" → "6-month", "3 years" →
 * "3-year" ("a 3-year fixed mortgage rate"); anything else unchanged.
 */
export function termBeforeNoun(label: string): string {
  const match = /^(\d+) (year|month)s?$/i.exec(label);
  return match ? `${match[1]}-${match[2]!.toLowerCase()}` : label;
}

const WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
/** A count as prose writes it: a word up to twelve, digits above. */
export const countWord = (n: number) => WORDS[n] ?? n.toLocaleString('en');
