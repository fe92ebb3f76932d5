/**
 * The best open rates of a snapshot as data (the lowest of a rate paid, the highest of a rate
 * earned, as src/explorer/best.ts reads the dataset's declaration; the endpoint keeps its name
 * `/lowest`), for `GET /api/v1/<dataset>/lowest` and its MCP tool: the explorer's best cards (bestByMeasure, the same measures in the same order, the same
 * restriction rules), so that the API and the pages at /rates can never disagree. The shape is
 * src/schemas/lowest.ts's.
 */
import type { z } from 'zod';
import type { Dataset, Entity } from '../datasets.ts';
import { changeKeys, recordSchemas } from '../changes/schema.ts';
import { type LowestNames, lowestSchema } from '../schemas/lowest.ts';
import { EXPLORER, type ExplorerDefinition, offerRate } from './definitions.ts';
import { bestRatesOf, bestWordOf } from './best.ts';
import { bestByMeasure, type Who } from './history.ts';

const definitionOf = (dataset: Dataset): ExplorerDefinition => EXPLORER[dataset.slug] as ExplorerDefinition;

/** The answer's `type`: `<the dataset's type>Lowest`. */
export const lowestTypeOf = (dataset: Dataset) => `${dataset.type}Lowest`;

/** How the dataset names an offer's parts, and its measures, for the answer and its descriptions (the quote check's too: src/explorer/quote.ts). */
export function namesOf(dataset: Dataset): LowestNames {
  const keys = changeKeys(dataset);
  const definition = definitionOf(dataset);
  const fields = Object.keys(recordSchemas(dataset).item.shape).filter((key) => key.endsWith('Rate'));
  return {
    type: lowestTypeOf(dataset),
    entityId: keys.entityId,
    entityName: keys.entityName,
    entityKind: dataset.entity.kind,
    entityPrefix: dataset.entity.prefix,
    itemId: keys.itemId,
    itemName: keys.itemName,
    itemPrefix: keys.itemPrefix,
    value: keys.value === 'rateId' ? { key: 'rateId' } : { key: 'field', fields: fields as [string, ...string[]] },
    measures: definition.measures.map((m) => `\`${m.key}\` (${m.label.toLowerCase()})`).join(', '),
    tieRule: definition.tieRule,
    best: bestWordOf(definition),
    better: bestRatesOf(definition)
      .map((rate) => rate.side)
      .join(' or '),
  };
}

const SCHEMAS = new Map<string, ReturnType<typeof lowestSchema>>();

/** The answer's schema (its `type` is `<Type>Lowest`), made once per process: validation, OpenAPI and the MCP outputSchema read it. */
export function lowestSchemaOf(dataset: Dataset): z.ZodObject {
  let schema = SCHEMAS.get(dataset.slug);
  if (!schema) SCHEMAS.set(dataset.slug, (schema = lowestSchema(namesOf(dataset))));
  return schema;
}

/** One offer as the answer names it (the break-even rates and the quote check name theirs so too: src/explorer/break-even.ts, src/explorer/quote.ts). */
export function offerOf(names: LowestNames, { entity, item, offer }: Who) {
  const [, field] = offer.id.split('#');
  return {
    [names.entityId]: entity.id,
    [names.entityName]: entity.name,
    [names.itemId]: item.id,
    [names.itemName]: item.name,
    ...(names.value.key === 'rateId' ? { rateId: offer.id } : { field }),
    rate: offer.value,
    rateText: offerRate(offer),
    ...(offer.range ? { range: offer.range } : {}),
    ...(offer.label ? { label: offer.label } : {}),
    ...(offer.note ? { note: offer.note } : {}),
    ...(offer.details ? { details: offer.details } : {}),
  };
}

/**
 * Per measure with an offer open to anyone, in the explorer's order: its best, who makes it (offers
 * tied on it in the order of the dataset's `tieRule`), and the restricted offers better than it.
 */
export function lowestOffers(dataset: Dataset, data: readonly Entity[]) {
  const definition = definitionOf(dataset);
  const names = namesOf(dataset);
  const best = bestByMeasure(definition, data);
  return definition.measures.flatMap((measure) => {
    const found = best.get(measure.key);
    if (!found) return [];
    return [
      {
        measure: measure.key,
        label: measure.label,
        description: definition.valueNoun(measure),
        rate: found.value,
        fromRange: found.who.some((w) => w.offer.range !== undefined && w.offer.range.from !== null),
        offers: found.who.map((w) => offerOf(names, w)),
        restricted: found.restricted.map((w) => ({ ...offerOf(names, w), for: w.offer.restricted! })),
      },
    ];
  });
}
