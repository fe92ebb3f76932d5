/**
 * What the benchmark and the load run share: building the site into its own folder, starting a
 * server process and timing its cold start, reading its peak RSS, and writing results.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../test/support/free-port.ts';
import { answers, startServer } from '../../test/support/server-process.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const RESULTS_FILE = resolve(ROOT, 'bench/RESULTS.md');

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-NZ', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const mb = (bytes: number) => `${fmt(bytes / 1e6, 2)} MB`;
/** The middle value (the upper middle of an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function buildSite(name: string, snapshotsDir: string) {
  const buildDir = resolve(ROOT, '.builds', name);
  const generatedDir = `${buildDir}-generated`;
  const env = {
    ...process.env,
    BUILD_DIR: buildDir,
    GENERATED_DIR: generatedDir,
    SNAPSHOTS_DIR: snapshotsDir,
    ASTRO_TELEMETRY_DISABLED: '1',
  };
  const started = performance.now();
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  // What the functions read at run time: the history folder, shipped inside the Vercel function.
  const historyBytes = await folderBytes(join(generatedDir, 'history'));
  return { buildDir, generatedDir, seconds, historyBytes };
}

/** The bytes of every file under a folder. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** One GET, timed from the request to its first body byte and to its last. */
export async function timedGet(url: string) {
  const started = performance.now();
  const response = await fetch(url);
  const reader = response.body!.getReader();
  let firstByteMs: number | undefined;
  let bytes = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    firstByteMs ??= performance.now() - started;
    bytes += chunk.value.byteLength;
  }
  return { status: response.status, firstByteMs: firstByteMs ?? 0, totalMs: performance.now() - started, bytes };
}

export interface ServerProcess {
  url: string;
  pid: number;
  coldStartMs: number;
  rssMb(): Promise<number>;
  peakRssMb(): Promise<number>;
  stop(): void;
}

async function memory(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A process's CPU time so far (user and system), in µs; undefined where /proc cannot say. */
export async function cpuMicros(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After the command name (which may hold spaces, in parentheses): utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Spawn a server process and wait for the first 200 of `probePath`: process spawn to that answer is the cold start. */
export async function spawnServer(
  args: (port: number) => string[],
  env: Record<string, string>,
  probePath: string,
): Promise<ServerProcess> {
  const port = await freePort();
  const server = await startServer(process.execPath, args(port), {
    port,
    env: { ...process.env, ...env, PORT: String(port) },
    ready: answers(probePath, 200),
    pollMs: 2,
    timeoutMs: 600_000,
    quiet: true,
  });
  return {
    url: server.url,
    pid: server.pid,
    coldStartMs: server.readyMs,
    rssMb: () => memory(server.pid, 'VmRSS'),
    peakRssMb: () => memory(server.pid, 'VmHWM'),
    stop: () => void server.stop(),
  };
}

/** The production server, as `npm start` runs it after building. */
export const startProductionServer = (buildDir: string, env: Record<string, string> = {}) =>
  spawnServer(() => ['scripts/serve.mjs'], { BUILD_DIR: buildDir, ...env }, '/api/v1/mortgage-rates');

/** Put a run's section at the top of bench/RESULTS.md, below its introduction. */
export async function prependResults(section: string, introduction: string): Promise<void> {
  const previous = await readFile(RESULTS_FILE, 'utf8').catch(() => introduction);
  const [head, ...runs] = previous.split(/\n(?=## )/);
  await mkdir(resolve(ROOT, 'bench'), { recursive: true });
  await writeFile(
    RESULTS_FILE,
    `${[head!.trimEnd(), section.trimEnd(), ...runs.map((r) => r.trimEnd())].join('\n\n')}\n`,
  );
}
