/**
 * Whole answers reused for a second, as a CDN would serve them: the first GET of a URL in a
 * second is answered by the endpoint, prepared (way-out.ts) and kept; the other GETs and HEADs of
 * that URL in the same second are answered from it — its bytes, and each coding of them, made
 * once. What is kept is the answer exactly as produced, its `timestamp` the time it was produced;
 * what each caller adds is its own `x-request-id` (and, for MCP, its own JSON-RPC id, around a
 * kept tool result: src/mcp/server.ts).
 *
 * Only what a shared cache may keep is kept here (`cache: 'data'`, whole bodies, no failures), so
 * reusing it for a second changes nothing a caller could tell from a CDN; and health's answer,
 * whose `timestamp` then says when it was worked out (src/service.ts).
 */
import type { Prepared } from './way-out.ts';

export interface Kept {
  prepared: Prepared & { body: Uint8Array | null };
  /** Does the answer carry `x-request-id` (the rule of src/http/request-id.ts, decided once per URL)? */
  requestId: boolean;
  /** Kept until this time of the clock (ms). */
  until: number;
  /** What other answers make from this one in the same second, by their own key (MCP tool results). */
  derived: Map<string, unknown>;
}

/** How long an answer is reused: one second, so a `timestamp` is never older than that. */
export const KEPT_FOR_MS = 1000;
/** URLs kept at once: unusual URLs cannot grow memory past this. */
export const KEPT_URLS = 1024;

export class KeptAnswers {
  readonly #answers = new Map<string, Kept>();
  constructor(readonly clock: () => number = () => performance.now()) {}

  /** The kept answer to GET of this path and query, if one was made within the last second. */
  get(target: string): Kept | undefined {
    const kept = this.#answers.get(target);
    if (kept && this.clock() < kept.until) return kept;
    return undefined;
  }

  /** Keep an answer just made, for a second from now; the oldest URL makes way past KEPT_URLS. */
  keep(target: string, prepared: Kept['prepared'], requestId: boolean): Kept {
    const entry: Kept = { prepared, requestId, until: this.clock() + KEPT_FOR_MS, derived: new Map() };
    this.#answers.delete(target);
    if (this.#answers.size >= KEPT_URLS) this.#answers.delete(this.#answers.keys().next().value!);
    this.#answers.set(target, entry);
    return entry;
  }
}
