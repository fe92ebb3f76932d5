/**
 * A local stand-in for the part of GitHub's REST API the failure issue uses: list a repository's
 * issues (state and label filters), open one, comment on one, close one. Issues and comments live
 * in memory; like GitHub it wants `Authorization: Bearer <token>` and a User-Agent, answers only
 * for its one repository, and can be told to fail (500) or never answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface StoredIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  state: 'open' | 'closed';
  state_reason: string | null;
  /** Set on a pull request, which GitHub's issues API lists too. */
  pull_request?: { url: string };
  comments: string[];
}

/** A failure to inject: an HTTP status, or no answer at all; only for `method` when given. */
export type Fault = ({ status: number } | { hang: true }) & { method?: string };

export interface GitHubStandIn {
  /** What GITHUB_API_URL holds. */
  url: string;
  token: string;
  repository: string;
  issues: StoredIssue[];
  /** Every request, as `METHOD /path?query`. */
  requests: string[];
  /** Make every request fail this way, or (undefined) answer normally. */
  fault: Fault | undefined;
  /** Add an issue as someone else opened it (a person, a pull request). */
  add(issue: Partial<StoredIssue> & { title: string }): StoredIssue;
  /** The environment a run needs to report here, as the runner and the workflow set it. */
  env(runId: string): Record<string, string>;
  reset(): void;
  close(): Promise<void>;
}

const SERVER_URL = 'https://github.example';

type Send = (status: number, body: unknown) => void;

export async function startGitHubStandIn(options: { repository?: string; token?: string } = {}) {
  const repository = options.repository ?? 'nz-rates/rates';
  const token = options.token ?? 'ghs_standin_token';
  const sockets = new Set<Socket>();
  /** Connections of requests left unanswered (a hang), closed by reset. */
  const hung = new Set<Socket>();
  const issues: StoredIssue[] = [];
  const requests: string[] = [];

  const shown = (issue: StoredIssue) => ({
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    state_reason: issue.state_reason,
    labels: issue.labels.map((name) => ({ name })),
    html_url: `${SERVER_URL}/${repository}/${issue.pull_request ? 'pull' : 'issues'}/${issue.number}`,
    comments: issue.comments.length,
    ...(issue.pull_request && { pull_request: issue.pull_request }),
  });

  const add = (issue: Partial<StoredIssue> & { title: string }): StoredIssue => {
    const stored: StoredIssue = {
      number: issues.length + 1,
      body: '',
      labels: [],
      state: 'open',
      state_reason: null,
      comments: [],
      ...issue,
    };
    issues.push(stored);
    return stored;
  };

  function list(query: URLSearchParams, send: Send) {
    const state = query.get('state') ?? 'open';
    const labels = (query.get('labels') ?? '').split(',').filter(Boolean);
    const found = issues.filter(
      (i) => (state === 'all' || i.state === state) && labels.every((label) => i.labels.includes(label)),
    );
    send(200, found.map(shown));
  }

  function route(method: string, path: string, query: URLSearchParams, body: any, send: Send) {
    const match = /^\/repos\/([^/]+\/[^/]+)\/issues(?:\/(\d+)(\/comments)?)?$/.exec(path);
    if (!match || match[1] !== repository) return send(404, { message: 'Not Found' });
    const [, , number, comments] = match;
    if (!number && method === 'GET') return list(query, send);
    if (!number && method === 'POST') {
      if (typeof body?.title !== 'string' || !body.title) return send(422, { message: 'Validation Failed' });
      const labels = Array.isArray(body.labels) ? body.labels.map(String) : [];
      return send(201, shown(add({ title: body.title, body: String(body.body ?? ''), labels })));
    }
    const issue = issues.find((i) => i.number === Number(number));
    if (!issue) return send(404, { message: 'Not Found' });
    if (comments && method === 'POST') {
      if (typeof body?.body !== 'string') return send(422, { message: 'Validation Failed' });
      issue.comments.push(body.body);
      return send(201, { id: issue.comments.length, body: body.body });
    }
    if (!comments && method === 'PATCH') {
      if (body?.state === 'open' || body?.state === 'closed') issue.state = body.state;
      if (typeof body?.state_reason === 'string') issue.state_reason = body.state_reason;
      return send(200, shown(issue));
    }
    send(404, { message: 'Not Found' });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const fault = standIn.fault && (!standIn.fault.method || standIn.fault.method === req.method) && standIn.fault;
    if (fault && 'hang' in fault) return void hung.add(req.socket);
    const send: Send = (status, body) =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (fault) return send(fault.status, { message: 'Server Error (stand-in fault)' });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { message: 'Bad credentials' });
    if (!req.headers['user-agent']) return send(403, { message: 'Request forbidden: a User-Agent is required' });
    let body: unknown;
    try {
      body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      return send(400, { message: 'Problems parsing JSON' });
    }
    route(req.method ?? 'GET', url.pathname, url.searchParams, body, send);
  }

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const standIn: GitHubStandIn = {
    url,
    token,
    repository,
    issues,
    requests,
    fault: undefined,
    add,
    env: (runId) => ({
      GITHUB_TOKEN: token,
      GITHUB_REPOSITORY: repository,
      GITHUB_SERVER_URL: SERVER_URL,
      GITHUB_RUN_ID: runId,
      GITHUB_API_URL: url,
    }),
    reset() {
      issues.length = 0;
      requests.length = 0;
      standIn.fault = undefined;
      // A request left hanging by a test must not linger into the next one. (Idle keep-alive
      // connections stay: closing them would make the next test's first request fail.)
      for (const socket of hung) socket.destroy();
      hung.clear();
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
  return standIn;
}

/** The link GitHub gives a run (what the failure issue must carry). */
export const runLink = (standIn: GitHubStandIn, runId: string) =>
  `${SERVER_URL}/${standIn.repository}/actions/runs/${runId}`;
