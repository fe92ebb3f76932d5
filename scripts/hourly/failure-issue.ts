/**
 * Failures reach the maintainers: a red hourly run opens one GitHub issue labelled
 * `collection-failure` (or comments on the one already open) naming what failed, with the reason
 * the run printed and the run's link; the next good run comments which run recovered and closes it.
 *
 * It uses the workflow's own token (`permissions: issues: write`) and the plain REST API. The
 * issue is a side channel: every call is bounded, and a failure of the API is only a warning, so
 * the run's exit code and its output stay what the collection made them.
 */

import { cleanText, REASON_MAX_CHARS } from '../../src/lib/clean-text.ts';

export const LABEL = 'collection-failure';
/** Marks the issues this module opened: a person's issue carrying the label is never commented on or closed. */
export const MARKER = '<!-- hourly-collection-failure -->';
const DOCS_PATH = 'content/docs/deploying.md#when-a-run-fails';

/** What turned the run red: a dataset slug or a link of the chain (`push`, `deploy`…), and why. */
export interface RunFailure {
  subject: string;
  reason: string;
}

interface IssueTarget {
  /** The REST base, GITHUB_API_URL (https://api.github.com, or GHES's `…/api/v3`, or a test stand-in). */
  api: string;
  /** `owner/name`. */
  repository: string;
  token: string;
  runUrl: string;
  docsUrl: string;
  /** Time allowed for each request. */
  timeoutMs: number;
  /** Wait before the one retry of a GET or PATCH. */
  retryDelayMs: number;
}

export interface Reporter {
  log(line: string): void;
  warn(line: string): void;
}

/**
 * Where to report, or why not. The runner sets GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_SERVER_URL
 * and GITHUB_API_URL; the workflow passes GITHUB_TOKEN. Without them (a run on a laptop) there is
 * no issue to keep, so nothing is done.
 */
function issueTarget(env: NodeJS.ProcessEnv): IssueTarget | { skipped: string } {
  const missing = ['GITHUB_REPOSITORY', 'GITHUB_RUN_ID'].filter((name) => !env[name]?.trim());
  if (missing.length > 0) return { skipped: `not on GitHub Actions: ${missing.join(' and ')} not set` };
  if (!env.GITHUB_TOKEN?.trim()) return { skipped: 'GITHUB_TOKEN is not set' };
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  const repository = env.GITHUB_REPOSITORY!.trim();
  return {
    api: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    repository,
    token: env.GITHUB_TOKEN.trim(),
    runUrl: `${server}/${repository}/actions/runs/${env.GITHUB_RUN_ID!.trim()}`,
    docsUrl: `${server}/${repository}/blob/HEAD/${DOCS_PATH}`,
    timeoutMs: positive(env.FAILURE_ISSUE_TIMEOUT_MS, 10_000),
    retryDelayMs: 1_000,
  };
}

const positive = (raw: string | undefined, fallback: number) =>
  Number.isInteger(Number(raw)) && Number(raw) > 0 ? Number(raw) : fallback;

/** An ANSI escape sequence (a colour, a terminal title): dropped whole, so no `[31m` is left behind. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
const ANSI_ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-_])/g;

/**
 * Text from a page or a program, made safe for an issue: no ANSI escapes, then cleanText (every
 * other control, bidi or zero-width character a space: a stray NUL would be refused, an override
 * can make a line read differently from what it holds), cut to `max` characters.
 */
const clean = (text: string, max: number) => cleanText(text.replace(ANSI_ESCAPE, ''), max);

/** One line per failure, as the run printed it, cleaned and at most REASON_MAX_CHARS. */
function failureLines(failures: readonly RunFailure[]): string[] {
  return failures.map(({ subject, reason }) => clean(`${subject}: ${reason}`, REASON_MAX_CHARS));
}

/**
 * The lines in a code block: a reason quoting a page then cannot ping anyone (`@name`) or format
 * anything; the fence is longer than any run of backticks inside.
 */
function codeBlock(lines: readonly string[]): string {
  const longest = Math.max(2, ...[...lines.join('\n').matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${lines.join('\n')}\n${fence}`;
}

function issueTitle(failures: readonly RunFailure[]): string {
  const subjects = [...new Set(failures.map((f) => clean(f.subject, 200).replace(/\s+/g, ' ').trim()))];
  return `Hourly collection failed: ${subjects.join(', ')}`.slice(0, 200);
}

function issueBody(target: IssueTarget, failures: readonly RunFailure[]): string {
  return [
    MARKER,
    `The hourly collection run ${target.runUrl} failed:`,
    '',
    codeBlock(failureLines(failures)),
    '',
    `Each later run that fails adds a comment here; the next good run closes this issue. What to do: ${target.docsUrl}`,
  ].join('\n');
}

const againBody = (target: IssueTarget, failures: readonly RunFailure[]) =>
  `The run ${target.runUrl} failed too:\n\n${codeBlock(failureLines(failures))}`;

const recoveredBody = (target: IssueTarget) =>
  `Recovered: the run ${target.runUrl} collected every dataset and published what changed. Closing.`;

class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    /** Worth asking again: no answer, or a 5xx/429 (GitHub's own trouble or rate limit). */
    readonly transient = false,
  ) {
    super(message);
  }
}

/**
 * One REST call, bounded by a timeout. GET and PATCH (to the same state) may be repeated safely,
 * so they get one retry after a transient failure; a POST does not, since a POST that timed out
 * may still have opened the issue, and a duplicate is what this module is against.
 */
async function call(target: IssueTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  try {
    return await request(target, method, path, body);
  } catch (error) {
    if (method === 'POST' || !(error instanceof ApiError && error.transient)) throw error;
    await new Promise((done) => setTimeout(done, target.retryDelayMs));
    return request(target, method, path, body);
  }
}

async function request(target: IssueTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  const what = `${method} ${path.split('?')[0]}`;
  let response: Response;
  try {
    // Joined as text, not `new URL(path, api)`: that would drop the `/api/v3` of a GHES base.
    response = await fetch(`${target.api}${path}`, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${target.token}`,
        'content-type': 'application/json',
        // GitHub refuses requests without a User-Agent.
        'user-agent': 'nz-rates-hourly',
        'x-github-api-version': '2022-11-28',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    const why = e.name === 'TimeoutError' ? `no answer within ${target.timeoutMs} ms` : (e.cause?.code ?? e.message);
    throw new ApiError(`${what}: ${why}`, true);
  }
  const text = await response.text().catch(() => '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  if (!response.ok) {
    // GitHub's `message` says what is wrong, e.g. "Resource not accessible by integration" (no issues: write).
    const said = (json as { message?: unknown } | undefined)?.message;
    const message = typeof said === 'string' ? `: ${clean(said, 200)}` : '';
    throw new ApiError(`${what}: HTTP ${response.status}${message}`, response.status >= 500 || response.status === 429);
  }
  return json;
}

/** The fields read from GitHub's issue objects. */
interface Issue {
  number: number;
  html_url?: string;
  body?: string | null;
  /** Present when the "issue" is a pull request. */
  pull_request?: unknown;
}

/** Our open issues, oldest first; pull requests (which the issues API also lists) left out. */
async function openIssues(target: IssueTarget): Promise<Issue[]> {
  const query = `state=open&labels=${LABEL}&per_page=100&sort=created&direction=asc`;
  const listed = await call(target, 'GET', `${issuesPath(target)}?${query}`);
  if (!Array.isArray(listed)) throw new ApiError('GET issues: the answer is not a list');
  return (listed as Issue[]).filter((i) => !i.pull_request && i.body?.includes(MARKER));
}

/**
 * Tell the maintainers how this run went: on failures, comment on our open issue or open one; on
 * a good run, close every open one of ours with a comment. Never throws: a problem with the API
 * is a warning, and the run's own result stands.
 */
export async function reportToIssue(
  env: NodeJS.ProcessEnv,
  failures: readonly RunFailure[],
  out: Reporter,
): Promise<void> {
  const target = issueTarget(env);
  if ('skipped' in target) return out.log(`failure issue: skipped (${target.skipped})`);
  try {
    const open = await openIssues(target);
    if (failures.length === 0) await closeAll(target, open, out);
    else if (open[0]) await commentOn(target, open[0], failures, out);
    else await openOne(target, failures, out);
  } catch (error) {
    out.warn(
      `could not update the ${LABEL} issue (${(error as Error).message}); the run's own result is unchanged, see the log above`,
    );
  }
}

const issuesPath = (target: IssueTarget) => `/repos/${target.repository}/issues`;

async function openOne(target: IssueTarget, failures: readonly RunFailure[], out: Reporter) {
  const created = (await call(target, 'POST', issuesPath(target), {
    title: issueTitle(failures),
    body: issueBody(target, failures),
    labels: [LABEL],
  })) as Issue;
  out.log(`failure issue: opened #${created.number} ${created.html_url ?? ''}`.trimEnd());
}

/** A failure while one is open: one issue for the whole outage, one comment per failing run. */
async function commentOn(target: IssueTarget, issue: Issue, failures: readonly RunFailure[], out: Reporter) {
  await call(target, 'POST', `${issuesPath(target)}/${issue.number}/comments`, { body: againBody(target, failures) });
  out.log(`failure issue: commented on #${issue.number}, still open`);
}

/** A good run closes every open issue of ours (normally one), saying which run recovered. */
async function closeAll(target: IssueTarget, open: readonly Issue[], out: Reporter) {
  if (open.length === 0) return out.log('failure issue: none open, nothing to close');
  for (const issue of open) {
    const path = `${issuesPath(target)}/${issue.number}`;
    await call(target, 'POST', `${path}/comments`, { body: recoveredBody(target) });
    await call(target, 'PATCH', path, { state: 'closed', state_reason: 'completed' });
    out.log(`failure issue: closed #${issue.number}, this run recovered`);
  }
}
