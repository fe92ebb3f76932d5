/**
 * The shapes of the API's paths, which hold no dataset: the request-id stamp (src/http/request-id.ts)
 * reads them alone, so the Vercel middleware bundled from it changes only when they do.
 */
export const API_PREFIX = '/api/v1';
/** The path segment after a dataset's slug that names its time series (not an institution or issuer). */
export const TIME_SERIES_SEGMENT = 'time-series';
/** The path segment after a dataset's slug that names its change log. */
export const CHANGES_SEGMENT = 'changes';
/** The path segment after a dataset's slug that names its lowest open rates. */
export const LOWEST_SEGMENT = 'lowest';
/** The path segment after a dataset's slug that names its threshold alerts feed. */
export const ALERTS_SEGMENT = 'alerts';
/** The path segment after a dataset's slug that names the quote check: where a rate stands among the open offers. */
export const QUOTE_SEGMENT = 'quote';
/** The path segment after a dataset's slug that names its break-even rates of fixed terms (datasets with fixed terms only). */
export const BREAK_EVEN_SEGMENT = 'break-even';
/** Feeds the REST core answers outside API_PREFIX: `/feeds/<dataset>/alerts.atom`. */
export const FEEDS_PREFIX = '/feeds';
export const ALERTS_FEED_FILE = 'alerts.atom';
/** What the API listener answers rather than the pages: /api and /feeds, with anything after. */
export const SERVICE_PATH = /^\/(?:api|feeds)(?:[/?]|$)/;
/** The path segment after API_PREFIX that names the health endpoint. */
export const HEALTH_SEGMENT = 'health';
export const HEALTH_PATH = `${API_PREFIX}/${HEALTH_SEGMENT}`;
/** The path segment after API_PREFIX that names the collection's reliability figures. */
const STATUS_SEGMENT = 'status';
export const STATUS_PATH = `${API_PREFIX}/${STATUS_SEGMENT}`;
/** The path segment after API_PREFIX that names the registry of institutions and issuers (no `-rates` slug, so no dataset's). */
const INSTITUTIONS_SEGMENT = 'institutions';
export const INSTITUTIONS_PATH = `${API_PREFIX}/${INSTITUTIONS_SEGMENT}`;

/** The MCP endpoint (Streamable HTTP, POST only); `${MCP_PATH}/` is answered too. */
export const MCP_PATH = `${API_PREFIX}/mcp`;
/** Does a path name the MCP endpoint (with or without a trailing slash)? */
export const isMcpPath = (path: string) => path === MCP_PATH || path === `${MCP_PATH}/`;

/**
 * Every dataset's slug has this shape (`<words>-rates`; test/request-id.test.ts checks), so a path
 * can be told to be a dataset's by its shape: `/api/v1/nope` is no dataset's, and no endpoint's.
 */
export const DATASET_SLUG_SHAPE = /^[a-z0-9]+(?:-[a-z0-9]+)*-rates$/;

/** The methods the REST endpoints answer; any other gets 405 (with `x-request-id`). */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;

export const isAllowedMethod = (method: string): boolean => (ALLOWED_METHODS as readonly string[]).includes(method);

/**
 * The segments of a path shaped like an endpoint — health, the status figures, the institutions, or a dataset's slug
 * and at most one segment after it (a list, a time series, a change log, the lowest rates, a quote
 * check, one institution or issuer) — or
 * undefined. Whether the slug names a dataset is the router's question (src/api/routes.ts).
 */
export function endpointSegments(
  pathname: string,
):
  | { kind: 'health' }
  | { kind: 'status' }
  | { kind: 'institutions' }
  | { kind: 'dataset'; slug: string; segment?: string }
  | undefined {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const [first = '', second, ...rest] = pathname
    .slice(API_PREFIX.length + 1)
    .replace(/\/$/, '')
    .split('/');
  if (rest.length > 0 || second === '') return undefined;
  if (first === HEALTH_SEGMENT) return second === undefined ? { kind: 'health' } : undefined;
  if (first === STATUS_SEGMENT) return second === undefined ? { kind: 'status' } : undefined;
  if (first === INSTITUTIONS_SEGMENT) return second === undefined ? { kind: 'institutions' } : undefined;
  return DATASET_SLUG_SHAPE.test(first) ? { kind: 'dataset', slug: first, segment: second } : undefined;
}

/** The slug of a path shaped like a dataset's Atom alerts feed, or undefined. */
export function alertsFeedSlug(pathname: string): string | undefined {
  const [first, slug, file, ...rest] = pathname.slice(1).split('/');
  return `/${first}` === FEEDS_PREFIX &&
    file === ALERTS_FEED_FILE &&
    rest.length === 0 &&
    DATASET_SLUG_SHAPE.test(slug ?? '')
    ? slug
    : undefined;
}
