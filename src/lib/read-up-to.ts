/**
 * A web stream read to its end, up to `max` bytes: past them the read stops and the rest is never
 * pulled (undefined). Read with a reader (arrayBuffer() and for-await cost twice as much per
 * call); a long stream, made as it is read and all in promises, gives other requests a turn
 * every 128 KiB.
 */
export async function readUpTo(stream: ReadableStream<Uint8Array> | null, max: number): Promise<Buffer | undefined> {
  if (!stream) return Buffer.alloc(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let sinceTurn = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
    if ((sinceTurn += value.byteLength) >= 128 * 1024) {
      sinceTurn = 0;
      await new Promise((turn) => setImmediate(turn));
    }
  }
  const one = chunks[0];
  return chunks.length === 1 && one ? Buffer.from(one.buffer, one.byteOffset, one.byteLength) : Buffer.concat(chunks);
}
