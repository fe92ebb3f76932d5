/**
 * The status store on Vercel Blob, used when BLOB_READ_WRITE_TOKEN is set: the collector runs
 * in GitHub Actions and the API on Vercel, so the status has to live somewhere both reach.
 */
import { type CollectionRun, parseRunLog, runLogText } from './run-log.ts';
import { CollectionStatus, RUN_LOG_NAME, type StatusStore } from './status-store.ts';

/** The two calls this store makes, so tests can stand in for the Blob service. */
export interface BlobClient {
  read(pathname: string): Promise<string | null>;
  write(pathname: string, body: string): Promise<void>;
}

export function vercelBlobClient(token: string): BlobClient {
  // Loaded when first used: only deployments with a Blob token need it.
  const blob = () => import('@vercel/blob');
  return {
    async read(pathname) {
      const { get } = await blob();
      const result = await get(pathname, { access: 'private', token, useCache: false });
      if (result?.statusCode !== 200) return null;
      return new Response(result.stream).text();
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

  async read(dataset: string) {
    const text = await this.client.read(`${this.prefix}${dataset}.json`);
    return text === null ? null : CollectionStatus.parse(JSON.parse(text));
  }

  async write(dataset: string, status: CollectionStatus) {
    await this.client.write(
      `${this.prefix}${dataset}.json`,
      `${JSON.stringify(CollectionStatus.parse(status), null, 2)}\n`,
    );
  }

  async readRuns() {
    const text = await this.client.read(`${this.prefix}${RUN_LOG_NAME}.json`);
    return text === null ? [] : parseRunLog(text);
  }

  async writeRuns(runs: readonly CollectionRun[]) {
    await this.client.write(`${this.prefix}${RUN_LOG_NAME}.json`, runLogText(runs));
  }
}
