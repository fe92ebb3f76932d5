/**
 * Which answers may gain fields within v1 (/docs/stability#where-new-fields-may-appear), as the
 * published schemas say it. The rate answers (each dataset's list, one institution or issuer and
 * time series) and the error body stay closed: no field but those listed, ever.
 */
import { z } from 'zod';

/** JSON Schema's "any further field is fine", as `.meta()` writes it into the published schema. */
const ANY_FURTHER_FIELD = { additionalProperties: {} };

/** The key of each kind of zod schema that holds the schemas inside it. */
const INNER: Record<string, readonly string[]> = {
  object: ['shape'],
  array: ['element'],
  optional: ['innerType'],
  nullable: ['innerType'],
  default: ['innerType'],
  prefault: ['innerType'],
  nonoptional: ['innerType'],
  readonly: ['innerType'],
  catch: ['innerType'],
  record: ['valueType'],
  union: ['options'],
  intersection: ['left', 'right'],
  pipe: ['in', 'out'],
};

/**
 * A copy of an answer's schema in which every object is published open (`additionalProperties: {}`
 * in the OpenAPI document and the MCP output schemas). It still parses as strictly as the original:
 * the service sends exactly the fields listed, and the tests hold it to that.
 */
export function openToNewFields<S extends z.ZodType>(schema: S): S {
  const { def } = schema._zod;
  const keys = INNER[def.type];
  if (!keys) return schema;
  const inner = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(inner)
      : value instanceof z.ZodType
        ? openToNewFields(value)
        : Object.fromEntries(Object.entries(value as object).map(([key, s]) => [key, openToNewFields(s)]));
  const changed = Object.fromEntries(keys.map((key) => [key, inner((def as unknown as Record<string, unknown>)[key])]));
  // `parent`: the copy keeps the original's description and other metadata.
  const copy = schema.clone({ ...def, ...changed } as typeof def, { parent: true }) as S;
  return def.type === 'object' ? (copy.meta(ANY_FURTHER_FIELD) as S) : copy;
}
