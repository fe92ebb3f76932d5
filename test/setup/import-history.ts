/** Import the real history from ../shared once per run, into a temporary snapshot tree. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { importHistory } from '../../src/snapshots/import.ts';

export const HISTORY_SOURCE = resolve(import.meta.dirname, '../../../shared/data/rates-history');

declare module 'vitest' {
  export interface ProvidedContext {
    historyDir: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'rates-history-'));
  const reports = await importHistory({ from: HISTORY_SOURCE, to: dir });
  const bad = reports.filter((r) => r.outcome !== 'written');
  if (reports.length !== 224 || bad.length > 0) {
    throw new Error(`importing ${HISTORY_SOURCE} gave ${reports.length} files, ${bad.length} not written`);
  }
  project.provide('historyDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
