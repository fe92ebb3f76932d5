/**
 * A body read whole up to a limit, or undefined past it (the rest is not read: the stream is
 * cancelled). A long body gives the event loop a turn every 128 KiB, so reading it does not hold
 * up every other request.
 */
export async function readUpTo(stream: AsyncIterable<Uint8Array> | null, max: number): Promise<Buffer | undefined> {
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let sinceTurn = 0;
  for await (const value of stream) {
    size += value.byteLength;
    if (size > max) return undefined; // leaving the loop cancels the stream
    chunks.push(value);
    if ((sinceTurn += value.byteLength) >= 128 * 1024) {
      sinceTurn = 0;
      await new Promise((turn) => setImmediate(turn));
    }
  }
  const one = chunks[0];
  return chunks.length === 1 && one ? Buffer.from(one.buffer, one.byteOffset, one.byteLength) : Buffer.concat(chunks);
}
