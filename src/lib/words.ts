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
