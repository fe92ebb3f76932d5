/**
 * Collection status per dataset, written by the collector and read by health. Kept outside the
 * snapshot tree because it changes every hour even when the rates do not.
 */
import { z } from 'zod';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../lib/atomic-write.ts';
import { type CollectionRun, parseRunLog, runLogText } from './run-log.ts';

export const CollectionStatus = z.strictObject({
  /** Last successful collection, changed or not (ISO 8601 UTC). */
  lastChecked: z.iso.datetime().nullable(),
  /**
   * When the newest snapshot in the collector's tree was collected, i.e. the last change (or, after
   * a rollback, the restored snapshot's time): what a deployment of that tree serves as lastUpdated.
   */
  lastChanged: z.iso.datetime().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.iso.datetime().nullable(),
});
export type CollectionStatus = z.infer<typeof CollectionStatus>;

export const EMPTY_STATUS: CollectionStatus = {
  lastChecked: null,
  lastChanged: null,
  lastError: null,
  lastErrorAt: null,
};

/** Where the status lives: health names it, and treats `none` as "not configured". */
export type StatusStoreKind = 'filesystem' | 'vercel-blob' | 'none';

export interface StatusStore {
  readonly kind: StatusStoreKind;
  /**
   * Whether this deployment expects a collector to report here (production): then a store that
   * is missing, unreachable or empty makes health degraded, since unknown freshness is not "ok".
   */
  readonly required: boolean;
  /** The dataset's status, or null when nothing was recorded yet. */
  read(dataset: string): Promise<CollectionStatus | null>;
  write(dataset: string, status: CollectionStatus): Promise<void>;
  /** The run log (src/status/run-log.ts), oldest first; empty before the first run. */
  readRuns(): Promise<CollectionRun[]>;
  writeRuns(runs: readonly CollectionRun[]): Promise<void>;
}

/** The run log's name beside the datasets' records (no dataset slug ends in `-log`). */
export const RUN_LOG_NAME = 'run-log';

export class FileStatusStore implements StatusStore {
  readonly kind = 'filesystem';
  constructor(
    readonly dir: string,
    readonly required = false,
  ) {}

  private file(dataset: string): string {
    return join(this.dir, `${dataset}.json`);
  }

  async read(dataset: string): Promise<CollectionStatus | null> {
    let text: string;
    try {
      text = await readFile(this.file(dataset), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return CollectionStatus.parse(JSON.parse(text));
  }

  async write(dataset: string, status: CollectionStatus): Promise<void> {
    await writeFileAtomic(this.file(dataset), `${JSON.stringify(CollectionStatus.parse(status), null, 2)}\n`);
  }

  async readRuns(): Promise<CollectionRun[]> {
    try {
      return parseRunLog(await readFile(this.file(RUN_LOG_NAME), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async writeRuns(runs: readonly CollectionRun[]): Promise<void> {
    await writeFileAtomic(this.file(RUN_LOG_NAME), runLogText(runs));
  }
}

/**
 * No store at all: a serverless deployment without BLOB_READ_WRITE_TOKEN, whose local disk is
 * not where the collector (in GitHub Actions) writes. Reads find nothing; writes refuse.
 */
export class UnconfiguredStatusStore implements StatusStore {
  readonly kind = 'none';
  constructor(readonly required: boolean) {}

  async read(): Promise<null> {
    return null;
  }

  async write(): Promise<void> {
    throw new Error('no collection status store is configured: set BLOB_READ_WRITE_TOKEN');
  }

  async readRuns(): Promise<CollectionRun[]> {
    return [];
  }

  async writeRuns(): Promise<void> {
    throw new Error('no collection status store is configured: set BLOB_READ_WRITE_TOKEN');
  }
}
