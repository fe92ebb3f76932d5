/**
 * A quote check's answer in words, as a comparison page writes it under its form
 * (src/components/QuoteCheck.astro, src/browser/quote.ts): "4 of 21 open offers are lower; your
 * rate is at the 81st percentile; the lowest is 4.99 %, from ANZ (Special)." Pure, so the page and
 * the tests say the same from the same answer (src/schemas/quote.ts).
 */

/** What the words read of an answer's `data`; an offer's names are read by the keys the dataset gives them. */
export interface QuoteData {
  count: number;
  lower: number;
  equal: number;
  higher: number;
  percentile: number | null;
  lowest: number | null;
  lowestOffers: readonly Record<string, unknown>[];
}

/** How the page's dataset and measure word a quote: its best end and the keys of an offer's names. */
export interface QuoteWording {
  /** "lowest" where the best is the lowest rate, "highest" where it is the highest (src/explorer/best.ts). */
  best: 'lowest' | 'highest';
  /** "institutionName", "issuerName". */
  entityName: string;
  /** "productName", "planName". */
  itemName: string;
}

/** "1st", "2nd", "3rd", "4th", "11th", "21st". */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * The percentile as a whole number, never 100 while an offer beats the rate nor 0 while one does
 * not, which rounding alone would say of a rate among hundreds.
 */
function wholePercentile(data: QuoteData, better: number): number {
  const rounded = Math.round(data.percentile ?? 0);
  if (better > 0 && rounded === 100) return 99;
  if (better < data.count && rounded === 0) return 1;
  return rounded;
}

const names = (items: readonly string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

export function quoteInWords(data: QuoteData, wording: QuoteWording): string {
  if (data.count === 0 || data.lowest === null)
    return 'No offer of this kind is open to anyone in the newest snapshot.';
  const paid = wording.best === 'lowest';
  const better = paid ? data.lower : data.higher;
  const side = paid ? 'lower' : 'higher';
  const offers = `${better} of ${data.count} open offer${data.count === 1 ? '' : 's'} ${better === 1 ? 'is' : 'are'} ${side}`;
  const equal = data.equal > 0 ? `, ${data.equal} equal to it` : '';
  const who = names(
    data.lowestOffers.map((o) => {
      const item = String(o[wording.itemName] ?? '') || 'unnamed';
      const text = String(o.rateText ?? '');
      // A range's whole span beside its name: the best is where it starts.
      return `${String(o[wording.entityName])} (${item}${text.includes('–') || /^(from|up to) /.test(text) ? `, ${text}` : ''})`;
    }),
  );
  return (
    `${offers}${equal}; your rate is at the ${ordinal(wholePercentile(data, better))} percentile; ` +
    `the ${wording.best} is ${data.lowest.toFixed(2)} %, from ${who}.`
  );
}
