/**
 * The failure issue's own rules, against the GitHub stand-in over a real socket: when it is
 * skipped, which issues are ours, what a title and body may carry, and how its calls are bounded.
 * The whole chain reporting through it: test/deploy-chain.test.ts ("failures reach the maintainers").
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LABEL, MARKER, reportToIssue, type RunFailure } from '../scripts/hourly/failure-issue.ts';
import { DATASETS } from '../src/datasets.ts';
import { REASON_MAX_CHARS } from '../src/lib/clean-text.ts';
import { type GitHubStandIn, runLink, startGitHubStandIn } from './support/github-stand-in.ts';

let github: GitHubStandIn;
let said: { log: string[]; warn: string[] };

beforeAll(async () => {
  github = await startGitHubStandIn();
});
afterAll(async () => {
  await github?.close();
});
beforeEach(() => {
  github.reset();
  said = { log: [], warn: [] };
});

const out = () => ({ log: (line: string) => said.log.push(line), warn: (line: string) => said.warn.push(line) });
const report = (failures: RunFailure[], env: Record<string, string | undefined> = github.env('101')) =>
  reportToIssue(env, failures, out());
/** A dataset's failure, as the hourly run reports it (any dataset: its slug is the subject). */
const FAILED = DATASETS.at(-1)!;
const HTTP_500: RunFailure = {
  subject: FAILED.slug,
  reason: `FAILED: HTTP 500 from http://127.0.0.1:1${FAILED.sourcePath}; nothing written, the newest snapshot is kept`,
};

describe('when there is nothing to report to', () => {
  it.each([
    ['no token', { GITHUB_TOKEN: undefined }, 'skipped (GITHUB_TOKEN is not set)'],
    ['an empty token (a secret that is not set)', { GITHUB_TOKEN: '' }, 'skipped (GITHUB_TOKEN is not set)'],
    [
      'not on GitHub Actions',
      { GITHUB_REPOSITORY: undefined, GITHUB_RUN_ID: undefined },
      'skipped (not on GitHub Actions: GITHUB_REPOSITORY and GITHUB_RUN_ID not set)',
    ],
  ])('%s: it says it is skipped and sends nothing', async (_, change, line) => {
    await report([HTTP_500], { ...github.env('101'), ...change });
    expect(said.log).toEqual([`failure issue: ${line}`]);
    expect(said.warn).toEqual([]);
    expect(github.requests).toEqual([]);
  });
});

describe('which issue is ours', () => {
  it("a person's issue with the label, and a pull request, are never commented on or closed", async () => {
    const person = github.add({ title: 'Collection looks slow', body: 'see the logs', labels: [LABEL] });
    const pull = github.add({
      title: 'Fix the parser',
      body: MARKER,
      labels: [LABEL],
      pull_request: { url: 'https://github.example/pulls/2' },
    });

    await report([HTTP_500]);
    expect(github.issues).toHaveLength(3);
    const ours = github.issues[2]!;
    expect(ours.labels).toEqual([LABEL]);
    expect(ours.body.startsWith(MARKER)).toBe(true);
    expect(said.log).toEqual([`failure issue: opened #3 https://github.example/${github.repository}/issues/3`]);

    await report([]);
    expect(ours.state).toBe('closed');
    for (const other of [person, pull]) {
      expect(other.state).toBe('open');
      expect(other.comments).toEqual([]);
    }
    // The list is asked for by label, open ones only.
    expect(github.requests[0]).toMatch(
      new RegExp(`^GET /repos/${github.repository}/issues\\?state=open&labels=${LABEL}&`),
    );
  });
});

describe('what an issue carries', () => {
  it('no ANSI escapes, control characters or bidi overrides in the title or body; reasons fenced so they format and mention nothing', async () => {
    await report([
      {
        subject: `${DATASETS[0].slug}\u001b[31m`,
        reason:
          'FAILED: 1 rate(s) outside 0–40 %: \u001b[1;31mbank\u0007\u0000\u202e-x\u001b]0;title\u0007 = 45 ```@maintainer```',
      },
    ]);
    const [issue] = github.issues;
    expect(issue!.title).toBe(`Hourly collection failed: ${DATASETS[0].slug}`);
    // An escape sequence is dropped whole; any other control or bidi character is a space (src/lib/clean-text.ts).
    expect(issue!.body).toContain(
      `${DATASETS[0].slug}: FAILED: 1 rate(s) outside 0–40 %: bank   -x = 45 \`\`\`@maintainer\`\`\``,
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that there are none.
    expect(`${issue!.title}${issue!.body}`).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    // The fence is longer than the backticks inside, so the mention stays code.
    expect(issue!.body).toMatch(new RegExp(`\\n\`\`\`\`text\\n${DATASETS[0].slug}: .*\\n\`\`\`\`\\n`));
    expect(issue!.body).toContain(runLink(github, '101'));
  });

  it('a 2 MB reason (a refused page quoting its title) is quoted clean and cut to REASON_MAX_CHARS, in the issue and in each comment', async () => {
    const title = 'Rates\u001b[31m\n::error::spoofed\u202eevil\u200b'.repeat(80_000); // ≈ 2.2 MB
    const huge: RunFailure = { subject: FAILED.slug, reason: `FAILED: refused (the page's title is "${title}")` };
    await report([huge, HTTP_500]);
    await report([huge]);
    const [issue] = github.issues;
    for (const body of [issue!.body, issue!.comments[0]!]) {
      const quoted = body.split('\n').filter((line) => line.startsWith(`${FAILED.slug}: FAILED: refused`));
      expect(quoted).toHaveLength(1);
      expect(quoted[0]!.length).toBe(REASON_MAX_CHARS);
      expect(quoted[0]!.endsWith('…')).toBe(true);
      expect(body.length).toBeLessThan(3 * REASON_MAX_CHARS);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that there are none.
      expect(body).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u202e]/);
      // No line of the issue starts a workflow command: the reason's newlines are spaces.
      expect(body).not.toMatch(/^::error::/m);
    }
    expect(issue!.body).toContain(`${HTTP_500.subject}: ${HTTP_500.reason}`);
  });
});

describe('the API failing never reaches the run', () => {
  it('a wrong token: a warning naming what GitHub said, nothing thrown', async () => {
    await report([HTTP_500], { ...github.env('101'), GITHUB_TOKEN: 'ghs_wrong' });
    expect(said.warn).toEqual([
      `could not update the ${LABEL} issue (GET /repos/${github.repository}/issues: HTTP 401: Bad credentials); the run's own result is unchanged, see the log above`,
    ]);
    expect(github.issues).toEqual([]);
  });

  it('a listing that answers 500 is asked once more, then a warning', async () => {
    github.fault = { status: 500 };
    await report([HTTP_500]);
    expect(github.requests.map((r) => r.split('?')[0])).toEqual([
      `GET /repos/${github.repository}/issues`,
      `GET /repos/${github.repository}/issues`,
    ]);
    expect(said.warn[0]).toMatch(/HTTP 500: Server Error \(stand-in fault\)/);
  });

  it('an opening POST that fails is not repeated: a retry could open the issue twice', async () => {
    github.fault = { status: 500, method: 'POST' };
    await report([HTTP_500]);
    expect(github.requests.filter((r) => r.startsWith('POST'))).toHaveLength(1);
    expect(said.warn[0]).toMatch(/POST \/repos\/.*\/issues: HTTP 500/);
  });

  it('an API that never answers is given up on within the timeout (twice, for a GET), then a warning', async () => {
    github.fault = { hang: true };
    const started = Date.now();
    await report([HTTP_500], { ...github.env('101'), FAILURE_ISSUE_TIMEOUT_MS: '200' });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(github.requests).toHaveLength(2);
    expect(said.warn[0]).toMatch(/GET \/repos\/.*\/issues: no answer within 200 ms/);
  });
});
