/**
 * The history the tests run on: the repository's own `snapshots/` tree, up to a fixed last date,
 * copied once per run into a temporary folder (tests may write there). Collected snapshots keep
 * arriving after that date; the cut keeps every figure the tests assert independent of them.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

export const REPO_SNAPSHOTS = resolve(import.meta.dirname, '../../snapshots');
/** The last date of the history the tests were written against (the imported 2024–2025 history). */
export const HISTORY_UNTIL = '2025-03-05';
export const HISTORY_FILES = 224;

declare module 'vitest' {
  export interface ProvidedContext {
    historyDir: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'rates-history-'));
  let copied = 0;
  for (const slug of await readdir(REPO_SNAPSHOTS)) {
    for (const name of await readdir(join(REPO_SNAPSHOTS, slug)).catch(() => [])) {
      if (!/^\d{4}-\d{2}-\d{2}\.json$/.test(name) || name.slice(0, 10) > HISTORY_UNTIL) continue;
      await cp(join(REPO_SNAPSHOTS, slug, name), join(dir, slug, name));
      copied += 1;
    }
  }
  if (copied !== HISTORY_FILES) {
    throw new Error(`expected ${HISTORY_FILES} snapshots up to ${HISTORY_UNTIL} in ${REPO_SNAPSHOTS}, found ${copied}`);
  }
  project.provide('historyDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
