/**
 * gzip bodies spliced from kept pieces (src/server/gzip-splice.ts): what Node's own zlib decodes,
 * byte for byte, with the trailer's CRC-32 and length checked, for pieces of every size.
 */
import { randomBytes } from 'node:crypto';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { keepBytes } from '../src/lib/kept-bytes.ts';
import { crc32Combine, gzipSpliced, SPLICE_MIN_BYTES, spliceable } from '../src/server/gzip-splice.ts';

const json = (n: number) =>
  Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => ({ id: `rate:${i}`, rate: i / 7 }))));

describe('CRC-32 of two parts from the parts’ CRCs', () => {
  it.each([0, 1, 7, 1000, 65_536, 300_001])(
    'equals zlib’s CRC of the whole, the second part %i bytes long',
    (length) => {
      for (const first of [0, 1, 33, 4096]) {
        const a = randomBytes(first);
        const b = randomBytes(length);
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }
    },
  );
});

describe('a spliced gzip body', () => {
  it('decodes to the pieces joined: kept pieces deflated once, the others stored, ids and timestamps in any bytes', () => {
    const head = keepBytes(json(2000));
    const quoted = keepBytes(Buffer.from(JSON.stringify(head.toString())));
    for (const id of ['1', '"é-🙂"', '9'.repeat(70_000)]) {
      const pieces = [
        Buffer.from(`{"id":${id},"text":`),
        quoted,
        Buffer.from('2026-11-22T07:00:00.000Z'),
        head,
        Buffer.from('"}'),
      ];
      const body = Buffer.concat(gzipSpliced(pieces));
      expect(gunzipSync(body).equals(Buffer.concat(pieces))).toBe(true);
      expect(body.length).toBeLessThan(Buffer.concat(pieces).length / 4 + id.length);
    }
  });

  it('deflates a kept piece once and reuses those bytes in every body', () => {
    const head = keepBytes(json(500));
    const first = gzipSpliced([Buffer.from('a'), head]);
    const second = gzipSpliced([Buffer.from('bb'), head]);
    expect(first.find((p) => p.length > 100)).toBe(second.find((p) => p.length > 100));
  });

  it('is offered only for bodies with a kept piece worth deflating', () => {
    const big = json(500);
    expect(spliceable([big])).toBe(false);
    expect(spliceable([keepBytes(Buffer.alloc(SPLICE_MIN_BYTES - 1))])).toBe(false);
    expect(spliceable([Buffer.from('x'), keepBytes(big)])).toBe(true);
  });

  it('holds an empty body and empty pieces', () => {
    expect(gunzipSync(Buffer.concat(gzipSpliced([]))).length).toBe(0);
    const head = keepBytes(json(300));
    expect(gunzipSync(Buffer.concat(gzipSpliced([Buffer.alloc(0), head, Buffer.alloc(0)]))).equals(head)).toBe(true);
  });
});
