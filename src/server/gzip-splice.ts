/**
 * A gzip body spliced from pieces, with no compressor per answer: each kept piece (src/lib/
 * kept-bytes.ts) is deflated once, on its own, and reused; every other piece (an MCP answer's
 * id and timestamp, a few dozen bytes) goes in as a stored block. A piece deflated on its own
 * refers to nothing before it, and a sync flush leaves it at a byte boundary, so the blocks
 * concatenate into one valid deflate stream (RFC 1951). The gzip trailer's CRC-32 is combined
 * from the pieces' CRCs rather than computed over the whole body again (RFC 1952).
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { isKeptBytes } from '../lib/kept-bytes.ts';

/** Kept pieces shorter than this go in stored, like any other: deflating them saves too little. */
export const SPLICE_MIN_BYTES = 1024;

/** The CRC-32 polynomial, reflected. */
const POLY = 0xedb88320;

/** a(x)·b(x) modulo the CRC polynomial (bit 31 is x⁰, as CRC-32 keeps its bits). */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  for (let bit = 0x80000000; bit !== 0; bit >>>= 1) {
    if (a & bit) product ^= b;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0 … 31: x¹, then each the square of the one before. */
const X_POW_2K: number[] = [0x40000000];
for (let k = 1; k < 32; k++) X_POW_2K.push(multiplyModP(X_POW_2K[k - 1]!, X_POW_2K[k - 1]!));

/** x^(8·bytes) modulo the polynomial: what appending that many bytes does to a CRC. */
function shiftFor(bytes: number): number {
  let power = 0x80000000; // x⁰
  for (let k = 3; bytes > 0; bytes = Math.floor(bytes / 2), k++)
    if (bytes % 2) power = multiplyModP(X_POW_2K[k % 32]!, power);
  return power;
}

/** CRC-32 of A followed by B, from the CRC of each and B's length. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multiplyModP(shiftFor(lengthB), crcA) ^ crcB) >>> 0;
}

interface Deflated {
  bytes: Buffer;
  crc: number;
  length: number;
  /** shiftFor(length), kept with it: a kept piece always has the same length. */
  shift: number;
}
const deflated = new WeakMap<Uint8Array, Deflated>();

function deflatedOnce(piece: Uint8Array): Deflated {
  let done = deflated.get(piece);
  if (!done) {
    const bytes = deflateRawSync(piece, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
    done = { bytes, crc: crc32(piece), length: piece.length, shift: shiftFor(piece.length) };
    deflated.set(piece, done);
  }
  return done;
}

const GZIP_HEADER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff);
/** The final block, stored and empty. */
const FINAL = Uint8Array.of(0x01, 0, 0, 0xff, 0xff);
const STORED_MAX = 0xffff;

function stored(piece: Uint8Array, out: Uint8Array[]): void {
  for (let at = 0; at < piece.length; at += STORED_MAX) {
    const part = piece.subarray(at, at + STORED_MAX);
    const n = part.length;
    out.push(Uint8Array.of(0x00, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff), part);
  }
}

/** A kept piece long enough to be worth deflating once. */
const deflatable = (piece: Uint8Array): boolean => piece.length >= SPLICE_MIN_BYTES && isKeptBytes(piece);

/** Whether splicing pays: the body holds a kept piece worth deflating once. */
export const spliceable = (pieces: readonly Uint8Array[]): boolean => pieces.some(deflatable);

/** The gzip body of these pieces, in pieces (nothing joined). */
export function gzipSpliced(pieces: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [GZIP_HEADER];
  let crc = 0;
  let length = 0;
  for (const piece of pieces) {
    if (deflatable(piece)) {
      const done = deflatedOnce(piece);
      out.push(done.bytes);
      crc = (multiplyModP(done.shift, crc) ^ done.crc) >>> 0;
    } else {
      stored(piece, out);
      crc = crc32(piece, crc);
    }
    length += piece.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE(length >>> 0, 4);
  out.push(FINAL, trailer);
  return out;
}
