/**
 * Whole answers reused for a second, as a CDN would serve them: the first GET of a URL in a
 * second is answered by the endpoint and kept; the other GETs and HEADs of that URL in the same
 * second, and MCP's tools reading it, are answered from it — its bytes, and each coding of them,
 * made once. What is kept is the answer exactly as produced, its `timestamp` the time it was
 * produced; what each caller adds is its own `x-request-id` (and, for MCP, its own JSON-RPC id,
 * around a kept tool result: src/mcp/server.ts).
 *
 * It is prepared for HTTP callers (way-out.ts) on the first one's request: MCP's tools read its
 * status and body alone, so an answer only tools read is never prepared (src/service.ts).
 *
 * Only what a shared cache may keep is kept here (`cache: 'data'`, whole bodies, no failures), so
 * reusing it for a second changes nothing a caller could tell from a CDN; and health's answer,
 * whose `timestamp` then says when it was worked out (src/service.ts).
 *
 * An answer leaves memory when its second is over: each `keep` and `get` drops the expired ones
 * first, and a timer (unref'd, so it never holds the process open) drops them when no request
 * comes, so an idle process keeps nothing. KEPT_URLS and KEPT_BYTES bound what is kept at once.
 */
import type { Answer } from './answer.ts';
import type { Prepared } from './way-out.ts';

/** An answer as kept: whole, its body one piece of bytes. */
export interface WholeAnswer extends Answer {
  body: Uint8Array | null;
}

export interface Kept {
  /** The answer as the endpoint gave it: what MCP's tools read. */
  answer: WholeAnswer;
  /** The answer prepared for HTTP callers (way-out.ts), made on the first one's request. */
  prepared?: Prepared & { body: Uint8Array | null };
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
const KEPT_URLS = 1024;
/**
 * Body bytes kept at once; the oldest answers make way past it, and a body larger than it is not
 * kept. Far above a second of ordinary traffic (a list is 30 KB, the full-range time series
 * 5.6 MB: bench/RESULTS.md), far below what hurts the process. Each body's codings (br, gzip,
 * deflate, made on first use) and MCP results (one per protocol version) are made from it, so
 * what they add is in proportion to it.
 */
export const KEPT_BYTES = 64 * 1024 * 1024;

export class KeptAnswers {
  /** In the order they were kept, so in the order they expire (`until` only grows). */
  readonly #answers = new Map<string, Kept>();
  #bytes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  constructor(readonly clock: () => number = () => performance.now()) {}

  /** Answers kept now (expired ones included until they are dropped). */
  get size(): number {
    return this.#answers.size;
  }

  /** Body bytes kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The kept answer to GET of this path and query, if one was made within the last second. */
  get(target: string): Kept | undefined {
    this.#dropExpired(this.clock());
    return this.#answers.get(target);
  }

  /**
   * Keep an answer just made, for a second from now; the oldest URLs make way past KEPT_URLS or
   * KEPT_BYTES. Returns the entry whether or not it is kept (a body over KEPT_BYTES is not).
   */
  keep(target: string, answer: WholeAnswer, requestId: boolean): Kept {
    const now = this.clock();
    const entry: Kept = { answer, requestId, until: now + KEPT_FOR_MS, derived: new Map() };
    this.#dropExpired(now);
    this.#drop(target);
    const size = bytesOf(answer);
    if (size > KEPT_BYTES) return entry;
    while (this.#answers.size >= KEPT_URLS || this.#bytes + size > KEPT_BYTES)
      this.#drop(this.#answers.keys().next().value!);
    this.#answers.set(target, entry);
    this.#bytes += size;
    this.#schedule();
    return entry;
  }

  #drop(target: string): void {
    const kept = this.#answers.get(target);
    if (!kept) return;
    this.#answers.delete(target);
    this.#bytes -= bytesOf(kept.answer);
  }

  /** Drop every answer whose second is over: they are the oldest, so at the front. */
  #dropExpired(now: number): void {
    for (const [target, kept] of this.#answers) {
      if (now < kept.until) return;
      this.#drop(target);
    }
  }

  /** One timer at a time, due when the oldest kept answer expires; it drops what expired and waits for the next. */
  #schedule(): void {
    if (this.#timer !== undefined) return;
    const oldest = this.#answers.values().next().value;
    if (!oldest) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#dropExpired(this.clock());
        this.#schedule();
      },
      Math.max(oldest.until - this.clock(), 1),
    );
    this.#timer.unref?.();
  }
}

/** A kept body's bytes. */
const bytesOf = (answer: WholeAnswer) => (answer.body === null ? 0 : answer.body.length);
