/**
 * What the benchmark and the load run share: building the site into its own folder, starting a
 * server process and timing its cold start, reading its peak RSS, and writing results.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../lib/free-port.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const RESULTS_FILE = resolve(ROOT, 'bench/RESULTS.md');

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-NZ', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const mb = (bytes: number) => `${fmt(bytes / 1e6, 2)} MB`;

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
  const storeBytes = (await stat(join(generatedDir, 'served-store.json'))).size;
  return { buildDir, seconds, storeBytes };
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

/** Spawn a server process and wait for the first 200 of `probe`: process spawn to that answer is the cold start. */
export async function spawnServer(
  args: (port: number) => string[],
  env: Record<string, string>,
  probe: (url: string) => string,
): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, args(port), {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args(port).join(' ')} exited ${child.exitCode}`);
    try {
      if ((await fetch(probe(url))).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  const coldStartMs = performance.now() - started;
  const pid = child.pid!;
  return {
    url,
    pid,
    coldStartMs,
    rssMb: () => memory(pid, 'VmRSS'),
    peakRssMb: () => memory(pid, 'VmHWM'),
    stop: () => child.kill(),
  };
}

/** The production server, as `npm start` runs it after building. */
export const startProductionServer = (buildDir: string) =>
  spawnServer(
    () => ['scripts/serve.mjs'],
    { BUILD_DIR: buildDir },
    (url) => `${url}/api/v1/mortgage-rates`,
  );

/** Put a run's section at the top of bench/RESULTS.md, below its introduction. */
export async function prependResults(section: string, introduction: string): Promise<void> {
  const previous = await readFile(RESULTS_FILE, 'utf8').catch(() => introduction);
  const [head, ...runs] = previous.split(/\n(?=## )/);
  await mkdir(resolve(ROOT, 'bench'), { recursive: true });
  await writeFile(
    RESULTS_FILE,
    [head!.trimEnd(), section.trimEnd(), ...runs.map((r) => r.trimEnd())].join('\n\n') + '\n',
  );
}
