/**
 * Vercel's real build of this checkout, and its output served the way Vercel serves a Build
 * Output API v3 folder (`.vercel/output`): the routes of config.json walked in order, the static
 * files, and each function run as Vercel's Node launcher runs it (test/support/vercel-launcher.mjs),
 * in a child process that may read only its own `.func` folder. What Vercel does here is written
 * down in the CLI's own code and docs; the measured facts the tests rely on are named where used.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, cp, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request as httpRequest,
  type ServerResponse,
} from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, extname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { ROOT } from './constants.ts';

const LAUNCHER = resolve(import.meta.dirname, 'vercel-launcher.mjs');
const VERCEL_CLI = join(ROOT, 'node_modules', '.bin', 'vercel');

// ---------------------------------------------------------------------------------------------
// The build

export interface VercelBuild {
  /** The `.vercel/output` folder, moved out of the (deleted) copy of the checkout. */
  outputDir: string;
  /** How long the copy and `vercel build` took. */
  ms: number;
  remove(): Promise<void>;
}

/**
 * `vercel build` over a copy of the checkout's files as they are on disk, with `snapshotsDir` as
 * its snapshots. The copy runs `npm ci` itself (never in the checkout the suite runs from); the
 * output is then moved to a folder of its own and the copy deleted, so nothing the deployment does
 * not ship can be read when it is served.
 */
export async function buildWithVercel(options: { snapshotsDir: string; siteUrl: string }): Promise<VercelBuild> {
  const started = performance.now();
  const checkout = await copyCheckout(options.snapshotsDir);
  try {
    await runVercelBuild(checkout, options.siteUrl);
    const parent = await mkdtemp(join(tmpdir(), 'rates-vercel-output-'));
    const outputDir = join(parent, 'output');
    await rename(join(checkout, '.vercel', 'output'), outputDir);
    return { outputDir, ms: performance.now() - started, remove: () => rm(parent, { recursive: true, force: true }) };
  } finally {
    await rm(checkout, { recursive: true, force: true });
  }
}

/** What git would commit now (tracked and untracked, not ignored, not deleted), without installed or built folders. */
async function copyCheckout(snapshotsDir: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const copy = await mkdtemp(join(tmpdir(), 'rates-vercel-checkout-'));
  const files = [...new Set(stdout.split('\0'))].filter(
    // `node_modules` may also be a symlink (a worktree sharing a checkout's install): no slash then.
    (file) => file && !/^(node_modules|\.builds|dist)(\/|$)/.test(file),
  );
  for (const file of files) {
    if (!(await exists(join(ROOT, file)))) continue; // deleted in the working tree, not yet committed
    await mkdir(dirname(join(copy, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(copy, file));
  }
  // The suite's history, so both deployments under test serve the same data.
  await rm(join(copy, 'snapshots'), { recursive: true, force: true });
  await cp(snapshotsDir, join(copy, 'snapshots'), { recursive: true });
  // `vercel build` needs a linked project (.vercel/project.json); any ids do for an offline build.
  await mkdir(join(copy, '.vercel'));
  const project = { projectId: 'x', orgId: 'y', settings: { framework: 'astro' } };
  await writeFile(join(copy, '.vercel', 'project.json'), JSON.stringify(project));
  return copy;
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** Variables of the test run a Vercel build never has: the local build's folders and the test runner's own. */
const NOT_ON_VERCEL =
  /^(BUILD_DIR|GENERATED_DIR|SNAPSHOTS_DIR|STATUS_DIR|PORT|NODE_ENV|TEST|BLOB_READ_WRITE_TOKEN|VITEST.*|VERCEL.*)$/;

/** `vercel build --yes` in the copy, on the repository's Node 24; fails with the end of its log. */
async function runVercelBuild(checkout: string, siteUrl: string): Promise<void> {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !NOT_ON_VERCEL.test(name)),
  );
  Object.assign(env, {
    PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`,
    CI: '1',
    ASTRO_TELEMETRY_DISABLED: '1',
    VERCEL_TELEMETRY_DISABLED: '1',
    // Without VERCEL_PROJECT_PRODUCTION_URL, build-time URLs would name the local default.
    SITE_URL: siteUrl,
  });
  try {
    await promisify(execFile)(VERCEL_CLI, ['build', '--yes'], {
      cwd: checkout,
      env,
      maxBuffer: 256 * 1024 * 1024,
      timeout: 15 * 60_000,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    const log = `${stdout}\n${stderr}`.trim().split('\n').slice(-80).join('\n');
    throw new Error(`vercel build failed (${(error as Error).message.split('\n')[0]}):\n${log}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The output, served

interface Route {
  src?: string;
  dest?: string;
  headers?: Record<string, string>;
  status?: number;
  continue?: boolean;
  caseSensitive?: boolean;
  methods?: string[];
  middlewarePath?: string;
  middlewareRawSrc?: string[];
  override?: boolean;
  handle?: string;
}

interface BuildOutputConfig {
  version: number;
  routes?: Route[];
  overrides?: Record<string, { path?: string; contentType?: string }>;
}

/** One answer a function gave, as it came out of the function. */
export interface Invocation {
  function: string;
  method: string;
  /** Path and query the function was called with. */
  url: string;
  status: number;
  bytes: number;
  chunks: number;
  /** Whether the function's answer had no Content-Length, i.e. was streamed. */
  streamed: boolean;
  /** When its first and last body chunks arrived, in ms from the call. */
  firstChunkMs?: number;
  lastChunkMs?: number;
}

export interface VercelDeployment {
  url: string;
  /** The public host requests are presented as reaching (`Host` and `x-forwarded-host` to the functions). */
  host: string;
  config: BuildOutputConfig;
  /** Each `.func` folder and its size (Vercel's 250 MB limit is on this, uncompressed). */
  functions: { name: string; bytes: number }[];
  invocations: Invocation[];
  /** Failures the router or a function reported while serving: any entry means something went wrong. */
  problems: string[];
  stop(): Promise<void>;
}

/** Route keys this router implements; a config using any other one is refused rather than served wrongly. */
const ROUTE_KEYS = new Set([
  'src',
  'dest',
  'headers',
  'status',
  'continue',
  'caseSensitive',
  'methods',
  'middlewarePath',
  'middlewareRawSrc',
  'override',
  'handle',
]);
const PHASES = new Set(['filesystem', 'error']);

/**
 * Serve a Build Output API v3 folder on a free loopback port. Every function is started first (so
 * one that cannot load rejects here, with its error); `env` is the deployment's environment on top
 * of what Vercel sets for production.
 */
export async function serveVercelOutput(
  outputDir: string,
  env: { SITE_URL: string } & Record<string, string>,
): Promise<VercelDeployment> {
  const config = JSON.parse(await readFile(join(outputDir, 'config.json'), 'utf8')) as BuildOutputConfig;
  const phases = routePhases(config);
  const found = await findFunctions(join(outputDir, 'functions'));
  const host = new URL(env.SITE_URL).host;
  const functionEnv = {
    VERCEL_URL: `rates-${randomUUID().slice(0, 8)}.vercel.app`,
    VERCEL_PROJECT_PRODUCTION_URL: host,
    ...env,
  };
  const problems: string[] = [];
  const started = await Promise.allSettled(found.map((fn) => startFunction(fn.name, fn.dir, functionEnv, problems)));
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []));
  if (failed.length) {
    await Promise.all(running.map((fn) => fn.stop()));
    throw new Error(failed.map((e) => e.message).join('\n\n'));
  }
  const deployment = {
    host,
    config,
    functions: found.map(({ name, bytes }) => ({ name, bytes })),
    invocations: [] as Invocation[],
    problems,
  };
  const router = new Router(outputDir, config, phases, new Map(running.map((fn) => [fn.name, fn])), {
    host,
    deploymentUrl: functionEnv.VERCEL_URL,
    invocations: deployment.invocations,
    problems,
  });
  const server = createServer((req, res) => {
    router.handle(req, res).catch((error: Error) => {
      problems.push(`router: ${req.method} ${req.url}: ${error.stack ?? error}`);
      if (res.headersSent) return void res.destroy(error);
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(`router failure: ${error.message}\n`);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    ...deployment,
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      await Promise.all(running.map((fn) => fn.stop()));
    },
  };
}

/** The routes grouped by phase (`null` before the first `handle`), refusing what is not implemented. */
function routePhases(config: BuildOutputConfig): Map<string | null, Route[]> {
  if (config.version !== 3)
    throw new Error(`config.json version ${config.version}: only the Build Output API v3 is served`);
  const phases = new Map<string | null, Route[]>([[null, []]]);
  let phase: string | null = null;
  for (const route of config.routes ?? []) {
    const unknown = Object.keys(route).filter((key) => !ROUTE_KEYS.has(key));
    if (unknown.length) throw new Error(`route ${JSON.stringify(route)} uses ${unknown.join(', ')}: not implemented`);
    if (route.handle) {
      if (!PHASES.has(route.handle)) throw new Error(`routes phase "handle: ${route.handle}": not implemented`);
      phases.set((phase = route.handle), []);
    } else phases.get(phase)!.push(route);
  }
  return phases;
}

/** Every `.func` folder under `functions/` (its name is its path there), with its size in bytes. */
async function findFunctions(dir: string): Promise<{ name: string; dir: string; bytes: number }[]> {
  const found: { name: string; dir: string; bytes: number }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isDirectory() || !entry.name.endsWith('.func')) continue;
    const path = join(entry.parentPath, entry.name);
    found.push({ name: relative(dir, path).slice(0, -'.func'.length), dir: path, bytes: await folderBytes(path) });
  }
  return found;
}

/** The bytes of every file under `dir`; a symbolic link would reach outside the shipped files, so it fails. */
async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) throw new Error(`${path} is a symbolic link: a function ships files, not links`);
    if (entry.isFile()) bytes += (await lstat(path)).size;
  }
  return bytes;
}

export interface RunningFunction {
  name: string;
  agent: Agent;
  port: number;
  /** The function's process (the bench reads its CPU time and memory from /proc). */
  pid: number;
  stop(): Promise<void>;
}

/**
 * One function in its own process, as on Vercel: cwd its `.func` folder (Vercel's /var/task),
 * reads allowed there and nowhere else (Node's permission model), a private writable tmp (Lambda's
 * /tmp), and the environment of a production deployment. Resolves once the launcher has imported
 * the handler and listens; rejects with what it printed when it exits first.
 */
export async function startFunction(
  name: string,
  dir: string,
  env: Record<string, string>,
  problems: string[],
): Promise<RunningFunction> {
  const vcConfig = JSON.parse(await readFile(join(dir, '.vc-config.json'), 'utf8')) as {
    environment?: Record<string, string>;
  };
  const tmp = await mkdtemp(join(tmpdir(), 'rates-vercel-tmp-'));
  const child = fork(LAUNCHER, [], {
    cwd: dir,
    execPath: process.execPath, // the repository's Node 24, as the functions' runtime nodejs24.x
    execArgv: ['--permission', `--allow-fs-read=${dir}`, `--allow-fs-read=${LAUNCHER}`, `--allow-fs-write=${tmp}`],
    env: {
      PATH: process.env.PATH,
      LANG: 'en_US.UTF-8',
      TZ: 'UTC',
      TMPDIR: tmp,
      NODE_ENV: 'production',
      VERCEL: '1',
      VERCEL_ENV: 'production',
      VERCEL_REGION: 'dev1',
      ...env,
      ...vcConfig.environment,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const port = await readyPort(child, name, () => output).catch(async (error: Error) => {
    await rm(tmp, { recursive: true, force: true });
    throw error;
  });
  child.on('message', (message: { failure?: string }) => {
    if (message.failure) problems.push(`function ${name}: ${message.failure}`);
  });
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) problems.push(`function ${name} exited (${code ?? signal}) while serving:\n${output}`);
  });
  const agent = new Agent({ keepAlive: true });
  return {
    name,
    agent,
    port,
    pid: child.pid!,
    async stop() {
      stopping = true;
      agent.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** The port the launcher reports, or its failure to load, with everything it printed. */
function readyPort(child: ChildProcess, name: string, output: () => string): Promise<number> {
  return new Promise((done, fail) => {
    const onExit = (code: number | null, signal: string | null) =>
      // Let the last of stderr arrive before quoting it.
      setImmediate(() => fail(new Error(`function ${name} did not load (exit ${code ?? signal}):\n${output()}`)));
    child.once('exit', onExit);
    child.once('message', (message: { ready?: number }) => {
      child.off('exit', onExit);
      if (typeof message.ready === 'number') done(message.ready);
      else fail(new Error(`function ${name}: unexpected first message ${JSON.stringify(message)}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The router

/** What the routing has decided so far for one request. */
interface RouteState {
  path: string;
  /** Query parameters the `dest` of a route adds to the request's own. */
  destQuery: URLSearchParams;
  /** Headers the routes add to the answer (`headers` routes; `$1` captures filled). */
  routeHeaders: Headers;
  /** Headers the middleware adds to the answer, cache hits included. */
  middlewareHeaders: Headers;
  status?: number;
}

/** Where a path leads in the output: a static file or a function. */
type Target = { file: string; contentType: string } | { function: string };

/** A complete answer decided by the routing itself (a middleware's own response). */
interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/** Headers a middleware answer carries that are about its own message, never added to the final answer. */
const MIDDLEWARE_OWN = new Set(['content-length', 'content-type', 'date', ...HOP_BY_HOP]);

/** The `x-middleware-*` instructions the router follows: continue, or continue at another path. */
const MIDDLEWARE_FLOW = new Set(['x-middleware-next', 'x-middleware-rewrite']);

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.atom': 'application/atom+xml; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

class Router {
  private readonly staticDir: string;
  /** Served path (no leading slash) → file under static/, from config.json `overrides`. */
  private readonly overrides = new Map<string, { file: string; contentType?: string }>();
  /** Files `overrides` moved to another path: no longer served at their own. */
  private readonly moved = new Set<string>();

  constructor(
    outputDir: string,
    config: BuildOutputConfig,
    private readonly phases: Map<string | null, Route[]>,
    private readonly functions: Map<string, RunningFunction>,
    private readonly context: { host: string; deploymentUrl: string; invocations: Invocation[]; problems: string[] },
  ) {
    this.staticDir = join(outputDir, 'static');
    for (const [file, { path, contentType }] of Object.entries(config.overrides ?? {})) {
      this.overrides.set(path ?? file, { file, contentType });
      if (path !== undefined && path !== file) this.moved.add(file);
    }
  }

  /**
   * The phases in Vercel's order: the routes before the first `handle` (`headers` routes with
   * `continue`, middleware), then `handle: filesystem` (a static file or function at the path),
   * then the routes after it, whose `dest` names a function or file; when nothing is found, the
   * `handle: error` routes for the 404.
   */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(`http://router${req.url ?? '/'}`);
    const state: RouteState = {
      path: url.pathname,
      destQuery: new URLSearchParams(),
      routeHeaders: new Headers(),
      middlewareHeaders: new Headers(),
    };
    const first = await this.runPhase(this.phases.get(null)!, state, req, url);
    if ('answer' in first) return this.sendAnswer(res, first.answer, state, true);
    let target = await this.resolve(state.path); // handle: filesystem
    if (!target) {
      const after = await this.runPhase(this.phases.get('filesystem') ?? [], state, req, url);
      if ('answer' in after) return this.sendAnswer(res, after.answer, state, true);
      if (after.matched) target = await this.resolve(state.path);
    }
    if (!target) target = await this.errorPhase(state, req, url);
    if (!target) return this.sendAnswer(res, notFound(), state, true);
    if ('file' in target) return this.sendFile(req, res, target, state);
    return this.callFunction(req, res, target.function, url, state);
  }

  /**
   * One phase's routes in order. A matching route adds its headers and status and moves the path
   * to its `dest`; a middleware route calls the middleware; without `continue` the phase ends there.
   */
  private async runPhase(
    routes: Route[],
    state: RouteState,
    req: IncomingMessage,
    url: URL,
    status?: number,
  ): Promise<{ matched: boolean } | { answer: Answer }> {
    for (const route of routes) {
      const match = matchRoute(route, state.path, req.method ?? 'GET');
      if (!match) continue;
      if (status !== undefined && route.status !== undefined && route.status !== status) continue;
      if (route.middlewarePath) {
        const answer = await this.callMiddleware(route.middlewarePath, req, url, state);
        if (answer) return { answer };
      }
      for (const [name, value] of Object.entries(route.headers ?? {})) state.routeHeaders.set(name, fill(value, match));
      if (route.status !== undefined) state.status = route.status;
      if (route.dest !== undefined) {
        const dest = new URL(fill(route.dest, match), 'http://router');
        state.path = dest.pathname;
        for (const [name, value] of dest.searchParams) state.destQuery.set(name, value);
      }
      if (!route.continue) return { matched: true };
    }
    return { matched: false };
  }

  /** The `handle: error` routes for a 404 (a route with a `status` applies to that status only). */
  private async errorPhase(state: RouteState, req: IncomingMessage, url: URL): Promise<Target | undefined> {
    state.status = 404;
    const result = await this.runPhase(this.phases.get('error') ?? [], state, req, url, 404);
    return 'matched' in result && result.matched ? this.resolve(state.path) : undefined;
  }

  /**
   * Call the middleware with the request's method, URL and headers. `x-middleware-next: 1` means
   * continue; `x-middleware-rewrite: <absolute URL>` (what `rewrite()` of @vercel/functions sends)
   * means continue with that URL's path and query in place of the request's, as Vercel and
   * `vercel dev` do: the routes after this one, the filesystem, then the routes after it, and a
   * function called with it. Either way its other headers are added to the final answer; without
   * either, its response is the answer. A rewrite to another host (a proxy) and the other
   * `x-middleware-*` instructions (request-header overrides) are not implemented: they fail the
   * request and are recorded, never ignored.
   */
  private async callMiddleware(name: string, req: IncomingMessage, url: URL, state: RouteState) {
    const response = await this.invoke(name, req.method ?? 'GET', `${url.pathname}${url.search}`, req, undefined);
    const body = await readAll(response);
    const headers = toHeaders(response.headers);
    const unknown = [...headers.keys()].filter((h) => h.startsWith('x-middleware-') && !MIDDLEWARE_FLOW.has(h));
    if (unknown.length) throw new Error(`middleware ${name} answered ${unknown.join(', ')}: not implemented`);
    const rewrite = headers.get('x-middleware-rewrite');
    if (rewrite === null && headers.get('x-middleware-next') !== '1') {
      return { status: response.statusCode!, headers, body };
    }
    if (rewrite !== null) {
      const target = new URL(rewrite); // absolute, as rewrite() requires
      if (target.host !== this.context.host) {
        throw new Error(`middleware ${name} rewrote to ${rewrite}: a rewrite to another host is not implemented`);
      }
      url.pathname = target.pathname;
      url.search = target.search;
      state.path = url.pathname;
    }
    for (const [header, value] of headers) {
      if (!header.startsWith('x-middleware-') && !MIDDLEWARE_OWN.has(header))
        state.middlewareHeaders.set(header, value);
    }
    return undefined;
  }

  /**
   * What `path` names in the output: a file under static/ (`overrides` first; a folder serves its
   * index.html), else a function of that name.
   */
  private async resolve(path: string): Promise<Target | undefined> {
    let name: string;
    try {
      name = decodeURIComponent(path).replace(/^\/+/, '');
    } catch {
      return undefined; // a malformed escape names nothing
    }
    const override = this.overrides.get(name.replace(/\/$/, ''));
    if (override) {
      const contentType = override.contentType ?? contentTypeOf(override.file);
      return { file: join(this.staticDir, override.file), contentType };
    }
    for (const candidate of [name, join(name, 'index.html')]) {
      const file = resolve(this.staticDir, candidate);
      if (!file.startsWith(this.staticDir + sep) || this.moved.has(relative(this.staticDir, file))) continue;
      if ((await lstat(file).catch(() => undefined))?.isFile()) return { file, contentType: contentTypeOf(file) };
    }
    const fn = name.replace(/\/$/, '');
    return this.functions.has(fn) ? { function: fn } : undefined;
  }

  private async sendFile(
    req: IncomingMessage,
    res: ServerResponse,
    target: { file: string; contentType: string },
    state: RouteState,
  ) {
    const body = await readFile(target.file);
    // Vercel's default for an answer without its own Cache-Control (vercel.com/docs/caching/cache-control-headers).
    const headers = new Headers({
      'cache-control': 'public, max-age=0, must-revalidate',
      'content-type': target.contentType,
    });
    const answer = { status: state.status ?? 200, headers, body: req.method === 'HEAD' ? Buffer.alloc(0) : body };
    this.sendAnswer(res, answer, state, false);
  }

  /** An answer the router has whole, with the routes' and the middleware's headers. */
  private sendAnswer(res: ServerResponse, answer: Answer, state: RouteState, ownWins: boolean) {
    const headers = finalHeaders(answer.headers, state, ownWins);
    headers.set('content-length', String(answer.body.byteLength));
    res.writeHead(answer.status, [...headers].flat()).end(answer.body);
  }

  /**
   * Call a function with the request's path and query (or the middleware's rewrite of them; a
   * `dest` only picks the function, its query merged in), the request's headers as Vercel forwards them and its body, and pipe the
   * answer chunk by chunk, recording what came out of the function.
   */
  private async callFunction(req: IncomingMessage, res: ServerResponse, name: string, url: URL, state: RouteState) {
    let search = url.search; // as sent, unless a `dest` adds parameters
    if (state.destQuery.size) {
      const query = new URLSearchParams(url.search);
      for (const [key, value] of state.destQuery) query.set(key, value);
      search = `?${query}`;
    }
    const called = performance.now();
    const response = await this.invoke(name, req.method ?? 'GET', `${url.pathname}${search}`, req, req);
    const headers = finalHeaders(toHeaders(response.headers), state, true);
    const invocation: Invocation = {
      function: name,
      method: req.method ?? 'GET',
      url: `${url.pathname}${search}`,
      status: response.statusCode!,
      bytes: 0,
      chunks: 0,
      streamed: response.headers['content-length'] === undefined,
    };
    this.context.invocations.push(invocation);
    res.writeHead(state.status ?? response.statusCode!, [...headers].flat());
    // Chunk by chunk at the caller's pace; a broken stream on either side fails the request.
    await pipeline(
      response,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          invocation.firstChunkMs ??= performance.now() - called;
          invocation.lastChunkMs = performance.now() - called;
          invocation.bytes += chunk.byteLength;
          invocation.chunks += 1;
          yield chunk;
        }
      },
      res,
    );
  }

  /** One HTTP request to a function's launcher, as Vercel's proxy forwards it to the function. */
  private invoke(
    name: string,
    method: string,
    path: string,
    req: IncomingMessage,
    body: Readable | undefined,
  ): Promise<IncomingMessage> {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`no function ${name} in the output`);
    const headers: IncomingHttpHeaders = {};
    for (const [header, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(header)) headers[header] = value;
    if (!body) delete headers['content-length'];
    // Vercel forwards the request as it reached the public domain, and says who asked.
    Object.assign(headers, {
      host: this.context.host,
      'x-forwarded-host': this.context.host,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1',
      'x-real-ip': req.socket.remoteAddress ?? '127.0.0.1',
      'x-vercel-id': `dev1::${randomUUID()}`,
      'x-vercel-deployment-url': this.context.deploymentUrl,
    });
    return new Promise((done, fail) => {
      const request = httpRequest({ host: '127.0.0.1', port: fn.port, agent: fn.agent, method, path, headers }, done);
      request.on('error', fail);
      if (body) body.pipe(request);
      else request.end();
    });
  }
}

/** The route's match of `path`, or undefined; `methods` must include the request's. Case-insensitive unless the route says. */
function matchRoute(route: Route, path: string, method: string): RegExpExecArray | undefined {
  if (route.src === undefined) return undefined;
  if (route.methods && !route.methods.some((m) => m.toUpperCase() === method)) return undefined;
  return new RegExp(route.src, route.caseSensitive ? '' : 'i').exec(path) ?? undefined;
}

/** `$1`, `$name` in a `dest` or header value, from the route's match (empty when the group did not take part). */
function fill(template: string, match: RegExpExecArray): string {
  return template.replace(/\$([1-9][0-9]*|[a-zA-Z_][a-zA-Z0-9_]*)/g, (_, key: string) =>
    /^\d+$/.test(key) ? (match[Number(key)] ?? '') : (match.groups?.[key] ?? ''),
  );
}

/**
 * The headers of the final answer. A function's own headers win over the routes' `headers`
 * (Vercel's caching docs: route headers "will be overridden by headers defined in Function
 * responses"); the routes' win over a static file's defaults (what vercel.json `headers` are for).
 * The middleware's come last: the headers it returns with `x-middleware-next` or a rewrite are
 * added to every answer, cache hits included (Vercel's Routing Middleware docs).
 */
function finalHeaders(own: Headers, state: RouteState, ownWins: boolean): Headers {
  const headers = new Headers();
  const layers = ownWins ? [state.routeHeaders, own] : [own, state.routeHeaders];
  for (const layer of [...layers, state.middlewareHeaders]) {
    for (const [name, value] of layer) {
      if (name === 'set-cookie') headers.append(name, value);
      else if (!HOP_BY_HOP.has(name)) headers.set(name, value);
    }
  }
  return headers;
}

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, one);
  }
  return headers;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Vercel's own 404, when neither the routes nor the filesystem name anything. */
function notFound(): Answer {
  return {
    status: 404,
    headers: new Headers({ 'content-type': 'text/plain; charset=utf-8', 'x-vercel-error': 'NOT_FOUND' }),
    body: Buffer.from('The page could not be found\n\nNOT_FOUND\n'),
  };
}
