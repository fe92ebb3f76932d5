/**
 * The quote check, for `GET /api/v1/<dataset>/quote` and its MCP tool: where one rate stands among
 * the offers open to anyone of one measure in a snapshot, by the explorer's rules (openOffers; the
 * best and who makes it from lowestOffers, so the answer's `lowest` is what /lowest and the pages
 * show), and a named lender's own offers of the measure. "Better" is as the measure's best rate is
 * declared (src/explorer/best.ts): below the rate for a rate paid, above it for a rate earned.
 * The shape is src/schemas/quote.ts's.
 */
import type { z } from 'zod';
import { type Dataset, type Entity, itemsOf } from '../datasets.ts';
import { type QuoteNames, quoteSchema } from '../schemas/quote.ts';
import { bestRateOf, bestRatesOf } from './best.ts';
import { bestFirst, EXPLORER, type ExplorerDefinition, openOffers } from './definitions.ts';
import { median, tiedOrder, type Who } from './history.ts';
import { lowestOffers, namesOf, offerOf } from './lowest.ts';

const definitionOf = (dataset: Dataset): ExplorerDefinition => EXPLORER[dataset.slug] as ExplorerDefinition;

/** The answer's `type`: `<the dataset's type>Quote`. */
export const quoteTypeOf = (dataset: Dataset) => `${dataset.type}Quote`;

/** The count that holds the offers better than a rate: `lower` for a rate paid, `higher` for a rate earned. */
const betterCountOf = (paid: boolean) => (paid ? 'lower' : 'higher');

function quoteNamesOf(dataset: Dataset): QuoteNames {
  const rates = bestRatesOf(definitionOf(dataset));
  return {
    ...namesOf(dataset),
    type: quoteTypeOf(dataset),
    betterCount:
      rates.length === 1
        ? `\`${betterCountOf(rates[0]!.paid)}\``
        : rates.map((r) => `\`${betterCountOf(r.paid)}\` for a measure whose best is the ${r.word}`).join(', '),
  };
}

const SCHEMAS = new Map<string, ReturnType<typeof quoteSchema>>();

/** The answer's schema (its `type` is `<Type>Quote`), made once per process: OpenAPI and the MCP outputSchema read it. */
export function quoteSchemaOf(dataset: Dataset): z.ZodObject {
  let schema = SCHEMAS.get(dataset.slug);
  if (!schema) SCHEMAS.set(dataset.slug, (schema = quoteSchema(quoteNamesOf(dataset))));
  return schema;
}

/** The rates of every offer of the measure open to anyone in a snapshot. */
function openRates(definition: ExplorerDefinition, data: readonly Entity[], measure: string): number[] {
  const rates: number[] = [];
  for (const entity of data)
    for (const item of itemsOf(entity))
      for (const offer of openOffers(definition, entity, item)) if (offer.key === measure) rates.push(offer.value);
  return rates;
}

/** A lender's own offers of the measure, open and restricted, best first (tied: in the order of every list of ties). */
function lenderOffers(definition: ExplorerDefinition, entity: Entity, measure: string): Who[] {
  const order = bestFirst(definition, measure);
  return itemsOf(entity)
    .flatMap((item) =>
      definition
        .offers(item, entity)
        .filter((offer) => offer.key === measure)
        .map((offer) => ({ entity, item, offer })),
    )
    .sort((a, b) => order(a.offer.value, b.offer.value) || tiedOrder(a, b));
}

/**
 * Where `rate` stands among the open offers of `measure` in a snapshot's `data` (every lender's),
 * and, given `lender` (one of `data`), that lender's own offers of the measure.
 */
export function quoteOf(dataset: Dataset, data: readonly Entity[], measure: string, rate: number, lender?: Entity) {
  const definition = definitionOf(dataset);
  const names = namesOf(dataset);
  const m = definition.measures.find((x) => x.key === measure)!;
  const rates = openRates(definition, data, measure);
  const { better } = bestRateOf(definition, measure);
  const beaten = rates.filter((r) => better(r, rate)).length;
  const best = lowestOffers(dataset, data).find((x) => x.measure === measure);
  return {
    measure,
    label: m.label,
    description: definition.valueNoun(m),
    rate,
    count: rates.length,
    lower: rates.filter((r) => r < rate).length,
    equal: rates.filter((r) => r === rate).length,
    higher: rates.filter((r) => r > rate).length,
    percentile: rates.length === 0 ? null : Math.round((1000 * (rates.length - beaten)) / rates.length) / 10,
    lowest: best?.rate ?? null,
    median: median(rates),
    lowestOffers: best?.offers ?? [],
    ...(lender
      ? {
          lenderOffers: lenderOffers(definition, lender, measure).map((who) => ({
            ...offerOf(names, who),
            open: !who.offer.restricted,
            ...(who.offer.restricted ? { for: who.offer.restricted } : {}),
          })),
        }
      : {}),
  };
}
