/**
 * Content codings of ready answers, done once: a ready body is a fixed head and a tail that
 * differs per request (its timestamp and `"}`). The head is compressed once, flushed to a byte
 * boundary (brotli FLUSH, deflate SYNC_FLUSH), and each request appends its tail as an
 * uncompressed block of the same format and the format's trailer — a few dozen bytes, no
 * compressor per request. Negotiation is the `compression` package's own (its negotiator, its
 * encodings and preference, its 1 KiB threshold), so a ready answer is encoded exactly as that
 * package would have chosen, and it skips what is already encoded: nothing is compressed twice.
 */
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, crc32, deflate, deflateRawSync, gzip } from 'node:zlib';
import type { Codings, Encoding } from '../api/ready.ts';
import { gzipSpliced, spliceable } from './gzip-splice.ts';

// compression's own negotiator (0.6.x), not whatever version sits at the top of node_modules.
const requireFromCompression = createRequire(createRequire(import.meta.url).resolve('compression'));
const Negotiator = requireFromCompression('negotiator') as new (req: {
  headers: Record<string, string | undefined>;
}) => {
  encoding(available: string[], preferred?: string[]): string | undefined;
};

/** compression 1.8 with brotli: what it offers, what it prefers on a tie, and its threshold (node-server.ts). */
const SUPPORTED = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED = ['br', 'gzip'];
export const THRESHOLD = 1024;

const NEGOTIATIONS_KEPT = 256;

/** Accept-Encoding values repeat (a handful per client kind): negotiated once each, bounded. */
function negotiator(preferred: string[]): (acceptEncoding: string | undefined) => Encoding {
  const negotiated = new Map<string, Encoding>();
  return (acceptEncoding) => {
    if (acceptEncoding === undefined) return 'identity'; // compression: no header, no coding
    let encoding = negotiated.get(acceptEncoding);
    if (encoding === undefined) {
      const chosen = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encoding(SUPPORTED, preferred);
      encoding = (chosen ?? 'identity') as Encoding;
      if (negotiated.size >= NEGOTIATIONS_KEPT) negotiated.delete(negotiated.keys().next().value as string);
      negotiated.set(acceptEncoding, encoding);
    }
    return encoding;
  };
}

export const negotiate = negotiator(PREFERRED);

/** A compressed head, open at a byte boundary, and what each request's tail needs. */
interface CompressedHead {
  bytes: Uint8Array;
  /** gzip: CRC-32 of the head; deflate (zlib): Adler-32 state of the head. */
  check: number;
  adlerB: number;
  length: number;
}

const GZIP_HEADER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff);
const ZLIB_HEADER = Uint8Array.of(0x78, 0x9c);
/** Brotli: ISLAST=1, ISLASTEMPTY=1 — the end of the stream. */
const BROTLI_END = Uint8Array.of(0x03);

function adler32(bytes: Uint8Array, a = 1, b = 0): [number, number] {
  for (let i = 0; i < bytes.length; ) {
    const end = Math.min(i + 3800, bytes.length); // sums stay exact in doubles between reductions
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return [a, b];
}

export function compressHead(head: Uint8Array, encoding: Exclude<Encoding, 'identity'>): CompressedHead {
  if (encoding === 'br') {
    const bytes = brotliCompressSync(head, {
      finishFlush: constants.BROTLI_OPERATION_FLUSH,
      params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: head.length },
    });
    return { bytes, check: 0, adlerB: 0, length: head.length };
  }
  const bytes = deflateRawSync(head, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  if (encoding === 'gzip') return { bytes, check: crc32(head), adlerB: 0, length: head.length };
  const [a, b] = adler32(head);
  return { bytes, check: a, adlerB: b, length: head.length };
}

/** Brotli uncompressed meta-block (RFC 7932, section 9.2): ISLAST=0, 4 nibbles of MLEN-1, ISUNCOMPRESSED=1, padding. */
function brotliStored(tail: Uint8Array): Uint8Array[] {
  if (tail.length === 0) return [];
  const v = ((tail.length - 1) << 3) | (1 << 19);
  return [Uint8Array.of(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff), tail];
}

/** Deflate final stored block (RFC 1951, section 3.2.4), starting at the byte boundary the sync flush left. */
function deflateStored(tail: Uint8Array): Uint8Array[] {
  const n = tail.length;
  return [Uint8Array.of(0x01, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff), tail];
}

function u32(value: number, littleEndian: boolean): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value >>> 0, littleEndian);
  return out;
}

/** The whole encoded body: the kept compressed head and this request's tail (at most a few hundred bytes). */
export function encodedParts(
  compressed: CompressedHead,
  tail: Uint8Array,
  encoding: Exclude<Encoding, 'identity'>,
): Uint8Array[] {
  if (encoding === 'br') return [compressed.bytes, ...brotliStored(tail), BROTLI_END];
  if (encoding === 'gzip') {
    const crc = crc32(tail, compressed.check);
    return [
      GZIP_HEADER,
      compressed.bytes,
      ...deflateStored(tail),
      u32(crc, true),
      u32(compressed.length + tail.length, true),
    ];
  }
  const [a, b] = adler32(tail, compressed.check, compressed.adlerB);
  return [ZLIB_HEADER, compressed.bytes, ...deflateStored(tail), u32(((b << 16) | a) >>> 0, false)];
}

/** The codings `npm start` offers, for the core (ApiDeps.codings). */
export const NODE_CODINGS: Codings = { negotiate, threshold: THRESHOLD, compressHead, encodedParts };

const coders = { br: promisify(brotliCompress), gzip: promisify(gzip), deflate: promisify(deflate) };

/**
 * A body made per request that cannot be spliced (an MCP answer in br or deflate, or with no
 * kept part), coded whole as negotiated, in zlib's thread pool rather than on the event loop. A
 * ready answer is coded once, at quality 9; this one is coded on
 * every call, so at the fastest settings: brotli quality 1 and zlib level 1 take about 0.2 and
 * 0.35 ms for a 68 KB list against 0.65 and 0.85 ms at compression's defaults (quality 4, level
 * 6), for 8.9 KB instead of 7.2 KB. The brotli window is sized to the body, which keeps the
 * encoder's memory small.
 */
export function codeWhole(body: Buffer, encoding: Exclude<Encoding, 'identity'>): Promise<Buffer> {
  if (encoding !== 'br') return coders[encoding](body, { level: 1 });
  const window = Math.min(24, Math.max(16, Math.ceil(Math.log2(body.length + 1))));
  const params = {
    [constants.BROTLI_PARAM_QUALITY]: 1,
    [constants.BROTLI_PARAM_LGWIN]: window,
    [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
  };
  return coders.br(body, { params });
}

/**
 * A body with kept pieces (an MCP tool result) goes in gzip when the client takes gzip as readily
 * as br: spliced from the pieces deflated once (gzip-splice.ts), it costs no compressor per call,
 * where brotli would code the whole body every time. The client's own q-values still decide.
 */
const preferringGzip = negotiator(['gzip', 'br']);

/** Codings for answers made per request (src/mcp/node.ts). */
export const NODE_WHOLE_CODINGS = {
  threshold: THRESHOLD,
  negotiate: (acceptEncoding: string | undefined, body: readonly Uint8Array[]) =>
    spliceable(body) ? preferringGzip(acceptEncoding) : negotiate(acceptEncoding),
  code(body: readonly Uint8Array[], encoding: Exclude<Encoding, 'identity'>): Uint8Array[] | Promise<Buffer> {
    if (encoding === 'gzip' && spliceable(body)) return gzipSpliced(body);
    return codeWhole(Buffer.concat(body), encoding);
  },
};
