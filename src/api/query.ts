/**
 * Query-string validation against an endpoint's strict zod schema. Two kinds of 400: a value of
 * the wrong format for its name, whatever the endpoint (src/schemas/params.ts PARAMETER_FORMATS;
 * answered without `x-request-id`, see /docs/concepts#x-request-id), and a parameter the endpoint
 * does not use or a value it does not take.
 */
import type { z } from 'zod';
import { formatProblem, quote } from '../schemas/params.ts';
import { ApiError } from './responses.ts';

export const INVALID_REQUEST = 'Invalid request parameters';

/**
 * The most unknown parameter names one 400 names, the rest counted: with each name quoted to
 * QUOTED_MAX_CHARS, the answer stays near 1 KB however many names a query holds (/docs/limits).
 */
const UNKNOWN_NAMED = 5;

/** The unknown names as a hint lists them: the first UNKNOWN_NAMED quoted, then how many more. */
function unknownNames(names: readonly string[]): string {
  const named = names.slice(0, UNKNOWN_NAMED).map(quote).join(', ');
  const more = names.length - UNKNOWN_NAMED;
  return more > 0 ? `${named} and ${more.toLocaleString('en')} more unknown parameter${more === 1 ? '' : 's'}` : named;
}

const ALL_OPTIONAL = new WeakMap<z.ZodObject, boolean>();
function allOptional(schema: z.ZodObject): boolean {
  let known = ALL_OPTIONAL.get(schema);
  if (known === undefined) {
    known = Object.values(schema.shape).every((field) => (field as z.ZodType).safeParse(undefined).success);
    ALL_OPTIONAL.set(schema, known);
  }
  return known;
}

export function parseQuery(
  schema: z.ZodObject,
  params: URLSearchParams,
  ignored: readonly string[] = [],
): Record<string, string | undefined> {
  // Most requests have no query at all; then only a required parameter could be missing.
  if (params.size === 0 && allOptional(schema)) return {};
  // Formats first, by the parameters' names alone: the request-id stamp decides the same from the query.
  const wrongFormat = formatProblem(params);
  if (wrongFormat) throw new ApiError('invalid_request', INVALID_REQUEST, wrongFormat, { formatError: true });
  // A Map, not an object: `values.__proto__ = …` would set the prototype instead of a key, and
  // the parameter would vanish before the schema could call it unknown.
  const values = new Map<string, string>();
  for (const [key, value] of params) if (!ignored.includes(key)) values.set(key, value);
  const accepted = Object.keys(schema.shape);
  const acceptedText = accepted.length ? `It accepts: ${accepted.join(', ')}.` : 'It takes no query parameters.';
  // Unknown names are found here, by own keys of the shape, so `__proto__`, `constructor` or
  // `toString` are unknown like any other name; the schema then sees only names it declares.
  const unknown = [...values.keys()].filter((key) => !Object.hasOwn(schema.shape, key));
  if (unknown.length > 0) {
    throw new ApiError(
      'invalid_request',
      INVALID_REQUEST,
      `This endpoint does not use ${unknownNames(unknown)}. ${acceptedText}`,
    );
  }
  const result = schema.safeParse(Object.fromEntries(values));
  if (result.success) return result.data as Record<string, string | undefined>;
  const problems = result.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    // A required parameter left out (the quote check's `rate`) has nothing to quote.
    const value = values.get(key);
    return value === undefined ? `${key} ${issue.message}` : `${key} ${issue.message} (got ${quote(value)})`;
  });
  throw new ApiError('invalid_request', INVALID_REQUEST, `${problems.join('; ')}.`);
}
