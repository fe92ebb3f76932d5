/**
 * A look inside a server process the suite started, through the V8 inspector, for tests only: what
 * the server's own structures hold, rather than its RSS (which the allocator, the kernel and the
 * garbage collector's timing move by tens of MB with no change in the code). The server has no
 * diagnostics of its own: a test starts it with `inspectorPort()` in NODE_OPTIONS, which opens
 * nothing until `inspect()` sends SIGUSR1; the inspector then listens on a free loopback port.
 */

/** NODE_OPTIONS for a child that may be inspected later (kept: any NODE_OPTIONS already set). */
export function inspectorPort(env: NodeJS.ProcessEnv = process.env): { NODE_OPTIONS: string } {
  return { NODE_OPTIONS: [env.NODE_OPTIONS, '--inspect-port=127.0.0.1:0'].filter(Boolean).join(' ') };
}

export interface Inspector {
  /** The value of `expression` in the process (awaited when it is a promise), as JSON. */
  evaluate<T>(expression: string): Promise<T>;
  /** A full garbage collection, then `process.memoryUsage()`: what is still held. */
  memoryAfterGc(): Promise<NodeJS.MemoryUsage>;
  /**
   * After a full garbage collection: `filter` (a function's source, called with each object and
   * `arg`) over every object in the heap whose prototype chain holds `prototype` (an expression);
   * how many pass.
   */
  countLive(prototype: string, filter: string, arg: unknown): Promise<number>;
  close(): void;
}

const URL_LINE = /Debugger listening on (ws:\/\/\S+)/g;

/** Open the inspector of process `pid` (SIGUSR1, unless it is open already) and connect to it; `output` is what the process printed. */
export async function inspect(pid: number, output: () => string): Promise<Inspector> {
  const urls = () => [...output().matchAll(URL_LINE)].map((m) => m[1]!);
  if (urls().length === 0) process.kill(pid, 'SIGUSR1');
  for (let waited = 0; urls().length === 0; waited += 50) {
    if (waited > 10_000) throw new Error(`no inspector URL from process ${pid}:\n${output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const socket = new WebSocket(urls().at(-1)!);
  await new Promise((done, fail) => {
    socket.addEventListener('open', done, { once: true });
    socket.addEventListener('error', () => fail(new Error('cannot connect to the inspector')), { once: true });
  });
  let lastId = 0;
  const pending = new Map<number, { done: (result: any) => void; fail: (error: Error) => void }>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.fail(new Error(`inspector: ${JSON.stringify(message.error)}`));
    else waiting.done(message.result);
  });
  const call = (method: string, params: object = {}): Promise<any> =>
    new Promise((done, fail) => {
      const id = ++lastId;
      pending.set(id, { done, fail });
      socket.send(JSON.stringify({ id, method, params }));
    });
  const thrown = (result: any) => {
    if (result.exceptionDetails)
      throw new Error(
        `in the inspected process: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`,
      );
    return result;
  };
  const evaluate = async <T>(expression: string): Promise<T> =>
    thrown(await call('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })).result.value as T;
  return {
    evaluate,
    async memoryAfterGc() {
      await call('HeapProfiler.collectGarbage');
      return evaluate<NodeJS.MemoryUsage>('process.memoryUsage()');
    },
    async countLive(prototype, filter, arg) {
      const group = `count-${++lastId}`;
      try {
        await call('HeapProfiler.collectGarbage');
        const proto = thrown(await call('Runtime.evaluate', { expression: prototype, objectGroup: group })).result;
        const { objects } = await call('Runtime.queryObjects', {
          prototypeObjectId: proto.objectId,
          objectGroup: group,
        });
        const counted = await call('Runtime.callFunctionOn', {
          objectId: objects.objectId,
          functionDeclaration: `function (arg) { const filter = (${filter}); return this.filter((o) => filter(o, arg)).length; }`,
          arguments: [{ value: arg }],
          returnByValue: true,
        });
        return thrown(counted).result.value as number;
      } finally {
        await call('Runtime.releaseObjectGroup', { objectGroup: group });
      }
    },
    close: () => socket.close(),
  };
}
