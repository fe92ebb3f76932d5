/**
 * Which offer a row is, from what it says: an offer's id follows from its lender, its product or
 * plan, and its term, plan or condition (ids.ts), never from where its row sits. What the page
 * gives no way to tell apart is refused, with the rows named:
 *
 * - a product or plan another table lists under the same lender (a "featured" table on top);
 * - two products or plans of one lender alike in name and in the measures they carry;
 * - two rates of one product alike in what tells its rates apart (a loan's plan and condition).
 *
 * Items of one name that differ in what they carry are told apart by it: each keeps the id the
 * newest snapshot gives the item of that name carrying the same measures (Westpac's "Airpoints",
 * a full card, and "Airpoints" carrying a balance transfer alone), whatever order their rows come
 * in. An institution listed in several sections is one institution.
 */
import { type Dataset, type Entity, type Item, itemsOf, type Snapshot, withItems } from '../datasets.ts';
import { quote } from '../lib/clean-text.ts';
import { listInWords } from '../lib/words.ts';
import { PageRefusal } from './tables.ts';

/** What an item carries: its rates' own id parts (a term, a plan and condition), or its plan's fields that hold a value. */
function carries(item: Item): string {
  if ('rates' in item) {
    const prefix = `rate:${item.id.slice('product:'.length)}:`;
    return item.rates
      .map((r) => (r.id.startsWith(prefix) ? r.id.slice(prefix.length) : r.id))
      .sort()
      .join(' ');
  }
  return Object.entries(item)
    .filter(([key, value]) => key !== 'id' && key !== 'name' && value !== null)
    .map(([key]) => key)
    .sort()
    .join(' ');
}

/** How many measures two items' `carries` differ in. */
function distance(a: string, b: string): number {
  const [x, y] = [new Set(a.split(' ')), new Set(b.split(' '))];
  return [...x].filter((k) => !y.has(k)).length + [...y].filter((k) => !x.has(k)).length;
}

const describeItem = (entity: Entity, item: Item) => `${quote(entity.name)} · ${quote(item.name)}`;

/** What tells a product's rates apart, in words: their fields beside the id and the value ("plan and condition"). */
const ratePartsInWords = (rate: object) =>
  listInWords(
    Object.keys(rate)
      .filter((key) => key !== 'id' && key !== 'rate')
      .map((key) =>
        key
          .replace(/NZD$/, '')
          .replace(/([A-Z])/g, ' $1')
          .toLowerCase(),
      ),
  ) || 'nothing';

/** Refuses what the page lists so that two offers could not be told apart (the module's comment). */
function refuseAlike(listed: readonly Entity[]): void {
  const tableOf = new Map<string, number>();
  listed.forEach((entity, run) => {
    const seen = new Map<string, string>();
    for (const item of itemsOf(entity)) {
      const key = `${entity.id} ${item.name}`;
      const earlier = tableOf.get(key);
      if (earlier !== undefined && earlier !== run) {
        throw new PageRefusal(
          'a product listed again in another table',
          `${describeItem(entity, item)} is listed in two tables of the page (a featured table?)`,
        );
      }
      tableOf.set(key, run);
      const what = carries(item);
      if (seen.get(item.name) === what) {
        throw new PageRefusal(
          'two rows alike in name and in what they carry',
          `${describeItem(entity, item)} twice, each carrying ${what || 'nothing'}`,
        );
      }
      seen.set(item.name, what);
      if ('rates' in item) {
        const ids = new Set<string>();
        const twice = item.rates.find((r) => {
          if (ids.has(r.id)) return true;
          ids.add(r.id);
          return false;
        });
        if (twice)
          throw new PageRefusal(
            `two rates alike in ${ratePartsInWords(twice)}`,
            `${describeItem(entity, item)} lists ${quote(twice.id.split(':').slice(3).join(' · ') || 'one rate')} twice`,
          );
      }
    }
  });
}

/**
 * The order namesakes new to the history take their ids in, from what they carry: a card (a plan
 * with a purchase rate) before a row that is no card (a balance transfer alone), then the one
 * carrying fewer measures (the plainer offer), then by the measures' names. The history's own
 * pairs follow it: Westpac's "Airpoints" card before its balance-transfer row, Amex's "Airpoints
 * Card" without a fee or transfer before the one with both.
 */
function byWhatTheyCarry(a: Item, b: Item): number {
  const card = (item: Item) => ('purchaseRate' in item && item.purchaseRate === null ? 1 : 0);
  const [x, y] = [carries(a), carries(b)];
  return card(a) - card(b) || x.split(' ').length - y.split(' ').length || x.localeCompare(y);
}

/** `item` under the id `id`, its rates' ids following (`rate:<lender>:<product>-2:…`). */
function withId(item: Item, id: string): Item {
  if (id === item.id) return item;
  if (!('rates' in item)) return { ...item, id };
  const [from, to] = [item.id, id].map((x) => `rate:${x.slice('product:'.length)}:`) as [string, string];
  return {
    ...item,
    id,
    rates: item.rates.map((r) => ({ ...r, id: r.id.startsWith(from) ? to + r.id.slice(from.length) : r.id })),
  } as Item;
}

/**
 * Ids for the items of one entity that share a name: the newest snapshot's ids of that name, each
 * to the item carrying what it carried (exactly, else the nearest); the rest take the next free
 * `-2`, `-3` … in the order of what they carry.
 */
function idsOfNamesakes(items: readonly Item[], before: readonly Item[], taken: Set<string>): Map<Item, string> {
  const ids = new Map<Item, string>();
  const pairs = items
    .flatMap((item) => before.map((was) => ({ item, was, d: distance(carries(item), carries(was)) })))
    .sort((a, b) => a.d - b.d || carries(a.item).localeCompare(carries(b.item)) || a.was.id.localeCompare(b.was.id));
  const used = new Set<string>();
  for (const { item, was } of pairs) {
    if (ids.has(item) || used.has(was.id)) continue;
    ids.set(item, was.id);
    used.add(was.id);
  }
  const base = items[0]!.id;
  const rest = items.filter((item) => !ids.has(item)).sort(byWhatTheyCarry);
  for (const item of rest) {
    let id = base;
    for (let n = 2; taken.has(id) || used.has(id); n++) id = `${base}-${n}`;
    ids.set(item, id);
    used.add(id);
  }
  for (const id of used) taken.add(id);
  return ids;
}

/**
 * The page's entities as one object per institution, each offer under the id its content gives
 * it (the module's comment), or a PageRefusal naming the rows that cannot be told apart.
 */
export function identify(dataset: Dataset, listed: readonly Entity[], previous?: Snapshot): Entity[] {
  refuseAlike(listed);
  const merged = new Map<string, { entity: Entity; items: Item[] }>();
  for (const entity of listed) {
    const known = merged.get(entity.id);
    if (known) known.items.push(...itemsOf(entity));
    else merged.set(entity.id, { entity, items: [...itemsOf(entity)] });
  }
  const previousItems = new Map((previous?.data ?? []).map((e) => [e.id, itemsOf(e)]));
  return [...merged.values()].map(({ entity, items }) => {
    const before = previousItems.get(entity.id) ?? [];
    const byName = Map.groupBy(items, (item) => item.name);
    // Ids already someone's: the items alone of their name (then and now) keep theirs; each group adds what it takes.
    const namesakesBefore = new Set(
      before.filter((item, i) => before.findIndex((b) => b.name === item.name) !== i).map((item) => item.name),
    );
    const taken = new Set(
      [...byName.values()].flatMap((group) =>
        group.length === 1 && !namesakesBefore.has(group[0]!.name) ? [group[0]!.id] : [],
      ),
    );
    const ids = new Map<Item, string>();
    for (const [name, namesakes] of byName) {
      // One of a pair renamed: the other keeps the id of its own kind (`-2`, say), not the name's first.
      const was = before.filter((item) => item.name === name);
      if (namesakes.length < 2 && was.length < 2) continue;
      const found = idsOfNamesakes(namesakes, was, taken);
      for (const [item, id] of found) ids.set(item, id);
    }
    // A name whose own id a namesake keeps ("Airpoints Card 2" beside the history's
    // `plan:amex:airpoints-card-2`): the namesake's id stands, the newcomer takes the next free one.
    const kept = new Set(ids.values());
    for (const item of items) {
      if (ids.has(item) || !kept.has(item.id)) continue;
      let id = `${item.id}-2`;
      for (let n = 3; kept.has(id) || taken.has(id); n++) id = `${item.id}-${n}`;
      ids.set(item, id);
      kept.add(id);
    }
    return withItems(
      dataset,
      entity,
      items.map((item) => withId(item, ids.get(item) ?? item.id)),
    );
  });
}
