/**
 * The shapes of the change log and the CSV downloads, derived from each dataset's own zod
 * schemas and its entry in the dataset table, so that they name things as the rest of the API
 * does: `institutionId` / `issuerId`, `productId` / `planId`, and `rateId` for datasets whose
 * products list rates, `field` for credit cards (whose values are fields of a plan).
 */
import { z } from 'zod';
import type { Dataset } from '../datasets.ts';
import { idWithPrefix, IsoDateTime, SnapshotDate } from '../schemas/common.ts';
import { openToNewFields } from '../schemas/open.ts';
import type { ChangeKind } from './model.ts';

/** The item (product or plan) schema, and the schema of one rate where items list rates. */
export function recordSchemas(dataset: Dataset): { item: z.ZodObject; rate: z.ZodObject | undefined } {
  const entity: z.ZodObject = dataset.entitySchema;
  const item = (entity.shape[dataset.itemsKey] as z.ZodArray<z.ZodObject>).element;
  const rates = item.shape.rates as z.ZodArray<z.ZodObject> | undefined;
  return { item, rate: rates?.element };
}

export interface ChangeKeys {
  entityId: string;
  entityName: string;
  itemId: string;
  itemName: string;
  /** `rateId`, or `field` when the values are an item's own fields (credit cards). */
  value: 'rateId' | 'field';
  /** The item ids' prefix (`product`, `plan`). */
  itemPrefix: string;
}

export function changeKeys(dataset: Dataset): ChangeKeys {
  const noun = dataset.itemsKey.replace(/s$/, '');
  return {
    entityId: dataset.entity.param,
    entityName: `${dataset.entity.kind}Name`,
    itemId: `${noun}Id`,
    itemName: `${noun}Name`,
    value: recordSchemas(dataset).rate ? 'rateId' : 'field',
    itemPrefix: noun,
  };
}

/** The value fields of an item without rates (credit cards: purchaseRate … annualFeeNZD). */
function itemFields(dataset: Dataset): string[] {
  return Object.keys(recordSchemas(dataset).item.shape).filter(
    (key) => key !== 'id' && key !== 'name' && key !== 'rates',
  );
}

const ChangeValue = z
  .union([z.number(), z.string(), z.null()])
  .describe('A rate in percent per year, or (credit cards) the field’s value; null when the source gives none.');

function rowSchema(dataset: Dataset, kind: ChangeKind) {
  const keys = changeKeys(dataset);
  const { kind: entityKind, prefix } = dataset.entity;
  const valueKey =
    keys.value === 'rateId'
      ? idWithPrefix('rate').describe('The rate’s id, as in the rates endpoints.')
      : z.enum(itemFields(dataset) as [string, ...string[]]).describe(`The ${keys.itemPrefix} field that changed.`);
  return z.strictObject({
    [keys.entityId]: idWithPrefix(prefix).describe(`The ${entityKind}’s id.`),
    [keys.entityName]: z.string().describe(`The ${entityKind}’s name on that date.`),
    [keys.itemId]: idWithPrefix(keys.itemPrefix).describe(`The ${keys.itemPrefix}’s id.`),
    [keys.itemName]: z.string().describe(`The ${keys.itemPrefix}’s name.`),
    [keys.value]: valueKey,
    what: z
      .string()
      .describe('The value in words: the term (“1 year”), plan and condition, or field (“purchase rate”).'),
    ...(kind === 'added' ? {} : { from: ChangeValue.describe('The value in the snapshot before.') }),
    ...(kind === 'removed' ? {} : { to: ChangeValue.describe('The value on this date.') }),
  });
}

/** The change-log response of one dataset: `<Type>Changes` (the dataset's type). */
function changesResponseSchema(dataset: Dataset) {
  const day = z.strictObject({
    date: SnapshotDate.describe('The snapshot date (UTC) on which these values changed.'),
    previousDate: SnapshotDate.describe('The snapshot it is compared with: the one before it.'),
    lastUpdated: IsoDateTime.describe('When this date’s snapshot was collected.'),
    changed: z.array(rowSchema(dataset, 'changed')).describe('Values listed on both dates, with a different value.'),
    added: z
      .array(rowSchema(dataset, 'added'))
      .describe(
        `Values listed on this date and not before (a new ${dataset.entity.kind} or product brings all of its values).`,
      ),
    removed: z.array(rowSchema(dataset, 'removed')).describe('Values listed before and no longer listed on this date.'),
  });
  return z.strictObject({
    type: z.literal(`${dataset.type}Changes`),
    since: SnapshotDate.describe('The first date included (the `since` asked for, or its default).'),
    until: SnapshotDate.describe('The last date included (the `until` asked for, or the newest snapshot’s date).'),
    changes: z.array(day).describe('One entry per snapshot date with a change, oldest first.'),
    lastUpdated: IsoDateTime.describe('When the newest snapshot was collected.'),
    termsOfUse: z.string(),
    timestamp: IsoDateTime,
  });
}

const RESPONSE_SCHEMAS = new Map<string, ReturnType<typeof changesResponseSchema>>();

/**
 * The response schema, made once per process (it carries an OpenAPI component id, which zod's registry takes once);
 * published open, as a change may gain fields (/docs/stability#where-new-fields-may-appear).
 */
export function changesSchemaOf(dataset: Dataset) {
  let schema = RESPONSE_SCHEMAS.get(dataset.slug);
  if (!schema)
    RESPONSE_SCHEMAS.set(
      dataset.slug,
      (schema = openToNewFields(changesResponseSchema(dataset)).meta({ id: `${dataset.type}Changes` })),
    );
  return schema;
}
