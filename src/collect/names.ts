/**
 * Names the service can keep: refused at collection, with the field, the text and the reason, is
 * every name the build could not write, a reader could mistake for another, or the site's own
 * paths already use. A collection the collector accepts always builds.
 *
 * Look-alike letters are found by Unicode's confusable skeletons (UTS #39): a letter outside the
 * Latin script whose skeleton is Latin ("ꓮ" of Lisu, "Ꭺ" of Cherokee, "А" of Cyrillic all look
 * like "A") passes for a Latin one, and is refused. The prototypes come from Unicode's
 * confusables.txt, as the `unhomoglyph` package ships it.
 */
import PROTOTYPES from 'unhomoglyph/data.json' with { type: 'json' };
import { reservedSlugOf } from '../changes/endpoint.ts';
import type { Dataset, Entity } from '../datasets.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { comparisonUrl, entityUrl } from '../explorer/pages.ts';
import { quote } from '../lib/clean-text.ts';
import { API_PREFIX } from '../paths.ts';
import { slugify } from './ids.ts';

export const NAME_LIMITS = {
  /**
   * The most characters of a name, plan, condition or period. The longest in the history is 45
   * (a loan's condition), the longest lender's name 25: a page past this is not a name.
   */
  maxTextChars: 100,
  /**
   * The most characters of the id part a name makes (`institution:<part>`): the build writes a
   * lender's pages at /rates/<dataset>/<part>/, and a file name has at most 255 bytes.
   */
  maxIdPartChars: 100,
} as const;

const refused = (rule: string, evidence: string) => `refused (${rule}): ${evidence}`;
/** A few examples of what a rule found, for its message. */
const some = (found: readonly string[]) =>
  `${found.slice(0, 3).join('; ')}${found.length > 3 ? `; … ${found.length} in all` : ''}`;

const PROTOTYPE = new Map(Object.entries(PROTOTYPES as Record<string, string>));

/** A text's UTS #39 skeleton: NFD, each code point replaced by its prototype, NFD again. */
export function skeleton(text: string): string {
  let mapped = '';
  for (const c of text.normalize('NFD')) mapped += PROTOTYPE.get(c) ?? c;
  return mapped.normalize('NFD');
}

const LATIN = /\p{Script=Latin}/u;
/** A letter of the Latin script, or no letter at all (digits, marks, punctuation: what every script writes). */
const LATIN_OR_NO_LETTER = /\P{L}|\p{Script=Latin}/u;
/** Letters of the scripts that pass for Latin ones most often: any mix with Latin is refused, look-alike or not. */
const MIXED = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;

/** The letters of `text` outside the Latin script whose skeleton is Latin: each looks like the Latin it is not. */
export function lookAlikes(text: string): { letter: string; looksLike: string }[] {
  const found = new Map<string, string>();
  for (const letter of text) {
    if (LATIN_OR_NO_LETTER.test(letter) || found.has(letter)) continue;
    const looksLike = skeleton(letter);
    if (LATIN.test(looksLike)) found.set(letter, looksLike);
  }
  return [...found].map(([letter, looksLike]) => ({ letter, looksLike }));
}

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** What is wrong with one text field of an entity, plan or product, each problem named with `at`. */
function textProblems(text: string, field: string, at: string): string[] {
  if (text.length > NAME_LIMITS.maxTextChars)
    return [`${at}: ${text.length} characters, at most ${NAME_LIMITS.maxTextChars}`];
  const problems: string[] = [];
  const alike = lookAlikes(text);
  if (LATIN.test(text) && MIXED.test(text)) problems.push(`${at}: mixes Latin letters with Cyrillic or Greek ones`);
  else if (alike.length > 0)
    problems.push(
      `${at}: ${alike.map((a) => `"${a.letter}" (${codePoint(a.letter)}) is no Latin letter but looks like "${a.looksLike}"`).join(', ')}`,
    );
  if (field === 'name' || field === 'plan' || field === 'condition') {
    const part = slugify(text);
    if (field === 'name' && part === '') problems.push(`${at}: makes no id (no Latin letter or digit)`);
    if (part.length > NAME_LIMITS.maxIdPartChars)
      problems.push(`${at}: makes an id part of ${part.length} characters, at most ${NAME_LIMITS.maxIdPartChars}`);
  }
  return problems;
}

/** Every text field of the data (names, plans, conditions, periods) the build could not write or a reader could mistake. */
function unkeptNames(data: readonly Entity[]): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, owner: string) => {
    if (Array.isArray(value)) for (const v of value) walk(v, owner);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const here = typeof record.id === 'string' ? record.id : owner;
      for (const [key, child] of Object.entries(record)) {
        if (key === 'id') continue;
        if (typeof child === 'string') problems.push(...textProblems(child, key, `${here} ${key} ${quote(child)}`));
        else walk(child, here);
      }
    }
  };
  walk(data, '');
  return problems;
}

/**
 * Lenders whose address is one the site or the API already gives something else: a measure's
 * comparison page (/rates/personal-loans/other; the build stops with "would clash with a
 * measure's"), or an endpoint after the dataset (/api/v1/<dataset>/changes).
 */
function takenAddresses(dataset: Dataset, data: readonly Entity[]): string[] {
  const definition = EXPLORER[dataset.slug];
  const measures = new Map(
    definition.measures.map((m) => [comparisonUrl(definition, m, { type: 'all', restricted: false }), m]),
  );
  return data.flatMap((e) => {
    const page = entityUrl(definition, e.id);
    const measure = measures.get(page);
    const slug = reservedSlugOf(e.id);
    return [
      ...(measure ? [`${e.id} ("${e.name}"): its page ${page} would clash with a measure's (${measure.label})`] : []),
      ...(slug ? [`${e.id} ("${e.name}"): ${API_PREFIX}/${dataset.slug}/${slug} is an endpoint of the API`] : []),
    ];
  });
}

/**
 * The reason to refuse a collection for its names, or null: a name the service cannot keep
 * (unkeptNames), or an address the site's own paths use (takenAddresses). Checked before the
 * schema, whose words for an id a name could not make are a puzzle.
 */
export function nameRefusal(dataset: Dataset, data: readonly Entity[]): string | null {
  const problems = unkeptNames(data);
  if (problems.length > 0) return refused('a name the service cannot keep', some(problems));
  const taken = takenAddresses(dataset, data);
  return taken.length > 0 ? refused('a reserved slug', some(taken)) : null;
}
