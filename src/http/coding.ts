/**
 * Content coding of /api answers on `npm start` (Vercel's CDN codes its own): which coding a
 * client gets, chosen by `negotiator` (the package Express and `compression` use), and the
 * standard library's brotli and gzip over whole bodies, or as a stream for a body sent as it is
 * produced. Any setting decodes to the same bytes, so the setting is a matter of cost: a body
 * coded once and reused (a kept answer) takes `compression`'s defaults; a body coded for one
 * caller (an MCP response, with the caller's id in it) the fastest, so a call costs a fraction
 * of a millisecond rather than one. Brotli's window is held small: a stalled stream keeps little memory.
 */
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from 'node:zlib';
import preferredEncodings from 'negotiator/lib/encoding.js';

export type Encoding = 'br' | 'gzip' | 'identity';

/** Bodies shorter than this are sent as they are: coding them saves too little. */
export const CODING_THRESHOLD = 1024;

/** Offered in this order of preference when a client weighs them alike. */
const OFFERED = ['br', 'gzip', 'identity'];

/** Accept-Encoding values repeat (a handful per kind of client): each is negotiated once (bounded). */
const negotiated = new Map<string, Encoding>();
const NEGOTIATIONS_KEPT = 256;

/** The coding for a client's Accept-Encoding: none when it sends none. */
export function negotiate(acceptEncoding: string | undefined): Encoding {
  if (acceptEncoding === undefined) return 'identity';
  let encoding = negotiated.get(acceptEncoding);
  if (encoding === undefined) {
    // On ties br before gzip, whatever order the client lists them in.
    encoding = (preferredEncodings(acceptEncoding, OFFERED, ['br', 'gzip'])[0] ?? 'identity') as Encoding;
    if (negotiated.size >= NEGOTIATIONS_KEPT) negotiated.clear();
    negotiated.set(acceptEncoding, encoding);
  }
  return encoding;
}

const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_LGWIN]: 18 },
};
const GZIP = { level: 6 };
const BROTLI_FAST = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_LGWIN]: 18 },
};
const GZIP_FAST = { level: 1 };

const brotliWhole = promisify(brotliCompress);
const gzipWhole = promisify(gzip);

/** A whole body coded, in zlib's thread pool rather than on the event loop. */
export function encodeWhole(
  body: Uint8Array,
  encoding: Exclude<Encoding, 'identity'>,
  uses: 'once' | 'per-caller',
): Promise<Uint8Array> {
  if (encoding === 'br') return brotliWhole(body, uses === 'once' ? BROTLI : BROTLI_FAST);
  return gzipWhole(body, uses === 'once' ? GZIP : GZIP_FAST);
}

/** A body sent as it is produced, coded as it goes (the stream keeps the writer's backpressure). */
export function encodeStream(
  body: AsyncIterable<Uint8Array>,
  encoding: Exclude<Encoding, 'identity'>,
): AsyncIterable<Uint8Array> {
  const coder = encoding === 'br' ? createBrotliCompress(BROTLI) : createGzip(GZIP);
  return Readable.from(body, { objectMode: false }).pipe(coder);
}
