/**
 * Every request under /api, answered: the router — MCP, the docs search, the REST core for the
 * rest — and the one way out (src/http/way-out.ts) every answer leaves through. Whole GET
 * answers are kept for their second (src/http/kept-answers.ts), and MCP's tools read the REST
 * core through the same kept answers. Two faces: `answer` for the Node listener
 * (src/server/api-listener.ts), which `npm start` and the Vercel function both run, and `web`,
 * `(Request) => Promise<Response>`, for Astro's dev server and tests in process.
 */
import { Readable } from 'node:stream';
import { createRestCore, type ApiDeps, type Handler } from './api/app.ts';
import { MCP_CORS, preflightAnswer, READ_ONLY_CORS } from './http/cors.ts';
import { carriesRequestId, REQUEST_ID } from './http/request-id.ts';
import { isWhole, joined, type Answer, type Outgoing, type RequestHead } from './http/answer.ts';
import { KeptAnswers, type Kept } from './http/kept-answers.ts';
import { prepare, respond, type Prepared } from './http/way-out.ts';
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

/** A request's answer, ready for the way out's last step, and whether the caller gets a request id. */
export interface Routed {
  prepared: Prepared;
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
 * outermost layer) — and the two steps a Node listener calls without web objects.
 */
export interface Service extends Handler {
  /** The kept answer to a GET or HEAD of this path and query, if one was made this second. */
  kept(target: string): Kept | undefined;
  /** Any request's answer. */
  answer(incoming: Incoming): Promise<Routed>;
}

/** GET and HEAD with no body: the requests a kept answer may answer. */
export const mayBeKept = (method: string) => method === 'GET' || method === 'HEAD';

export function createService(deps: ApiDeps, options: ServiceOptions = {}): Service {
  const site = deps.siteUrl ?? siteUrl();
  const rest = createRestCore({ ...deps, siteUrl: site });
  const way = { coding: options.coding ?? false };
  const kept = new KeptAnswers(deps.clock);

  /** GET of a REST or search URL: the kept answer, or one made now (and kept when a cache could keep it). */
  async function get(target: string, url: URL): Promise<Kept | Routed> {
    const known = kept.get(target);
    if (known) return known;
    const answer = await (options.search && isSearchPath(url.pathname) ? options.search('GET', url) : rest('GET', url));
    const requestId = carriesRequestId('GET', url);
    const whole = answer.body === null || typeof answer.body === 'string' || isWhole(answer.body);
    // What a shared cache may keep, and health and the status figures: no cache keeps them, as they
    // say what is true now, but a second of reuse here is within that (their status reads are kept 5 s anyway).
    const reusable = answer.cache === 'data' || url.pathname === HEALTH_PATH || url.pathname === STATUS_PATH;
    if (!(reusable && whole && answer.status < 500)) return { prepared: prepare(answer, way), requestId };
    return kept.keep(target, prepare(answer, { ...way, reused: true }) as Kept['prepared'], requestId);
  }

  // The MCP module is loaded on the first MCP request, so a cold start serving REST does not pay for it.
  let mcp: Promise<McpCore> | undefined;
  const loadMcp = () =>
    (mcp ??= import('./mcp/endpoint.ts').then((m) =>
      m.createMcpCore(
        {
          kept: (target) => restAnswerOf(kept.get(target)),
          get: async (target) => restAnswerOf(await get(target, new URL(target, site))),
        },
        { siteUrl: site, log: deps.log, ...options.mcp },
      ),
    ));

  async function answer(incoming: Incoming): Promise<Routed> {
    const url = new URL(incoming.target, site);
    const { method } = incoming;
    if (isMcpPath(url.pathname)) {
      if (method === 'OPTIONS')
        return { prepared: prepare(preflightAnswer(MCP_CORS, undefined), way), requestId: false };
      return { prepared: prepare(await (await loadMcp())(incoming), way), requestId: true };
    }
    if (method === 'OPTIONS') {
      const requested = incoming.header('access-control-request-headers');
      return { prepared: prepare(preflightAnswer(READ_ONLY_CORS, requested), way), requestId: false };
    }
    if (mayBeKept(method)) return get(incoming.target, url);
    const answer = await (options.search && isSearchPath(url.pathname)
      ? options.search(method, url)
      : rest(method, url));
    return { prepared: prepare(answer, way), requestId: carriesRequestId(method, url) };
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
    const { prepared } = await answer(incoming);
    return responseOf(await respond(prepared, incoming));
  }

  return Object.assign(web, { kept: (target: string) => kept.get(target), answer });
}

/** The REST API and MCP in process, through the way out: `createService` with no coding and no search. */
export const createApi = (deps: ApiDeps): Service => createService(deps);

/** The REST answer as MCP's tools read it: bytes or a stream, and the kept answer's room for results. */
function restAnswerOf(answer: Kept | Routed): RestAnswer;
function restAnswerOf(answer: Kept | Routed | undefined): RestAnswer | undefined;
function restAnswerOf(answer: Kept | Routed | undefined): RestAnswer | undefined {
  if (!answer) return undefined;
  const { status, body } = answer.prepared;
  return {
    status,
    body: body !== null && isWhole(body) ? joined(body) : body,
    derived: 'derived' in answer ? answer.derived : undefined,
  };
}

/** What the way out sends, as a web Response (the caller's request id added when it gets one). */
export function responseOf({ status, headers, body }: Outgoing, requestId?: string): Response {
  const list: [string, string][] = [];
  for (let i = 0; i < headers.length; i += 2) list.push([headers[i]!, headers[i + 1]!]);
  if (requestId !== undefined) list.push([REQUEST_ID, requestId]);
  const content = body === null ? null : isWhole(body) ? joined(body) : Readable.toWeb(Readable.from(body));
  return new Response(content as BodyInit | null, { status, headers: list });
}
