/**
 * A server as a child process: spawned on a port, polled until it is ready, stopped and awaited.
 * The tests start the built server, `npm start`, nginx and the Vercel function this way, and the
 * bench its servers and ceilings.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { ROOT } from './constants.ts';

export interface ServerProcess {
  url: string;
  pid: number;
  /** From the spawn to the first ready answer (with `pollMs` as its resolution). */
  readyMs: number;
  /** Whether the process still runs. */
  alive(): boolean;
  /** What it printed, stdout and stderr together (empty with `quiet`). */
  output(): string;
  /** Sends `signal` (to the whole process group when `detached`) and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Ready once something accepts a TCP connection on the port. */
export const accepts = (url: string): Promise<boolean> =>
  new Promise((done) => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.end();
      done(true);
    });
    socket.on('error', () => done(false));
  });

/** Ready once `path` gets an HTTP answer (any status), or, with `status`, an answer with that status. */
export const answers =
  (path: string, status?: number) =>
  async (url: string): Promise<boolean> => {
    try {
      const response = await fetch(`${url}${path}`);
      await response.body?.cancel();
      return status === undefined || response.status === status;
    } catch {
      return false; // not listening yet
    }
  };

/**
 * Spawn `command args` (in the repository, with `env`) to serve on `port`, and poll `ready` every
 * `pollMs` until it says so. Fails when the process exits first or `timeoutMs` passes (the process
 * is then stopped), with what it printed.
 */
export async function startServer(
  command: string,
  args: string[],
  options: {
    port: number;
    env: NodeJS.ProcessEnv;
    ready?: (url: string) => Promise<boolean>;
    pollMs?: number;
    timeoutMs?: number;
    /** Its own process group (for `npm start`, whose server is a grandchild): stop signals the group. */
    detached?: boolean;
    /** Discard what it prints. */
    quiet?: boolean;
  },
): Promise<ServerProcess> {
  const { port, ready = accepts, pollMs = 100, timeoutMs = 30_000 } = options;
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: options.env,
    detached: options.detached,
    stdio: options.quiet ? 'ignore' : ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!alive()) return;
    if (options.detached) process.kill(-child.pid!, signal);
    else child.kill(signal);
    await exited;
  };
  const what = [command, ...args].join(' ');
  for (;;) {
    if (!alive()) throw new Error(`${what} exited ${child.exitCode ?? child.signalCode}:\n${output}`);
    if (await ready(url)) break;
    if (performance.now() - started > timeoutMs) {
      await stop();
      throw new Error(`${what} did not answer on ${url} within ${timeoutMs / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return { url, pid: child.pid!, readyMs: performance.now() - started, alive, output: () => output, stop };
}
