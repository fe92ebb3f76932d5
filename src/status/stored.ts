/**
 * How the status store's objects (a dataset's record, the run log) are read back: never more than
 * a stated number of bytes, parsed by their zod schema, and, when either fails, an
 * `UnreadableStored` error whose message is clean and short, since health, /status and the
 * collector's output quote it. An older build stored whole page titles as reasons (a log of them
 * reached hundreds of MB), so nothing here trusts what it reads to be small or clean.
 */
import { z } from 'zod';
import { cleanText, QUOTE_MAX_CHARS } from '../lib/clean-text.ts';
import { readUpTo } from '../lib/read-up-to.ts';

/**
 * A reason as the store keeps it: clean and at most REASON_MAX_CHARS, made so on write and again
 * on read (a record or log an older build wrote is cut when read). cleanText is idempotent, so a
 * value read and written back is unchanged.
 */
export const StoredReason = z.string().transform((text) => cleanText(text));

/**
 * A stored object that is there but cannot be used: larger than its bound, not JSON, or not its
 * schema's shape. An I/O error (a store that cannot be reached) is never this: only this may be
 * overwritten as if absent.
 */
export class UnreadableStored extends Error {
  override name = 'UnreadableStored';
}

/** A stored object's text, read up to `maxBytes`; past that it is unreadable and the rest is never read. */
export async function readStored(body: AsyncIterable<Uint8Array>, maxBytes: number, name: string): Promise<string> {
  const bytes = await readUpTo(body, maxBytes);
  if (!bytes) throw new UnreadableStored(`${name} is larger than ${maxBytes.toLocaleString('en')} bytes`);
  return bytes.toString('utf8');
}

/** What zod found wrong, in a few words: the first issues' paths and messages. */
const describeIssues = (error: z.ZodError) =>
  error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');

/** `text` as JSON parsed by `schema`, or unreadable, saying why (the file's own text quoted clean and short). */
export function parseStored<T>(text: string, schema: z.ZodType<T>, name: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UnreadableStored(`${name} is not JSON (${cleanText((error as Error).message, QUOTE_MAX_CHARS)})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new UnreadableStored(
      `${name} is not as expected (${cleanText(describeIssues(parsed.error), QUOTE_MAX_CHARS)})`,
    );
  return parsed.data;
}
