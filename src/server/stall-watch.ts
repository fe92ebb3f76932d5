/**
 * The stall timeout of `npm start` (limits.ts stalledTimeoutMs): a connection with a request in
 * flight that makes no progress either way for that long — no byte read from the client, none of
 * the server's written bytes taken by the kernel — is dropped, above all a client that stops
 * reading its answer. Node's socket timeout cannot keep that time: when it expires with a write
 * pending that the kernel took part of since it was issued, it waits a whole period more
 * (net.Socket's _onTimeout), so such a client stayed up to twice the timeout. Here each watched
 * connection's progress is sampled every CHECK_MS, so one is dropped between the timeout and the
 * timeout plus two samples after its last progress, never before.
 */
import type { Socket } from 'node:net';

/** How often progress is sampled, at most (a quarter of the timeout when that is shorter). */
const CHECK_MS = 250;

interface Progress {
  /** Bytes read, bytes written, bytes not yet sent, and the part of a pending write not yet taken. */
  read: number;
  written: number;
  buffered: number;
  pending: number;
  /** When a change was last seen (ms, performance.now()). */
  since: number;
}

/**
 * The part of a pending write the kernel has not taken: a slow reader's only sign of progress
 * while one large write (a whole answer) is under way. Node's own timeout reads it too.
 */
const pendingOf = (socket: Socket) =>
  (socket as Socket & { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;

/** Record what `socket` has moved; true when anything moved since the last record. */
function moved(socket: Socket, progress: Progress): boolean {
  const read = socket.bytesRead;
  const written = socket.bytesWritten;
  const buffered = socket.writableLength;
  const pending = pendingOf(socket);
  if (
    read === progress.read &&
    written === progress.written &&
    buffered === progress.buffered &&
    pending === progress.pending
  )
    return false;
  Object.assign(progress, { read, written, buffered, pending });
  return true;
}

export class StallWatch {
  readonly #watched = new Map<Socket, Progress>();
  readonly #checkMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly stalledMs: number) {
    this.#checkMs = Math.max(1, Math.min(CHECK_MS, Math.floor(stalledMs / 4)));
  }

  /** Watch a connection from now (a request has arrived on it). */
  watch(socket: Socket): void {
    if (this.#watched.has(socket)) return;
    this.#watched.set(socket, {
      read: socket.bytesRead,
      written: socket.bytesWritten,
      buffered: socket.writableLength,
      pending: pendingOf(socket),
      since: performance.now(),
    });
    this.#timer ??= setInterval(() => this.#check(), this.#checkMs).unref();
  }

  /** Stop watching it (its request is answered and read whole, or it closed). */
  unwatch(socket: Socket): void {
    this.#watched.delete(socket);
    if (this.#watched.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #check(): void {
    const now = performance.now();
    for (const [socket, progress] of this.#watched) {
      if (socket.destroyed) {
        this.unwatch(socket);
        continue;
      }
      if (moved(socket, progress)) progress.since = now;
      else if (now - progress.since >= this.stalledMs) {
        this.unwatch(socket);
        socket.destroy(); // an answer has begun, or may have: no error can be written now
      }
    }
  }
}
