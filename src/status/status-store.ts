/**
 * Collection status per dataset, written by the collector and read by health. Kept outside the
 * snapshot tree because it changes every hour even when the rates do not.
 */
import { z } from 'zod';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../lib/atomic-write.ts';
import { type CollectionRun, parseRunLog, RUN_LOG_MAX_BYTES, runLogText } from './run-log.ts';
import { parseStored, readStored, StoredReason } from './stored.ts';

export const CollectionStatus = z.strictObject({
  /** Last successful collection, changed or not (ISO 8601 UTC). */
  lastChecked: z.iso.datetime().nullable(),
  /**
   * When the newest snapshot in the collector's tree was collected, i.e. the last change (or, after
   * a rollback, the restored snapshot's time): what a deployment of that tree serves as lastUpdated.
   */
  lastChanged: z.iso.datetime().nullable(),
  /** Why the last collection failed: clean, at most REASON_MAX_CHARS (cut on write, and on read for an older build's record). */
  lastError: StoredReason.nullable(),
  lastErrorAt: z.iso.datetime().nullable(),
});
export type CollectionStatus = z.infer<typeof CollectionStatus>;

export const EMPTY_STATUS: CollectionStatus = {
  lastChecked: null,
  lastChanged: null,
  lastError: null,
  lastErrorAt: null,
};

/**
 * The most bytes a dataset's record is read up to; a larger one is unreadable (UnreadableStored:
 * health says the store could not be read), and is never read whole. A record this build writes
 * is under 7 KB (its reason at most REASON_MAX_CHARS). The bound is far above that on purpose: an
 * older build's record quoted a whole page title (pages are read up to 4 MiB), and such a record
 * must still be read, cleaned, and so rewritten small by the next collection, which reads the
 * record before writing it; a bound below it would fail health and every later collection.
 */
export const STATUS_RECORD_MAX_BYTES = 8 * 1024 * 1024;

/** A dataset's record as stored: 2-space JSON, one file or object. */
export const statusText = (status: CollectionStatus) => `${JSON.stringify(CollectionStatus.parse(status), null, 2)}\n`;

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

  /** A file's text read up to `maxBytes` (UnreadableStored past it), or null when there is no file. */
  private async text(name: string, maxBytes: number): Promise<string | null> {
    try {
      return await readStored(createReadStream(this.file(name)), maxBytes, `${name}.json`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async read(dataset: string): Promise<CollectionStatus | null> {
    const text = await this.text(dataset, STATUS_RECORD_MAX_BYTES);
    return text === null ? null : parseStored(text, CollectionStatus, `${dataset}.json`);
  }

  async write(dataset: string, status: CollectionStatus): Promise<void> {
    await writeFileAtomic(this.file(dataset), statusText(status));
  }

  async readRuns(): Promise<CollectionRun[]> {
    const text = await this.text(RUN_LOG_NAME, RUN_LOG_MAX_BYTES);
    return text === null ? [] : parseRunLog(text, `${RUN_LOG_NAME}.json`);
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
