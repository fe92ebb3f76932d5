/**
 * Every request under /api, from its head to what is written, in one function, `serve`: the
 * answer kept for this second (src/http/kept-answers.ts), else the router — MCP, the docs search,
 * the REST core for the rest — and the one way out (src/http/way-out.ts): `prepare`, the rules
 * that are the same for every caller, then `respond`, one caller's coding, 304 and HEAD. It lives
 * here rather than in way-out.ts because routing needs the REST and MCP cores, a floor above the
 * HTTP rules (CONTRIBUTING.md, "How the rooms depend on each other"); way-out.ts holds the rules
 * alone, which the refusals before routing (src/server/edge-errors.ts) use too.
 *
 * Two faces of it: `serve` for the Node listener (src/server/api-listener.ts), which `npm start`
 * and the Vercel function both run, and the service itself, `(Request) => Promise<Response>`,
 * for Astro's dev server and tests in process. MCP's tools read the REST core here too, through
 * the same kept answers, as status and body alone: what a tool reads is never prepared.
 */
import { Readable } from 'node:stream';
import { createRestCore, type ApiDeps, type Handler } from './api/app.ts';
import { MCP_CORS, preflightAnswer, READ_ONLY_CORS } from './http/cors.ts';
import { carriesRequestId, REQUEST_ID } from './http/request-id.ts';
import { inBytes, isWhole, joined, type Answer, type Outgoing, type RequestHead } from './http/answer.ts';
import { KeptAnswers, type Kept } from './http/kept-answers.ts';
import { prepare, respond } from './http/way-out.ts';
import type { McpCore, McpEndpointOptions } from './mcp/endpoint.ts';
import type { RestAnswer } from './mcp/tool.ts';
import { readUpTo } from './lib/read-up-to.ts';
import { siteUrl } from './site.ts';
import { HEALTH_PATH, isMcpPath, MCP_PATH } from './endpoints.ts';
import { STATUS_PATH } from './paths.ts';

export { isMcpPath, MCP_PATH };
const isSearchPath = (path: string) => path === '/api/search' || path === '/api/search/';

/** A request as the service reads it, whatever carried it. */
export interface Incoming extends RequestHead {
  /** The path and query. */
  target: string;
  /** The body as text, or undefined past `limit` bytes (the rest is not read). */
  body(limit: number): Promise<string | undefined>;
}

/** What is written: the way out's answer, and whether the caller gets a request id. */
export interface Sent extends Outgoing {
  /** Does it carry `x-request-id` (the rule of src/http/request-id.ts)? The outermost layer stamps it. */
  requestId: boolean;
}

export interface ServiceOptions {
  /** Code answers for clients that accept it (`npm start`); Vercel's CDN codes its own. */
  coding?: boolean;
  mcp?: McpEndpointOptions;
  /** /api/search (src/docs/search.ts); without it, the path is an unknown one. */
  search?: (method: string, url: URL) => Promise<Answer>;
}

/**
 * The whole surface as a web handler — the same answers, without `x-request-id`, as the Vercel
 * function gives them to the CDN (wrap it in withRequestIds, src/http/request-id.ts, to be the
 * outermost layer) — and `serve`, the same without web objects, for a Node listener.
 */
export interface Service extends Handler {
  /** Any request's answer, as written: at once when it is kept for this second, else when made. */
  serve(incoming: Incoming): Sent | Promise<Sent>;
}

/** GET and HEAD: the requests a kept answer may answer (HEAD as its GET). */
const mayBeKept = (method: string) => method === 'GET' || method === 'HEAD';

export function createService(deps: ApiDeps, options: ServiceOptions = {}): Service {
  const site = deps.siteUrl ?? siteUrl();
  const rest = createRestCore({ ...deps, siteUrl: site });
  const way = { coding: options.coding ?? false };
  const kept = new KeptAnswers(deps.clock);

  /** The core that answers a URL: the docs search for its path, the REST core for every other. */
  const core = (method: string, url: URL): Promise<Answer> =>
    options.search && isSearchPath(url.pathname) ? options.search(method, url) : rest(method, url);

  /** A GET's answer kept for its second, when a cache could keep it; undefined when not. */
  function keep(target: string, url: URL, answer: Answer): Kept | undefined {
    const whole = answer.body === null || typeof answer.body === 'string' || isWhole(answer.body);
    // What a shared cache may keep, and health and the status figures: no cache keeps them, as they
    // say what is true now, but a second of reuse here is within that (their status reads are kept 5 s anyway).
    const reusable = answer.cache === 'data' || url.pathname === HEALTH_PATH || url.pathname === STATUS_PATH;
    if (!(reusable && whole && answer.status < 500)) return undefined;
    const body = inBytes(answer.body) as Uint8Array | readonly Uint8Array[] | null;
    return kept.keep(target, { ...answer, body: body && joined(body) }, carriesRequestId('GET', url));
  }

  /** A kept answer prepared for HTTP callers: once, for the first of them (a tool's read needs none). */
  const preparedOf = (entry: Kept) =>
    (entry.prepared ??= prepare(entry.answer, { ...way, reused: true }) as NonNullable<Kept['prepared']>);

  /**
   * What MCP's tools read of the REST core: a GET's status and body, from the kept answer or from
   * the core, never prepared (a tool needs neither headers nor coding). A miss a cache could keep
   * is kept like an HTTP caller's, so later calls and REST callers in the same second reuse it;
   * the first REST caller pays its `prepare`.
   */
  async function read(target: string): Promise<RestAnswer> {
    const known = kept.get(target);
    if (known) return restAnswerOf(known);
    const url = new URL(target, site);
    const answer = await core('GET', url);
    const entry = keep(target, url, answer);
    if (entry) return restAnswerOf(entry);
    const body = inBytes(answer.body);
    return { status: answer.status, body: body !== null && isWhole(body) ? joined(body) : body };
  }

  // The MCP module is loaded on the first MCP request, so a cold start serving REST does not pay for it.
  let mcp: Promise<McpCore> | undefined;
  const loadMcp = () =>
    (mcp ??= import('./mcp/endpoint.ts').then((m) =>
      m.createMcpCore(
        {
          kept: (target) => {
            const entry = kept.get(target);
            return entry && restAnswerOf(entry);
          },
          get: read,
        },
        { siteUrl: site, log: deps.log, ...options.mcp },
      ),
    ));

  /**
   * Any request under /api, from its head to what is written. A GET or HEAD answered this second
   * is answered from the kept answer at once: no URL parsed, no promise.
   */
  function serve(incoming: Incoming): Sent | Promise<Sent> {
    if (mayBeKept(incoming.method)) {
      const known = kept.get(incoming.target);
      if (known) return sent(respond(preparedOf(known), incoming), known.requestId);
    }
    return route(incoming);
  }

  /** A request no kept answer answers: its core's answer, through the way out. */
  async function route(incoming: Incoming): Promise<Sent> {
    const { method, target } = incoming;
    const url = new URL(target, site);
    if (isMcpPath(url.pathname)) {
      if (method === 'OPTIONS')
        return sent(respond(prepare(preflightAnswer(MCP_CORS, undefined), way), incoming), false);
      return sent(respond(prepare(await (await loadMcp())(incoming), way), incoming), true);
    }
    if (method === 'OPTIONS') {
      const requested = incoming.header('access-control-request-headers');
      return sent(respond(prepare(preflightAnswer(READ_ONLY_CORS, requested), way), incoming), false);
    }
    // HEAD is answered as its GET; `respond` leaves the body out.
    const asked = mayBeKept(method) ? 'GET' : method;
    const answer = await core(asked, url);
    const entry = asked === 'GET' ? keep(target, url, answer) : undefined;
    if (entry) return sent(respond(preparedOf(entry), incoming), entry.requestId);
    return sent(respond(prepare(answer, way), incoming), carriesRequestId(asked, url));
  }

  async function web(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const incoming: Incoming = {
      method: request.method,
      target: `${url.pathname}${url.search}`,
      header: (name) => request.headers.get(name) ?? undefined,
      body: async (limit) => {
        const declared = request.headers.get('content-length');
        if (declared !== null && Number(declared) > limit) return undefined;
        return (await readUpTo(request.body, limit))?.toString('utf8');
      },
    };
    return responseOf(await serve(incoming));
  }

  return Object.assign(web, { serve });
}

/** The REST API and MCP in process, through the way out: `createService` with no coding and no search. */
export const createApi = (deps: ApiDeps): Service => createService(deps);

/** The way out's answer and whether it carries a request id: at once when `respond` made it at once. */
function sent(out: Outgoing | Promise<Outgoing>, requestId: boolean): Sent | Promise<Sent> {
  return out instanceof Promise ? out.then((o) => ({ ...o, requestId })) : { ...out, requestId };
}

/** A kept answer as MCP's tools read it: its status and bytes, and its room for results made from it. */
const restAnswerOf = ({ answer, derived }: Kept): RestAnswer => ({ status: answer.status, body: answer.body, derived });

/** What the way out sends, as a web Response (the caller's request id added when it gets one). */
export function responseOf({ status, headers, body }: Outgoing, requestId?: string): Response {
  const list: [string, string][] = [];
  for (let i = 0; i < headers.length; i += 2) list.push([headers[i]!, headers[i + 1]!]);
  if (requestId !== undefined) list.push([REQUEST_ID, requestId]);
  const content = body === null ? null : isWhole(body) ? joined(body) : Readable.toWeb(Readable.from(body));
  return new Response(content as BodyInit | null, { status, headers: list });
}
