/**
 * The status store on Vercel Blob, used when BLOB_READ_WRITE_TOKEN is set: the collector runs
 * in GitHub Actions and the API on Vercel, so the status has to live somewhere both reach.
 */
import { type CollectionRun, parseRunLog, RUN_LOG_MAX_BYTES, runLogText } from './run-log.ts';
import {
  CollectionStatus,
  RUN_LOG_NAME,
  STATUS_RECORD_MAX_BYTES,
  type StatusStore,
  statusText,
} from './status-store.ts';
import { parseStored, readStored } from './stored.ts';

/** The two calls this store makes, so tests can stand in for the Blob service. */
export interface BlobClient {
  /**
   * The object's body as it arrives, or null when there is none. A stream, not a text: the store
   * reads it only up to its bound (leaving the stream early cancels the download).
   */
  read(pathname: string): Promise<AsyncIterable<Uint8Array> | null>;
  write(pathname: string, body: string): Promise<void>;
}

export function vercelBlobClient(token: string): BlobClient {
  // Loaded when first used: only deployments with a Blob token need it.
  const blob = () => import('@vercel/blob');
  return {
    async read(pathname) {
      const { get } = await blob();
      const result = await get(pathname, { access: 'private', token, useCache: false });
      return result?.statusCode === 200 ? result.stream : null;
    },
    async write(pathname, body) {
      const { put } = await blob();
      await put(pathname, body, {
        access: 'private',
        token,
        addRandomSuffix: false,
        allowOverwrite: true,
        contentType: 'application/json',
        cacheControlMaxAge: 60,
      });
    },
  };
}

export class BlobStatusStore implements StatusStore {
  readonly kind = 'vercel-blob';
  constructor(
    private readonly client: BlobClient,
    readonly required = false,
    private readonly prefix = 'status/',
  ) {}

  /** An object's text read up to `maxBytes` (UnreadableStored past it), or null when there is none. */
  private async text(pathname: string, maxBytes: number): Promise<string | null> {
    const body = await this.client.read(pathname);
    return body === null ? null : readStored(body, maxBytes, pathname);
  }

  async read(dataset: string) {
    const pathname = `${this.prefix}${dataset}.json`;
    const text = await this.text(pathname, STATUS_RECORD_MAX_BYTES);
    return text === null ? null : parseStored(text, CollectionStatus, pathname);
  }

  async write(dataset: string, status: CollectionStatus) {
    await this.client.write(`${this.prefix}${dataset}.json`, statusText(status));
  }

  async readRuns() {
    const pathname = `${this.prefix}${RUN_LOG_NAME}.json`;
    const text = await this.text(pathname, RUN_LOG_MAX_BYTES);
    return text === null ? [] : parseRunLog(text, pathname);
  }

  async writeRuns(runs: readonly CollectionRun[]) {
    await this.client.write(`${this.prefix}${RUN_LOG_NAME}.json`, runLogText(runs));
  }
}
