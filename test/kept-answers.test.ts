/**
 * The answers kept for their second (src/http/kept-answers.ts) leave memory when the second is
 * over, whether or not another request comes, and what is kept at once is bounded in bytes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KEPT_BYTES, KEPT_FOR_MS, KeptAnswers, type WholeAnswer } from '../src/http/kept-answers.ts';

const MB = 1024 * 1024;

/** A whole answer of `bytes` bytes, as the service keeps it. */
const answerOf = (bytes: number): WholeAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: new Uint8Array(bytes),
  cache: 'data',
});

let now = 0;
const clock = () => now;

afterEach(() => {
  vi.useRealTimers();
  now = 0;
});

describe('kept answers', () => {
  it('drop every answer whose second is over when another is kept or looked up', () => {
    const kept = new KeptAnswers(clock);
    for (const n of [1, 2, 3]) kept.keep(`/api/v1/a?n=${n}`, answerOf(MB), false);
    now = 500;
    kept.keep('/api/v1/b', answerOf(MB), false);
    expect([kept.size, kept.bytes]).toEqual([4, 4 * MB]);
    expect(kept.get('/api/v1/a?n=1')).toBeDefined();

    now = KEPT_FOR_MS; // the first three answers' second is over: looking up another URL drops them
    expect(kept.get('/api/v1/c')).toBeUndefined();
    expect([kept.size, kept.bytes]).toEqual([1, MB]);
    expect(kept.get('/api/v1/b')).toBeDefined();

    now = 500 + KEPT_FOR_MS;
    kept.keep('/api/v1/d', answerOf(10), false);
    expect([kept.size, kept.bytes]).toEqual([1, 10]);
  });

  it('an idle process keeps nothing once the second is over: a timer drops what no request displaced', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const kept = new KeptAnswers(clock);
    for (let n = 0; n < 30; n++) kept.keep(`/api/v1/a?n=${n}`, answerOf(MB), false);
    now = 400;
    kept.keep('/api/v1/b', answerOf(MB), false);
    expect([kept.size, kept.bytes]).toEqual([31, 31 * MB]);

    now = KEPT_FOR_MS;
    vi.advanceTimersByTime(KEPT_FOR_MS);
    expect([kept.size, kept.bytes]).toEqual([1, MB]);
    now = 400 + KEPT_FOR_MS;
    vi.advanceTimersByTime(400);
    expect([kept.size, kept.bytes]).toEqual([0, 0]);
    expect(vi.getTimerCount()).toBe(0); // nothing kept, nothing waiting
  });

  it(`keep at most ${KEPT_BYTES / MB} MB of bodies at once, the oldest making way; a body larger than that is answered but not kept`, () => {
    const kept = new KeptAnswers(clock);
    const big = KEPT_BYTES / 4 + 1;
    for (let n = 0; n < 6; n++) kept.keep(`/api/v1/big?n=${n}`, answerOf(big), false);
    expect(kept.bytes).toBeLessThanOrEqual(KEPT_BYTES);
    expect([kept.size, kept.bytes]).toEqual([3, 3 * big]);
    expect(kept.get('/api/v1/big?n=2')).toBeUndefined();
    expect(kept.get('/api/v1/big?n=3')).toBeDefined();

    const huge = kept.keep('/api/v1/huge', answerOf(KEPT_BYTES + 1), false);
    expect(huge.answer.body?.length).toBe(KEPT_BYTES + 1);
    expect(kept.get('/api/v1/huge')).toBeUndefined();
    expect(kept.bytes).toBe(3 * big);
  });
});
