/**
 * One `drain` listener per response, whatever its writer does. `compression` sends
 * `res.on('drain')` to its zlib stream but leaves `removeListener` on the response
 * (expressjs/compression#135, open), so each `res.once('drain')` — what every writer with
 * backpressure uses — stayed on the zlib stream for good: a leaked
 * listener per backpressured write, and a MaxListenersExceededWarning per streamed answer. Here
 * the response subscribes once, through compression's `on`, and the writers' own drain listeners
 * live in a plain emitter where `once` and `off` work.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

type Listener = (...args: unknown[]) => void;

/** Call after compression has wrapped the response, before anything writes to it. */
export function relayDrain(res: ServerResponse): void {
  const waiting = new EventEmitter();
  const on = res.on; // compression's: routes drain to the zlib stream when there is one
  const removeListener = res.removeListener;
  let relaying = false;
  function add(this: ServerResponse, event: string | symbol, listener: Listener) {
    if (event !== 'drain') return on.call(this, event, listener);
    if (!relaying) {
      relaying = true;
      on.call(this, 'drain', () => waiting.emit('drain'));
    }
    waiting.on('drain', listener);
    return this;
  }
  function remove(this: ServerResponse, event: string | symbol, listener: Listener) {
    if (event !== 'drain') return removeListener.call(this, event, listener);
    waiting.removeListener('drain', listener);
    return this;
  }
  res.on = res.addListener = add as ServerResponse['on'];
  res.removeListener = res.off = remove as ServerResponse['removeListener'];
}
