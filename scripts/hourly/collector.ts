/**
 * Run `scripts/collect.ts` as its own process, exactly as `npm run collect` does, so the hourly
 * chain and a person collecting by hand get the same output, snapshot rules and exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { DATASET_SLUGS } from '../../src/datasets.ts';

const PROJECT = resolve(import.meta.dirname, '..', '..');
const COLLECT_SCRIPT = join(PROJECT, 'scripts', 'collect.ts');

/** A dataset that turned the collection red, with what the collector printed about it. */
export interface DatasetFailure {
  dataset: string;
  /** The rest of its line, e.g. `FAILED: HTTP 500 from …; nothing written, the newest snapshot is kept in 7021 ms`. */
  reason: string;
}

export interface Collection {
  /** 0: every dataset collected; 1: at least one failed (the others were still written). */
  code: number;
  /** The collector's Markdown change summary, when something changed. */
  summary?: string;
  /** Each failed or refused dataset, and each whose status could not be recorded. */
  failures: DatasetFailure[];
}

/**
 * The collector's lines that make it exit 1: `<slug>: FAILED: …` (a failed or refused page, on
 * stdout) and `<slug>: could not record the collection status: …` (on stderr). Read from its
 * output rather than a second channel, so the issue quotes exactly what the run log shows.
 */
const FAILURE_LINE = new RegExp(
  `^(${DATASET_SLUGS.join('|')}): (FAILED: .*|could not record the collection status: .*)$`,
  'gm',
);

/** The collector's line when the run itself could not be added to the status store's run log. */
const RUN_LOG_LINE = /^collect: (could not record the run in the run log: .*)$/gm;

export function datasetFailures(output: string): DatasetFailure[] {
  return [
    ...[...output.matchAll(FAILURE_LINE)].map((m) => ({ dataset: m[1]!, reason: m[2]!.trimEnd() })),
    ...[...output.matchAll(RUN_LOG_LINE)].map((m) => ({ dataset: 'run log', reason: m[1]!.trimEnd() })),
  ];
}

/** Pass a stream through to `out` unchanged as it comes, keeping a copy to read afterwards. */
function tee(from: Readable, out: Writable): Buffer[] {
  const chunks: Buffer[] = [];
  from.on('data', (chunk: Buffer) => {
    out.write(chunk);
    chunks.push(chunk);
  });
  return chunks;
}

export async function runCollector(options: { snapshotsDir: string; env: NodeJS.ProcessEnv }): Promise<Collection> {
  const dir = await mkdtemp(join(tmpdir(), 'rates-hourly-'));
  const summaryFile = join(dir, 'summary.md');
  try {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const child = spawn(process.execPath, [tsx, COLLECT_SCRIPT, '--summary-file', summaryFile], {
      cwd: PROJECT,
      env: { ...options.env, SNAPSHOTS_DIR: options.snapshotsDir },
      stdio: ['inherit', 'pipe', 'pipe'],
    });
    const stdout = tee(child.stdout, process.stdout);
    const stderr = tee(child.stderr, process.stderr);
    const code = await new Promise<number>((done, fail) => {
      child.on('error', fail);
      // 'close' waits for the output to be read to its end. A collector killed by a signal
      // counts as a crash (exit code above 1).
      child.on('close', (exitCode, signal) => done(exitCode ?? (signal ? 128 : 1)));
    });
    const summary = await readFile(summaryFile, 'utf8').catch(() => undefined);
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');
    return { code, summary, failures: datasetFailures(`${text(stdout)}\n${text(stderr)}`) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
