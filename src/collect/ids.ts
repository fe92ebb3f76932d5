/**
 * Ids compatible with the earlier deployment (checked against every id in the real history):
 * lower-case, `<` → `less-than-`, `>` → `greater-than-`, whitespace → `-`, other non-word
 * characters dropped, runs of dashes collapsed, and no trimming (`From ...` → `from-`, as the
 * history has it). Letters with diacritics are folded first
 * (`Kāinga Ora` → `kainga-ora`) rather than dropped as the earlier code did.
 */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replaceAll('<', 'less-than-')
    .replaceAll('>', 'greater-than-')
    .replace(/\s+/g, '-')
    .replace(/[^\w-]/g, '')
    .replace(/-+/g, '-');
}

/** `makeId('rate', 'ANZ', 'Special', '1 year')` → `rate:anz:special:1-year`; empty segments are skipped. */
export function makeId(prefix: string, ...segments: (string | null | undefined)[]): string {
  return [prefix, ...segments.map((s) => slugify(s ?? '')).filter(Boolean)].join(':');
}
