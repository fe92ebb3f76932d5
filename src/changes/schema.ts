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
import { CHANGE_DIRECTIONS } from '../schemas/params.ts';
import { VALUE_BOUNDS } from '../schemas/rates.ts';

export const CHANGE_KINDS = ['changed', 'added', 'removed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

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

/**
 * What a value is, read from its schema: a `rate` (a number with the rate bounds, which every rate
 * of src/schemas/rates.ts is made with: percent a year, its moves in basis points), another
 * `number` (an annual fee in dollars, interest-free days) or `text` (a balance-transfer period).
 */
export type ValueKind = 'rate' | 'number' | 'text';

function kindOfSchema(schema: z.ZodType): ValueKind {
  const inner = schema instanceof z.ZodNullable ? (schema.unwrap() as z.ZodType) : schema;
  if (!(inner instanceof z.ZodNumber)) return 'text';
  const { min, max } = VALUE_BOUNDS.rate;
  return inner.minValue === min && inner.maxValue === max ? 'rate' : 'number';
}

/** The kind of one value field: of a rate (`rate`), or of an item without rates (a credit card plan's `annualFeeNZD`). */
function kindOfField(dataset: Dataset, field: string): ValueKind {
  const { item, rate } = recordSchemas(dataset);
  const schema = (rate ?? item).shape[field];
  return schema ? kindOfSchema(schema as z.ZodType) : 'text';
}

/** The kind of a change log value by its id: a rate's `rate`, or (credit cards, `<plan id>#<field>`) that field. */
export const valueKindOf = (dataset: Dataset, valueId: string): ValueKind =>
  kindOfField(dataset, recordSchemas(dataset).rate ? 'rate' : valueId.slice(valueId.indexOf('#') + 1));

/** The value fields of an item without rates (credit cards: purchaseRate … annualFeeNZD). */
function itemFields(dataset: Dataset): string[] {
  return Object.keys(recordSchemas(dataset).item.shape).filter(
    (key) => key !== 'id' && key !== 'name' && key !== 'rates',
  );
}

const ChangeValue = z
  .union([z.number(), z.string(), z.null()])
  .describe('A rate in percent per year, or (credit cards) the field’s value; null when the source gives none.');

/** Which values have bps, as the schema of `bps` says it: every one where items list rates, else the fields that are rates. */
function bpsOf(dataset: Dataset): string {
  if (recordSchemas(dataset).rate) return 'every value is a rate: null only from or to null';
  const fields = (kind: ValueKind) =>
    itemFields(dataset)
      .filter((field) => kindOfField(dataset, field) === kind)
      .join(', ');
  return (
    `only a rate (${fields('rate')}) has one: null for ${fields('number')} (\`direction\` still says up or down), ` +
    `for ${fields('text')} (text), and from or to null`
  );
}

/** `direction` and `bps` of a row: an added value is `new`, a removed one `gone`, and neither has bps. */
function movementFields(dataset: Dataset, kind: ChangeKind) {
  if (kind === 'added')
    return {
      direction: z.literal('new').describe('`new`: listed on this date and not before.'),
      bps: z.null().describe('None: a new value has nothing to move from.'),
    };
  if (kind === 'removed')
    return {
      direction: z.literal('gone').describe('`gone`: listed before and no longer listed.'),
      bps: z.null().describe('None: a value no longer listed has nothing to move to.'),
    };
  return {
    direction: z
      .enum(CHANGE_DIRECTIONS)
      .nullable()
      .describe(
        '`up` or `down` for a number that moved; `new` from null to a value, `gone` from a value to null; null for text that changed (neither up nor down).',
      ),
    bps: z
      .number()
      .int()
      .nullable()
      .describe(
        `The move in whole basis points, signed: to − from in percentage points × 100, rounded (−25 is down 0.25 percentage points); ${bpsOf(dataset)}.`,
      ),
  };
}

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
    ...movementFields(dataset, kind),
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

type ChangesSchema = ReturnType<typeof changesResponseSchema>;
const OPEN_SCHEMAS = new Map<string, ChangesSchema>();
const RESPONSE_SCHEMAS = new Map<string, ChangesSchema>();

/**
 * The response schema, made once per process and published open, as a change may gain fields
 * (/docs/stability#where-new-fields-may-appear): unnamed, as the MCP tool's outputSchema gives it whole.
 */
export function changesOutputOf(dataset: Dataset): ChangesSchema {
  let schema = OPEN_SCHEMAS.get(dataset.slug);
  if (!schema) OPEN_SCHEMAS.set(dataset.slug, (schema = openToNewFields(changesResponseSchema(dataset))));
  return schema;
}

/** The same schema named `<Type>Changes`, the OpenAPI component (zod's registry takes an id once, so it is made once). */
export function changesSchemaOf(dataset: Dataset): ChangesSchema {
  let schema = RESPONSE_SCHEMAS.get(dataset.slug);
  if (!schema)
    RESPONSE_SCHEMAS.set(dataset.slug, (schema = changesOutputOf(dataset).meta({ id: `${dataset.type}Changes` })));
  return schema;
}
