/**
 * What a page says, read off its model (page-model.ts) by the page's own statements, never by a
 * reader's: each column is what its header says (where header texts trade places, the truth
 * follows the headers), a row belongs to the lender whose name starts its run, a row of one rate
 * (a loan's) with no product to the product above it, an 18-month line to the product its own
 * cell names within its lender, a lender listed in several sections is one lender. What the page
 * does not say with certainty makes it one a reader must refuse, and the truth says why.
 *
 * An offer is one value (a card: one card, all its values) under its lender, item (product or card)
 * and measure (term; on a page of one rate a row, its measure columns: a loan's plan and
 * condition; the card's carried values): the unit of "what the page says" and of "kept under its
 * old id".
 */
import { itemsOf } from '../../src/datasets.ts';
import { type Cell, type Column, type Layout, type PageModel, renderPage, type Role, termLabel } from './page-model.ts';

export interface Offer {
  lender: string;
  item: string;
  measure: string;
  value: string;
}
export const offerKey = (offer: Offer) => `${offer.lender} · ${offer.item} · ${offer.measure}`;

/** accept: the page says what the newest snapshot says (only benign edits); either: refuse, or write exactly this; refuse: must refuse. */
export type Verdict = 'accept' | 'either' | 'refuse';

export interface Truth {
  verdict: Verdict;
  /** Why the page must be refused. */
  why: string[];
  offers: Offer[];
  /** The body's length was promised and not delivered: the fetch fails rather than refuses. */
  fetchMayFail: boolean;
}

/** A card's values, in the API's order. */
const CARD_FIELDS = [
  'purchaseRate',
  'cashAdvanceRate',
  'balanceTransferRate',
  'balanceTransferPeriod',
  'interestFreeDays',
  'annualFeeNZD',
] as const;

/** A card as one offer: its measure is which values it carries (two cards of one name are told apart by it), its value all of them. */
function cardOffer(lender: string, item: string, fields: Record<string, unknown>): Offer {
  const carried = CARD_FIELDS.filter((f) => fields[f] !== null && fields[f] !== undefined);
  return {
    lender,
    item,
    measure: carried.join(', ') || 'no values',
    value: carried.map((f) => `${f} ${fields[f]}`).join(' · '),
  };
}

/** A rate's measure on a page of one rate a row: its measure columns' values (a loan's plan and condition). */
const rowMeasure = (layout: Layout, valueAt: (key: string) => unknown) =>
  layout.columns
    .filter((c) => c.measure)
    .map((c) => valueAt(c.key) ?? '—')
    .join(' · ');

/** The offers a snapshot's data holds, each with its id. */
export function offersOfSnapshot(layout: Layout, data: readonly any[]): (Offer & { id: string })[] {
  return data.flatMap((entity) =>
    itemsOf(entity).flatMap((item: any) => {
      const at = { lender: entity.name, item: item.name };
      if (layout.kind === 'card') return [{ ...cardOffer(entity.name, item.name, item), id: item.id }];
      return item.rates.map((rate: any) => ({
        ...at,
        measure: layout.rateRows ? rowMeasure(layout, (key) => rate[key]) : rate.term,
        value: String(rate.rate),
        id: rate.id,
      }));
    }),
  );
}

/**
 * What a text column never holds, by the page's own words (the issue's and the earlier rounds'
 * rules): a product or notes cell reading "Secured …" holds a plan, a plan cell reading an amount
 * or a range word holds a condition. A text moved under another column that reads so means the
 * columns traded places; one that does not is read as its header says.
 */
const NEVER: Partial<Record<Role, RegExp>> = {
  product: /^(?:un)?secured\b/i,
  condition: /^(?:un)?secured\b/i,
  plan: /^(?:from|to)\b|\$|\d/i,
};

type Value = number | string | null;

/** Latin letters, and letter for letter their look-alikes in other scripts (Unicode's confusables, UTS #39). */
const LOOK_ALIKES: Record<string, [latin: string, alike: string]> = {
  Cyrillic: ['ABCEHKMOPSTaceiop', 'АВСЕНКМОРЅТасеіор'],
  Greek: ['ABCEHKMNOPTo', 'ΑΒϹΕΗΚΜΝΟΡΤο'],
  Lisu: ['ABCEHKMNOPST', 'ꓮꓐꓚꓰꓧꓗꓟꓠꓳꓑꓢꓔ'],
  Cherokee: ['ABCEHKMPST', 'ᎪᏴᏟᎬᎻᏦᎷᏢᏚᎢ'],
};
/** A Latin letter's look-alikes. */
export const lookAlikesOf = (letter: string) =>
  Object.values(LOOK_ALIKES).flatMap(([latin, alike]) => {
    const i = latin.indexOf(letter);
    return i < 0 ? [] : [[...alike][i]!];
  });
/** Each look-alike letter with its script. */
const SCRIPT_OF = new Map(
  Object.entries(LOOK_ALIKES).flatMap(([script, [, alike]]) => [...alike].map((c) => [c, script] as const)),
);
/** The site's own name: no lender's. */
export const SITE_NAMES = ['interest.co.nz', 'Interest.co.nz'];

/** Why no reader may take `name` for a lender's: a look-alike letter, the site's own name, one of its paths. */
function nameProblem(name: string, page: PageModel): string | undefined {
  const alike = [...name].find((c) => SCRIPT_OF.has(c));
  if (alike)
    return `"${name}" has a ${SCRIPT_OF.get(alike)} letter that looks Latin (U+${alike.codePointAt(0)!.toString(16).toUpperCase()})`;
  if (SITE_NAMES.includes(name)) return `"${name}" is the site's own name, no lender's`;
  if (page.pathNames.includes(name)) return `"${name}" would take one of the site's own paths`;
  return undefined;
}

export function truthOf(page: PageModel): Truth {
  const why: string[] = [...page.refuse];
  const offers: Offer[] = [];
  const lines: { lender: string; product: string | null; months: number; value: number; where: string }[] = [];
  const products = new Map<string, Set<string>>();
  const columns = new Map(page.layout.columns.map((c) => [c.key, c]));

  /** What a cell says under a column: its value, or null (nothing, or left out as unreadable). */
  const valueUnder = (cell: Cell, column: Column, where: string): Value => {
    const says = cell.says;
    switch (says.is) {
      case 'empty':
      case 'unstated':
        return null;
      case 'number':
        if (column.unit === says.unit) return says.value;
        why.push(`${where}: the ${column.key} column reads a value of another kind (${cell.shown})`);
        return null;
      case 'text':
        if (!column.role) return null; // words in a value column: an unreadable cell, left out
        if (says.role === column.role || !NEVER[column.role]?.test(says.text)) return says.text;
        why.push(`${where}: columns traded places: the ${column.key} column reads "${says.text}", a ${says.role}`);
        return null;
      default:
        why.push(`${where}: the ${column.key} column holds a ${says.is} cell`);
        return null;
    }
  };

  page.sections.forEach((table, t) => {
    const at = (r: number) => `table ${t + 1} ("${table.heading}"), row ${r + 1}`;
    const keysOf = (cells: readonly Cell[], where: string) => {
      const keys = cells.flatMap((c) => Array<string>(c.span).fill(c.says.is === 'header' ? c.says.key : '?'));
      const twice = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
      if (twice.length > 0) why.push(`${where}: the header names ${twice.join(', ')} more than once`);
      return keys;
    };
    let keys = keysOf(table.header, `table ${t + 1} ("${table.heading}")`);
    let lender: string | undefined;
    let product: string | undefined;
    const started = new Set<string>();
    for (const [r, row] of table.rows.entries()) {
      const where = at(r);
      const refuse = (reason: string) => void why.push(`${where}: ${reason}`);
      if (row.kind === 'header') keys = keysOf(row.cells, where);
      if (row.kind !== 'body') continue;
      for (const cell of row.cells) if (cell.refuse) refuse(cell.refuse);
      const first = row.cells[0]?.says;
      const problem = first?.is === 'name' ? nameProblem(first.name, page) : undefined;
      if (problem) refuse(problem);
      if (first?.is === 'name' && first.name !== lender) {
        if (started.has(first.name)) refuse(`"${first.name}" starts a second run of rows in one table`);
        started.add(first.name);
        lender = first.name;
        product = undefined;
      } else if (first?.is !== 'name' && first?.is !== 'empty') {
        refuse('its first cell names no lender');
        continue;
      }
      if (!lender) {
        refuse('no lender is named above it');
        continue;
      }
      const slots = row.cells.flatMap((c) => Array<Cell>(c.span).fill(c));
      const line = row.cells.find((c) => c.says.is === 'follow-on');
      if (line?.says.is === 'follow-on') {
        const productCell = slots[keys.indexOf('product')];
        const named = productCell?.says.is === 'text' ? productCell.says.text : null;
        const others = row.cells.filter(
          (c) => c !== line && c !== productCell && c !== row.cells[0] && c.says.is !== 'empty',
        );
        if (others.length > 0) refuse('an 18-month line in a row that holds other values');
        else lines.push({ lender, product: named, months: line.says.months, value: line.says.value, where });
        continue;
      }
      if (slots.length !== keys.length) {
        refuse(`${slots.length} columns where its header has ${keys.length}`);
        continue;
      }
      const values = new Map<string, Value>();
      for (const [i, cell] of slots.entries()) {
        const column = columns.get(keys[i]!);
        if (!column || column.lender || slots[i - 1] === cell) continue;
        if (cell.span > 1 && cell.says.is !== 'empty') refuse(`a value spans ${cell.span} columns`);
        values.set(column.key, valueUnder(cell, column, where));
      }
      const numbers = [...values].filter(([key, v]) => columns.get(key)!.unit && v !== null);
      const named = values.get(page.layout.kind === 'card' ? 'plan' : 'product');

      if (page.layout.rateRows) {
        if (typeof named === 'string') product = named;
        const rate = values.get('rate');
        if (typeof rate !== 'number') continue;
        if (!product) refuse('a rate under no product');
        else
          offers.push({
            lender,
            item: product,
            measure: rowMeasure(page.layout, (key) => values.get(key)),
            value: String(rate),
          });
      } else if (typeof named !== 'string') {
        if (numbers.length > 0) refuse(`values under no ${page.layout.kind === 'card' ? 'card' : 'product'}`);
      } else if (page.layout.kind === 'mortgage') {
        let held = products.get(lender);
        if (!held) products.set(lender, (held = new Set()));
        held.add(named);
        for (const [measure, value] of numbers) offers.push({ lender, item: named, measure, value: String(value) });
      } else {
        offers.push(cardOffer(lender, named, Object.fromEntries(values)));
      }
    }
  });

  for (const line of lines) {
    if (!line.product) why.push(`${line.where}: an 18-month line naming no product`);
    else if (!products.get(line.lender)?.has(line.product))
      why.push(`${line.where}: an 18-month line naming "${line.product}", no product of ${line.lender}`);
    else
      offers.push({
        lender: line.lender,
        item: line.product,
        measure: termLabel(line.months),
        value: String(line.value),
      });
  }

  const counts = new Map<string, number>();
  for (const offer of offers) counts.set(offerKey(offer), (counts.get(offerKey(offer)) ?? 0) + 1);
  for (const [key, n] of counts) if (n > 1) why.push(`"${key}" is stated ${n} times`);

  const { encoding, headerCharset, cut } = page.delivery;
  // The page's own statement of its charset: the header's, else its meta's (as a browser reads it).
  const declared = headerCharset ?? page.meta?.charset ?? null;
  if (/[^\p{ASCII}]/u.test(renderPage(page))) {
    if (!declared) why.push('no charset is declared for a page that is not ASCII');
    else if (new TextDecoder(declared).encoding !== encoding)
      why.push(`the bytes are ${encoding}, the declared charset is ${declared}`);
  }
  if (cut)
    why.push(`the body is cut short (${cut.afterRow !== undefined ? 'after a row' : 'at a byte'}, ${cut.framing})`);

  return {
    verdict: why.length > 0 ? 'refuse' : page.edited ? 'either' : 'accept',
    why: [...new Set(why)],
    offers,
    fetchMayFail: cut?.framing === 'promised',
  };
}
