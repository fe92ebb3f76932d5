/**
 * Fetch one source page with retries: a timeout per attempt, exponential backoff with jitter, 4xx
 * final. Redirects are followed only to the source's own host and port (see nextHop). What comes
 * back is read only when it is the whole page (wholeText), as the text its charset says.
 */
import pRetry, { AbortError } from 'p-retry';
import { cleanText, QUOTE_MAX_CHARS } from '../lib/clean-text.ts';
import { readUpTo } from '../lib/read-up-to.ts';
import { CharsetError, declaredCharset, decodeText } from './decode.ts';
import { PageRefusal } from './tables.ts';
import { cutShort } from './whole-page.ts';

const USER_AGENT = 'nz-rates-service/1.0 (open-source NZ lending rates collector; runs hourly)';

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

/** Redirects followed per attempt: a moved page takes one or two (http → https, a new path); more is a loop. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export const DEFAULT_FETCH: FetchOptions = { timeoutMs: 20_000, retries: 3, retryDelayMs: 2_000 };

export class FetchError extends Error {
  override name = 'FetchError';
}

/** The rules a page that came back is refused by (collect.ts reports them as refusals). */
const CUT_SHORT = 'a page cut short';
const UNDECODABLE = 'a page it cannot decode';

/** A URL's host and port, the port spelled out when it is the scheme's own. */
const portOf = (url: URL) => `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;

/**
 * Where a redirect from `current` to `location` leads, or why it is refused. Only the host and
 * port the source was asked for are followed, exactly (`www.` and the bare domain are different
 * hosts, and another port of the same host is another server): a page from anywhere else is not
 * the source, yet its title would be published on the status page. http → https on that host is
 * followed only from port 80 to port 443, the schemes' own; https → http is not (it would drop
 * the encryption).
 */
function nextHop(current: URL, location: string | null, source: URL): URL | string {
  if (!location) return 'redirect without a Location refused';
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    return 'redirect to a Location that is not a URL refused';
  }
  if (next.protocol !== 'https:' && next.protocol !== 'http:') return 'redirect to a scheme other than http(s) refused';
  // The host named is page text: only the hostname, cleaned and short, never the page behind it.
  if (next.hostname !== source.hostname)
    return `redirect to another host (${cleanText(next.hostname, QUOTE_MAX_CHARS)}) refused; redirects are followed only within ${source.hostname}`;
  if (current.protocol === 'https:' && next.protocol === 'http:') return 'redirect from https to http refused';
  // URL writes a scheme's own port as '' (80 for http, 443 for https).
  if (next.protocol !== current.protocol && (next.port !== '' || current.port !== ''))
    return `redirect from ${current.protocol}//${portOf(current)} to ${next.protocol}//${portOf(next)} refused; http becomes https only from port 80 to port 443`;
  if (next.protocol === current.protocol && next.port !== current.port)
    return `redirect to another port (${portOf(next)}) refused; redirects are followed only to ${portOf(current)}`;
  return next;
}

export async function fetchPage(url: string, options: FetchOptions = DEFAULT_FETCH): Promise<string> {
  try {
    const source = new URL(url);
    return await pRetry(
      async () => {
        // One timeout for the whole attempt, redirects and body included.
        const signal = AbortSignal.timeout(options.timeoutMs);
        let current = source;
        let response: Response;
        for (let hops = 0; ; hops++) {
          try {
            // 'manual': each Location is checked before anything is asked of it.
            response = await fetch(current, {
              headers: { 'user-agent': USER_AGENT, accept: 'text/html' },
              redirect: 'manual',
              signal,
            });
          } catch (error) {
            throw new FetchError(describe(error, options.timeoutMs));
          }
          if (!REDIRECT_STATUSES.has(response.status)) break;
          await response.body?.cancel().catch(() => {}); // a redirect's body is never read
          // A refused redirect is final: the same page would redirect the same way on a retry.
          const next = nextHop(current, response.headers.get('location'), source);
          if (typeof next === 'string')
            throw new AbortError(new FetchError(`HTTP ${response.status} from ${url}: ${next}`));
          if (hops === MAX_REDIRECTS)
            throw new AbortError(new FetchError(`more than ${MAX_REDIRECTS} redirects from ${url} refused (a loop?)`));
          current = next;
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
        return wholeText(body, response.headers);
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
    if (error instanceof FetchError || error instanceof PageRefusal) throw error;
    throw new FetchError((error as Error).message);
  }
}

/**
 * The body as text, when it is the whole page: as many bytes as its Content-Length promises
 * (counted here, whatever the HTTP client checked), decoded fatally by the charset it declares
 * (decode.ts), and ending everything it opens (whole-page.ts). A page cut short is retried, as a
 * connection reset is, and refused when the last attempt is cut too; a page that cannot be decoded
 * is refused at once (the same bytes would come again).
 */
function wholeText(body: Buffer, headers: Headers): string {
  const length = headers.get('content-length')?.trim();
  const encoding = headers.get('content-encoding');
  // A compressed body's Content-Length counts the bytes before they were decompressed.
  if (length && /^\d+$/.test(length) && (!encoding || encoding === 'identity') && Number(length) !== body.byteLength)
    throw new PageRefusal(CUT_SHORT, `${body.byteLength} of the ${length} bytes its Content-Length promises arrived`);
  let text: string;
  try {
    text = decodeText(body, declaredCharset(body, headers.get('content-type')));
  } catch (error) {
    if (!(error instanceof CharsetError)) throw error;
    // A body broken off inside a character is a cut, not a charset: its markup tells which.
    const cut = cutShort(body.toString('latin1'));
    if (cut) throw new PageRefusal(CUT_SHORT, cut);
    throw new AbortError(new PageRefusal(UNDECODABLE, error.message));
  }
  const cut = cutShort(text);
  if (cut) throw new PageRefusal(CUT_SHORT, cut);
  return text;
}

function describe(error: unknown, timeoutMs: number): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message;
}
