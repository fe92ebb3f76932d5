/**
 * Run `scripts/collect.ts` as its own process, exactly as `npm run collect` does, so the hourly
 * chain and a person collecting by hand get the same output, snapshot rules and exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const PROJECT = resolve(import.meta.dirname, '..', '..');
const COLLECT_SCRIPT = join(PROJECT, 'scripts', 'collect.ts');

export interface Collection {
  /** 0: every dataset collected; 1: at least one failed (the others were still written). */
  code: number;
  /** The collector's Markdown change summary, when something changed. */
  summary?: string;
}

export async function runCollector(options: { snapshotsDir: string; env: NodeJS.ProcessEnv }): Promise<Collection> {
  const dir = await mkdtemp(join(tmpdir(), 'rates-hourly-'));
  const summaryFile = join(dir, 'summary.md');
  try {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const child = spawn(process.execPath, [tsx, COLLECT_SCRIPT, '--summary-file', summaryFile], {
      cwd: PROJECT,
      env: { ...options.env, SNAPSHOTS_DIR: options.snapshotsDir },
      stdio: 'inherit',
    });
    const code = await new Promise<number>((done, fail) => {
      child.on('error', fail);
      // A collector killed by a signal counts as a crash (exit code above 1).
      child.on('exit', (exitCode, signal) => done(exitCode ?? (signal ? 128 : 1)));
    });
    const summary = await readFile(summaryFile, 'utf8').catch(() => undefined);
    return { code, summary };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
