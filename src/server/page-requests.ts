/**
 * Pages under `npm start`: the site is read-only, so a page takes GET and HEAD and any other
 * method is a 405 with `Allow: GET, HEAD` (OPTIONS too: a page allows no cross-origin read, so
 * there is no preflight to answer) — except `/openapi/json`, which is readable from any origin
 * and answers its preflight itself (src/pages/openapi/json.ts, which also answers the 405s on
 * Vercel). Astro's own bare errors (a plain-text "Bad request.", "Internal Server Error", an
 * empty 416) become the documented JSON body; its 404 is the site's own page. A docs page asked
 * for as Markdown is answered from its `.md` twin.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { edgeErrorBody, sendEdgeError, type EdgeError } from './edge-errors.ts';
import { JSON_TYPE } from '../api/responses.ts';
import { NO_STORE } from '../http/caching.ts';
import { DOCS_PAGE_VARY, negotiateDocsPage } from '../http/docs-negotiation.ts';
import { HEALTH_PATH } from '../endpoints.ts';
import { API_CATALOG_LINK, API_CATALOG_PATH, API_CATALOG_TYPE } from '../registry/api-catalog.ts';
import { FEED_FILE_PATTERN, hubLinkHeader } from '../lib/websub.ts';

const PAGE_METHODS = 'GET, HEAD';

/** Routes that answer a CORS preflight themselves, with the methods they take. */
const PREFLIGHTED = new Map([
  ['/openapi/json', 'GET, HEAD, OPTIONS'],
  ['/openapi/json/', 'GET, HEAD, OPTIONS'],
]);

/**
 * The type of each text file the site serves, charset included. Astro's static handler (the `send`
 * package) takes its types from mime-db, whose Atom type has no charset, so a browser read the
 * feeds' UTF-8 as Latin-1 ("â†’" for "→"). `send` keeps a Content-Type already set, so
 * servePage sets the type from this table first; a page Astro renders (the 404 page) writes its own
 * over it. vercel.json gives the same types on Vercel.
 */
const FILE_TYPES: Readonly<Record<string, string>> = {
  '.atom': 'application/atom+xml; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

/**
 * Headers of a few paths: the API catalog's type (a file without an extension) and the link to it
 * (RFC 9727), on the catalog and on the home page. vercel.json sends the same on Vercel.
 */
const PATH_HEADERS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '/': { link: API_CATALOG_LINK },
  [API_CATALOG_PATH]: { 'content-type': API_CATALOG_TYPE, link: API_CATALOG_LINK },
};

/**
 * A docs page asked for as Markdown is answered from its `<page>.md` twin (the rule Vercel's
 * middleware applies too); either answer says it varies with Accept.
 */
function sendDocsPageAsAsked(req: IncomingMessage, res: ServerResponse): void {
  const target = req.url ?? '/';
  const query = target.indexOf('?');
  const page = negotiateDocsPage(query < 0 ? target : target.slice(0, query), req.headers.accept);
  if (page === undefined) return;
  res.setHeader('vary', DOCS_PAGE_VARY);
  if (page.markdown !== undefined) req.url = `${page.markdown}${query < 0 ? '' : target.slice(query)}`;
}

/** The type FILE_TYPES gives a request target's file, or undefined. */
function fileTypeOf(target: string): string | undefined {
  let path = target.split('?', 1)[0]!;
  try {
    path = decodeURI(path); // `send` serves the decoded path: /changes%2Eatom is changes.atom
  } catch {
    return undefined;
  }
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? FILE_TYPES[path.slice(dot).toLowerCase()] : undefined;
}

const FEED_FILE_PATH = new RegExp(`^${FEED_FILE_PATTERN}$`);

/**
 * With a WebSub hub, every feed file (the site's `.atom` files: the change feeds, the lowest-rate
 * feeds, the changelog's) names it and itself in a `Link` header (src/lib/websub.ts), as
 * scripts/build-vercel-api.ts makes Vercel do. Only for the plain paths the site's feeds have: the
 * path goes into the header as it came.
 */
function feedLinkOf(target: string, site: string, hub: string | undefined): string | undefined {
  const path = target.split('?', 1)[0]!;
  return hub !== undefined && FEED_FILE_PATH.test(path) ? hubLinkHeader(hub, `${site}${path}`) : undefined;
}

/** Why this page request is refused before Astro sees it, or undefined. */
function refusedPageRequest(method: string, target: string): EdgeError | undefined {
  const path = target.split('?', 1)[0]!;
  const allow = PREFLIGHTED.get(path) ?? PAGE_METHODS;
  if (!allow.split(', ').includes(method)) {
    return {
      status: 405,
      message: 'Method not allowed',
      hint: `The site is read-only: use ${allow}.`,
      headers: { allow },
    };
  }
  try {
    decodeURI(path);
  } catch {
    return {
      status: 400,
      message: 'Invalid request target',
      hint: 'The path has a malformed percent-escape (such as %zz); escape "%" itself as %25.',
    };
  }
  return undefined;
}

/** Statuses whose reasons a bare error page gives. */
const REASONS: Record<number, string> = {
  400: 'Bad request',
  412: 'Precondition failed',
  416: 'Range not satisfiable',
};

function errorFor(status: number): EdgeError {
  if (status >= 500) {
    return {
      status,
      message: 'An error occurred while rendering the page',
      hint: `This is a fault on our side, not in your request. Retry shortly; GET ${HEALTH_PATH} reports the state of the service.`,
    };
  }
  return {
    status,
    message: REASONS[status] ?? 'Invalid request',
    hint: 'Request the page with a plain GET; the pages are listed at /docs and /llms.txt.',
  };
}

function contentTypeOf(headers: unknown): string | undefined {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return undefined;
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'content-type');
  return name === undefined ? undefined : String((headers as Record<string, unknown>)[name]);
}

/**
 * Give the errors the page handler writes — Astro's plain-text or empty ones, whatever type they
 * claim — the documented JSON body. The 404 page is the site's own, and a route's JSON error is
 * already in the documented shape; both are left alone.
 */
function jsonForBareErrors(req: IncomingMessage, res: ServerResponse, site: string): void {
  const { writeHead, write, end } = res;
  let body: string | undefined;
  const bare = (status: number, headers?: unknown) => {
    const type = contentTypeOf(headers) ?? String(res.getHeader('content-type') ?? '');
    return status >= 400 && status !== 404 && !res.headersSent && !type.startsWith('application/json');
  };
  /** Swap in the JSON error: its headers on the response, its text for end(). */
  function replace(status: number): OutgoingHttpHeaders {
    body = JSON.stringify(edgeErrorBody(errorFor(status), site));
    for (const name of ['content-length', 'content-type', 'transfer-encoding']) res.removeHeader(name);
    return { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(body)), 'cache-control': NO_STORE };
  }
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    const headers = rest.find((arg) => typeof arg === 'object' && arg !== null);
    if (body === undefined && bare(status, headers) && !Array.isArray(headers)) {
      return writeHead.apply(this, [status, replace(status)] as Parameters<ServerResponse['writeHead']>);
    }
    return writeHead.apply(this, [status, ...rest] as Parameters<ServerResponse['writeHead']>);
  } as ServerResponse['writeHead'];
  res.write = function (this: ServerResponse, ...args: unknown[]) {
    if (body !== undefined) return true; // the bare error's own text is dropped
    return write.apply(this, args as Parameters<ServerResponse['write']>);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (body === undefined && bare(res.statusCode)) {
      for (const [name, value] of Object.entries(replace(res.statusCode))) res.setHeader(name, value!);
    }
    if (body === undefined) return end.apply(this, args as Parameters<ServerResponse['end']>);
    return (end as (this: ServerResponse, chunk?: string) => ServerResponse).call(
      this,
      req.method === 'HEAD' ? undefined : body,
    );
  } as ServerResponse['end'];
}

/** A page request: refused here, or handed to Astro with its bare errors made JSON. */
export function servePage(
  req: IncomingMessage,
  res: ServerResponse,
  astro: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  site: string,
  log: (message: string, error: unknown) => void,
  hub?: string,
): void {
  const refused = refusedPageRequest(req.method ?? 'GET', req.url ?? '/');
  if (refused) {
    // A body may still be on its way: close rather than read it for the next request.
    if (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0)
      res.setHeader('connection', 'close');
    sendEdgeError(res, refused, site, req.method);
    return;
  }
  sendDocsPageAsAsked(req, res);
  for (const [name, value] of Object.entries(PATH_HEADERS[(req.url ?? '/').split('?', 1)[0]!] ?? {}))
    res.setHeader(name, value);
  const type = fileTypeOf(req.url ?? '/');
  if (type) res.setHeader('content-type', type);
  const link = feedLinkOf(req.url ?? '/', site, hub);
  if (link) res.setHeader('link', link);
  jsonForBareErrors(req, res, site);
  astro(req, res).catch((error: unknown) => {
    log('server: page failed:', error);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.end();
    } else res.destroy();
  });
}
