/** Fetch one source page with retries: a timeout per attempt, exponential backoff with jitter, 4xx final. */
import pRetry, { AbortError } from 'p-retry';
import { readUpTo } from '../lib/read-up-to.ts';

export const USER_AGENT = 'nz-rates-service/1.0 (open-source NZ lending rates collector; runs hourly)';

export interface FetchOptions {
  timeoutMs: number;
  retries: number;
  /** First backoff delay; doubles on each retry, randomized (jitter). */
  retryDelayMs: number;
  /** A page larger than this is refused unread: a real page is a few hundred KiB. */
  maxBytes?: number;
  onRetry?: (message: string) => void;
}

export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

export const DEFAULT_FETCH: FetchOptions = { timeoutMs: 20_000, retries: 3, retryDelayMs: 2_000 };

export class FetchError extends Error {
  override name = 'FetchError';
}

export async function fetchPage(url: string, options: FetchOptions = DEFAULT_FETCH): Promise<string> {
  try {
    return await pRetry(
      async () => {
        let response: Response;
        try {
          response = await fetch(url, {
            headers: { 'user-agent': USER_AGENT, accept: 'text/html' },
            signal: AbortSignal.timeout(options.timeoutMs),
          });
        } catch (error) {
          throw new FetchError(describe(error, options.timeoutMs));
        }
        // 4xx is the page telling us to stop (except 408 and 429, which ask us to come back).
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
          throw new AbortError(new FetchError(`HTTP ${response.status} from ${url}`));
        }
        if (!response.ok) throw new FetchError(`HTTP ${response.status} from ${url}`);
        const max = options.maxBytes ?? MAX_PAGE_BYTES;
        let body: Buffer | undefined;
        try {
          // Read the body inside the attempt: a connection reset mid-page is retried too.
          body = await readUpTo(response.body, max);
        } catch (error) {
          throw new FetchError(`body of ${url} cut short: ${describe(error, options.timeoutMs)}`);
        }
        if (!body) throw new AbortError(new FetchError(`the page at ${url} is larger than ${max} bytes`));
        return body.toString('utf8');
      },
      {
        retries: options.retries,
        minTimeout: options.retryDelayMs,
        factor: 2,
        randomize: true,
        onFailedAttempt: ({ error, attemptNumber, retriesLeft, retryDelay }) => {
          if (retriesLeft > 0)
            options.onRetry?.(`attempt ${attemptNumber} failed (${error.message}); retrying in ${retryDelay} ms`);
        },
      },
    );
  } catch (error) {
    throw error instanceof FetchError ? error : new FetchError((error as Error).message);
  }
}

function describe(error: unknown, timeoutMs: number): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message;
}
