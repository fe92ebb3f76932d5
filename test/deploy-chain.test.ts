/**
 * The hourly deploy chain end to end: the real `npm run hourly` against a real bare git "origin"
 * and a depth-1 clone of it (as actions/checkout makes), the local stand-in for interest.co.nz,
 * a local stand-in for Vercel's deploy hook and production health, and one for GitHub's issues API
 * (the failure issue). Races and rejections are made to happen for real with git hooks; nothing
 * is mocked.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import {
  cloneOrigin,
  commitToOrigin,
  git,
  makeOrigin,
  originFile,
  originFiles,
  originLog,
  raceOnFirstPush,
  rejectEveryPush,
  type Origin,
} from './support/git-origin.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { ROOT } from './support/constants.ts';
import {
  allRates,
  firstRate,
  moveLineSource,
  newestDates,
  newestSnapshots,
  newestTexts,
  type SnapshotFile,
  tempDir,
  withFirstRateMoved,
} from './support/history.ts';
import { type GitHubStandIn, runLink, startGitHubStandIn } from './support/github-stand-in.ts';
import { serveSourcePages, startSourceServer, type SourceServer } from './support/source-server.ts';
import { startVercelStandIn, type VercelStandIn } from './support/vercel-stand-in.ts';

// Each case spawns npm, tsx, the collector and git several times; a loaded machine needs room.
vi.setConfig({ testTimeout: 120_000 });

const BOT = 'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>';
/** The dataset whose rate changes in a run, and the one whose page fails. */
const A = DATASETS[0];
const B = DATASETS.at(-1)!;
const NEWEST = newestDates();
const FAILING_PATH = B.sourcePath;
const SNAPSHOT = new RegExp(`^snapshots/${A.slug}/(\\d{4}-\\d{2}-\\d{2})\\.json$`);
/** Our collection moves A's first rate by OURS points; a racing one by THEIRS. */
const OURS = 0.6;
const THEIRS = 0.5;

let source: SourceServer;
let vercel: VercelStandIn;
let github: GitHubStandIn;
let newest: Record<DatasetSlug, SnapshotFile>;
let seed: Record<string, string>;

/** A's newest data with its first rate moved by `delta`, and that rate's value after the move and before it. */
const changed = (delta: number) => withFirstRateMoved(newest[A.slug].data, delta).data;
const valueAfter = (delta: number) => withFirstRateMoved(newest[A.slug].data, delta).value;
const valueBefore = () => firstRate(newest[A.slug].data).value;
/** The first rate of a snapshot, the one `changed` moves. */
const movedRate = (snapshot: { data: any[] }) => firstRate(snapshot.data).value;
const snapshotText = (type: string, data: unknown, lastUpdated: string) =>
  `${JSON.stringify({ type, data, lastUpdated }, null, 2)}\n`;

/** The source pages of the newest data, `data` replacing a dataset's. */
function servePages(data: Partial<Record<DatasetSlug, any[]>> = {}) {
  serveSourcePages(source, (slug) => data[slug] ?? newest[slug].data);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `npm run hourly` on `clone`. The environment is built from scratch (PATH and HOME only from
 * outside), so GITHUB_ACTIONS, CI, BLOB_READ_WRITE_TOKEN, SITE_URL… of the machine running the
 * suite cannot change what the chain does; `undefined` in `env` removes a default.
 */
async function hourly(
  clone: string,
  origin: Origin,
  env: Record<string, string | undefined> = {},
  args: string[] = [],
): Promise<Run> {
  const merged: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...origin.gitEnv,
    INTEREST_BASE_URL: source.url,
    SNAPSHOTS_DIR: join(clone, 'snapshots'),
    STATUS_DIR: await tempDir('rates-status-'),
    COLLECT_TIMEOUT_MS: '3000',
    COLLECT_RETRIES: '0',
    COLLECT_RETRY_DELAY_MS: '5',
    VERCEL_DEPLOY_HOOK_URL: vercel.hookUrl,
    HOURLY_PUSH_RETRY_DELAY_MS: '10',
    DEPLOY_HOOK_RETRY_DELAY_MS: '10',
    ...env,
  };
  const clean = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
  return promisify(execFile)('npm', ['run', '--silent', 'hourly', '--', '--repo', clone, ...args], {
    cwd: ROOT,
    env: clean,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
}

/** A fresh origin seeded with each dataset's newest real snapshot, and a CI-like clone of it. */
async function repository(extraSeed: Record<string, string> = {}) {
  const origin = await makeOrigin({ ...seed, ...extraSeed });
  return { origin, clone: await cloneOrigin(origin) };
}

/** The date of A's snapshot a commit wrote. */
function dateOf(files: string[]): string {
  const match = files.map((f) => SNAPSHOT.exec(f)).find(Boolean);
  expect(match, `a snapshot of ${A.slug} in ${files.join(', ')}`).toBeTruthy();
  return match![1]!;
}

async function expectNoConflictMarkers(origin: Origin) {
  for (const path of await originFiles(origin)) {
    const text = await originFile(origin, path);
    expect(text, path).not.toMatch(/^(<{7}|={7}|>{7})/m);
    if (path.endsWith('.json')) expect(() => JSON.parse(text), path).not.toThrow();
  }
}

beforeAll(async () => {
  source = await startSourceServer();
  vercel = await startVercelStandIn();
  github = await startGitHubStandIn();
  newest = await newestSnapshots();
  seed = { 'README.md': '# rates\n' };
  for (const [slug, text] of Object.entries(await newestTexts()))
    seed[`snapshots/${slug}/${NEWEST[slug as DatasetSlug]}.json`] = text;
});
afterAll(async () => {
  await source?.close();
  await vercel?.close();
  await github?.close();
});
beforeEach(() => {
  vercel.reset();
  github.reset();
  source.requests.length = 0;
  servePages();
});

describe('a normal hour', () => {
  it('(a) a change: one commit on origin by the bot with the summary as message, only snapshots/, and one deploy', async () => {
    const { origin, clone } = await repository();
    await writeFile(join(clone, 'scratch.txt'), 'an untracked file outside snapshots/ is never committed\n');
    servePages({ [A.slug]: changed(OURS) });

    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);

    const log = await originLog(origin);
    expect(log).toHaveLength(2);
    const [ours] = log;
    expect(ours!.author).toBe(BOT);
    expect(ours!.committer).toBe(BOT);
    const rate = firstRate(newest[A.slug].data);
    expect(ours!.message).toMatch(
      new RegExp(
        `^Rates \\d{4}-\\d{2}-\\d{2}: ${A.label} \\(1 moved\\)\\n\\n### ${A.title} — ${A.slug}/\\d{4}-\\d{2}-\\d{2}\\.json\\n\\n${moveLineSource(rate, valueBefore(), valueAfter(OURS))}$`,
      ),
    );
    const date = dateOf(ours!.files);
    expect(ours!.files).toEqual([`snapshots/${A.slug}/${date}.json`]);
    const written = JSON.parse(await originFile(origin, `snapshots/${A.slug}/${date}.json`));
    expect(movedRate(written)).toBe(valueAfter(OURS));
    expect(written.lastUpdated.slice(0, 10)).toBe(date);

    expect(vercel.deploys).toHaveLength(1);
    expect(run.stdout).toContain(`calling the deploy hook: pushed ${ours!.sha.slice(0, 7)}`);
    expect(run.stdout).toMatch(/deployment requested: job [0-9a-f-]{36} PENDING/);
  });

  it('(b) no change: no commit, no push, no deploy', async () => {
    const { origin, clone } = await repository();
    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    expect(source.requests.length).toBeGreaterThanOrEqual(4);
    expect(await originLog(origin)).toHaveLength(1);
    expect(vercel.deploys).toHaveLength(0);
    expect(run.stdout).toContain('no snapshot changed: nothing to commit or push');
    expect(run.stdout).toContain('nothing pushed and PRODUCTION_URL is not set: not deploying');
  });

  it('--no-push commits in the clone only: origin and production are untouched', async () => {
    const { origin, clone } = await repository();
    servePages({ [A.slug]: changed(OURS) });
    const run = await hourly(clone, origin, {}, ['--no-push']);
    expect(run.code, run.stderr).toBe(0);
    expect(await originLog(origin)).toHaveLength(1);
    expect(vercel.deploys).toHaveLength(0);
    expect((await git(clone, origin.gitEnv, 'log', '-1', '--format=%an <%ae>%n%s')).trim()).toMatch(
      new RegExp(`^github-actions\\[bot\\] .*\\nRates \\d{4}-\\d{2}-\\d{2}: ${A.label} \\(1 moved\\)$`),
    );
  });

  it('a work tree with uncommitted changes is refused before anything is fetched', async () => {
    const { origin, clone } = await repository();
    await writeFile(join(clone, 'README.md'), '# edited by hand\n');
    const run = await hourly(clone, origin);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/::error::.*has uncommitted changes/);
    expect(source.requests).toHaveLength(0);
  });
});

describe('racing commits', () => {
  it('(c) someone pushes another file between our commit and our push: both land, ours on top, deployed', async () => {
    const { origin, clone } = await repository();
    await raceOnFirstPush(clone, origin, { 'NOTES.md': 'pushed by a person meanwhile\n' }, 'Notes pushed meanwhile');
    servePages({ [A.slug]: changed(OURS) });

    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    const log = await originLog(origin);
    expect(log.map((c) => c.message.split('\n')[0])).toEqual([
      expect.stringMatching(new RegExp(`^Rates .*: ${A.label} \\(1 moved\\)$`)),
      'Notes pushed meanwhile',
      'Seed',
    ]);
    expect(log[0]!.author).toBe(BOT);
    expect(log[0]!.files).toEqual([`snapshots/${A.slug}/${dateOf(log[0]!.files)}.json`]);
    expect(await originFile(origin, 'NOTES.md')).toBe('pushed by a person meanwhile\n');
    expect(run.stdout).toMatch(/push attempt 1 of 3 failed/);
    expect(run.stdout).toMatch(/rebased our commit onto it/);
    expect(vercel.deploys).toHaveLength(1);
  });

  it('(d) a racing commit wrote the same snapshot file: the rebase conflict is aborted and our newer data saved on top by the write rules', async () => {
    const { origin, clone } = await repository();
    const theirs = changed(THEIRS);
    await raceOnFirstPush(
      clone,
      origin,
      {
        [`snapshots/${A.slug}/{{date}}.json`]: snapshotText(newest[A.slug]!.type, theirs, '{{date}}T00:00:00.000Z'),
      },
      'Rates collected elsewhere',
    );
    servePages({ [A.slug]: changed(OURS) });

    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/the rebase stopped on a conflict/);

    const log = await originLog(origin);
    expect(log.map((c) => c.message.split('\n')[0])).toEqual([
      expect.stringMatching(/^Rates /),
      'Rates collected elsewhere',
      'Seed',
    ]);
    const date = dateOf(log[0]!.files);
    const file = `snapshots/${A.slug}/${date}.json`;
    expect(log[1]!.files).toEqual([file]);
    expect(log[0]!.files).toEqual([file]);
    expect(log[0]!.author).toBe(BOT);
    // The summary now says what moved from the racing commit's data to ours.
    expect(log[0]!.message).toMatch(
      new RegExp(`^${moveLineSource(firstRate(newest[A.slug].data), valueAfter(THEIRS), valueAfter(OURS))}$`, 'm'),
    );

    const final = JSON.parse(await originFile(origin, file));
    expect(movedRate(final)).toBe(valueAfter(OURS));
    expect(final.lastUpdated > `${date}T00:00:00.000Z`).toBe(true);
    expect(final.data).toEqual(changed(OURS));
    // The racing version is still in history.
    expect(movedRate(JSON.parse(await git(origin.dir, origin.gitEnv, 'show', `${log[1]!.sha}:${file}`)))).toBe(
      valueAfter(THEIRS),
    );
    await expectNoConflictMarkers(origin);
    expect(existsSync(join(clone, '.git', 'rebase-merge')) || existsSync(join(clone, '.git', 'rebase-apply'))).toBe(
      false,
    );
    expect(vercel.deploys).toHaveLength(1);
  });

  it("(d') a racing edit git would merge cleanly into the same file is not trusted: the write rules decide", async () => {
    // Today's file exists already; a person fixes a rate in it while the collector replaces it.
    // The collector dates by the real UTC clock: keep the run clear of midnight.
    const msToMidnight = 86_400_000 - (Date.now() % 86_400_000);
    if (msToMidnight < 60_000) await new Promise((resolve) => setTimeout(resolve, msToMidnight + 1_000));
    const today = new Date().toISOString().slice(0, 10);
    const existing = snapshotText(newest[A.slug]!.type, newest[A.slug]!.data, `${today}T00:00:00.000Z`);
    const { origin, clone } = await repository({ [`snapshots/${A.slug}/${today}.json`]: existing });
    const edited = structuredClone(newest[A.slug]!.data);
    const middle = edited[Math.floor(edited.length / 2)]!;
    const [rate] = allRates([middle]);
    rate!.holder[rate!.key] = Math.round((rate!.value + 1) * 100) / 100;
    await raceOnFirstPush(
      clone,
      origin,
      {
        [`snapshots/${A.slug}/${today}.json`]: snapshotText(newest[A.slug]!.type, edited, `${today}T00:00:00.000Z`),
      },
      `Fix a rate of ${middle.name} by hand`,
    );
    servePages({ [A.slug]: changed(OURS) });

    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/not trusting git's line merge/);
    const log = await originLog(origin);
    expect(log.map((c) => c.message.split('\n')[0])).toEqual([
      expect.stringMatching(/^Rates /),
      `Fix a rate of ${middle.name} by hand`,
      'Seed',
    ]);
    expect(dateOf(log[0]!.files)).toBe(today);
    const final = JSON.parse(await originFile(origin, `snapshots/${A.slug}/${today}.json`));
    // Our collection, whole: the page is what the newest snapshot of the date records.
    expect(final.data).toEqual(changed(OURS));
    expect(final.lastUpdated > `${today}T00:00:00.000Z`).toBe(true);
    await expectNoConflictMarkers(origin);
    expect(vercel.deploys).toHaveLength(1);
  });

  it("(d'') a racing commit with a later collection of the same date supersedes ours by the write rules: nothing left to push", async () => {
    const { origin, clone } = await repository();
    await raceOnFirstPush(
      clone,
      origin,
      {
        [`snapshots/${A.slug}/{{date}}.json`]: snapshotText(
          newest[A.slug]!.type,
          changed(THEIRS),
          '{{date}}T23:59:59.999Z',
        ),
      },
      'A later collection of the same date',
    );
    servePages({ [A.slug]: changed(OURS) });

    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `${A.slug}: the remote already has a later collection \\(\\d{4}-\\d{2}-\\d{2}T23:59:59\\.999Z\\); ours \\(.*\\) is superseded`,
      ),
    );
    expect(run.stdout).toContain('nothing left to push');
    const log = await originLog(origin);
    expect(log.map((c) => c.message.split('\n')[0])).toEqual(['A later collection of the same date', 'Seed']);
    expect(movedRate(JSON.parse(await originFile(origin, log[0]!.files[0]!)))).toBe(valueAfter(THEIRS));
    expect(vercel.deploys).toHaveLength(0);
  });

  it('(i) pushes are bounded: a remote that refuses every push is tried 3 times, then the run fails without deploying', async () => {
    const { origin, clone } = await repository();
    const counter = await rejectEveryPush(origin);
    servePages({ [A.slug]: changed(OURS) });

    const run = await hourly(clone, origin);
    expect(run.code).toBe(1);
    expect((await readFile(counter, 'utf8')).trim().split('\n')).toHaveLength(3);
    expect(run.stderr).toMatch(
      /::error::Push failed: could not push to origin\/main after 3 attempts \(last error: .*refused by the test/,
    );
    expect(await originLog(origin)).toHaveLength(1);
    expect(vercel.deploys).toHaveLength(0);
  });
});

describe('failures turn the run red', () => {
  it('(e) a failed dataset: the good ones are committed, pushed and deployed, the failed snapshot untouched, exit 1', async () => {
    const { origin, clone } = await repository();
    servePages({ [A.slug]: changed(OURS) });
    source.serve(FAILING_PATH, { status: 500 });

    const run = await hourly(clone, origin);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${B.slug}: FAILED: HTTP 500`);
    expect(run.stderr).toContain('::error::Collection failed for at least one dataset');
    expect(source.requests.filter((r) => r.path === FAILING_PATH)).toHaveLength(1);

    const log = await originLog(origin);
    expect(log).toHaveLength(2);
    expect(log[0]!.files).toEqual([`snapshots/${A.slug}/${dateOf(log[0]!.files)}.json`]);
    const untouched = `snapshots/${B.slug}/${NEWEST[B.slug]}.json`;
    expect((await originFiles(origin)).filter((f) => f.startsWith(`snapshots/${B.slug}/`))).toEqual([untouched]);
    expect(await originFile(origin, untouched)).toBe(seed[untouched]);
    expect(vercel.deploys).toHaveLength(1);
  });

  it('(f) in CI, missing secrets fail the run before anything is fetched, naming each secret', async () => {
    const { origin, clone } = await repository();
    servePages({ [A.slug]: changed(OURS) });
    const run = await hourly(clone, origin, { GITHUB_ACTIONS: 'true', VERCEL_DEPLOY_HOOK_URL: undefined });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /^::error title=Missing secret BLOB_READ_WRITE_TOKEN::BLOB_READ_WRITE_TOKEN is not set\. It is the Vercel Blob status store/m,
    );
    expect(run.stderr).toMatch(
      /^::error title=Missing secret VERCEL_DEPLOY_HOOK_URL::VERCEL_DEPLOY_HOOK_URL is not set\. It is the Vercel deploy hook/m,
    );
    expect(source.requests).toHaveLength(0);
    expect(await originLog(origin)).toHaveLength(1);
    expect(vercel.deploys).toHaveLength(0);

    // --require-secrets does the same outside CI; an empty secret counts as missing, a set one is not named.
    const flagged = await hourly(
      clone,
      origin,
      { BLOB_READ_WRITE_TOKEN: 'vercel_blob_rw_x', VERCEL_DEPLOY_HOOK_URL: '' },
      ['--require-secrets'],
    );
    expect(flagged.code).not.toBe(0);
    expect(flagged.stderr).toContain('::error title=Missing secret VERCEL_DEPLOY_HOOK_URL::');
    expect(flagged.stderr).not.toContain('BLOB_READ_WRITE_TOKEN');
    expect(source.requests).toHaveLength(0);
  });

  it.each([
    [
      'answering 500 every time: retried, then the run fails',
      [{ status: 500 }],
      {},
      4,
      /the deploy hook failed after 4 attempt\(s\): HTTP 500/,
    ],
    [
      'never answering: each attempt times out',
      [{ hang: true as const }],
      { DEPLOY_HOOK_TIMEOUT_MS: '300' },
      4,
      /the deploy hook failed after 4 attempt\(s\): no answer within 300 ms/,
    ],
    [
      'answering 404 (a deleted hook): not retried',
      [{ status: 404 }],
      {},
      1,
      /the deploy hook failed after 1 attempt\(s\): HTTP 404: the deploy hook was refused/,
    ],
  ])('(g) a deploy hook %s, with a clear message', async (_, behaviours, env, calls, message) => {
    const { origin, clone } = await repository();
    servePages({ [A.slug]: changed(OURS) });
    vercel.hook(...behaviours);

    const run = await hourly(clone, origin, env);
    expect(run.code).toBe(1);
    expect(vercel.deploys).toHaveLength(calls);
    expect(run.stderr).toMatch(/::error::Deploy failed: /);
    expect(run.stderr).toMatch(message);
    expect(`${run.stdout}${run.stderr}`).not.toContain('secret-hook-key');
    // The data itself did reach origin.
    expect(await originLog(origin)).toHaveLength(2);
  });

  it('(g) a deploy hook failing once then accepting: the run is green', async () => {
    const { origin, clone } = await repository();
    servePages({ [A.slug]: changed(OURS) });
    vercel.hook({ status: 500 }, { status: 201 });
    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    expect(vercel.deploys).toHaveLength(2);
    expect(run.stdout).toMatch(/deploy hook attempt 1 failed \(HTTP 500\); retrying/);
  });
});

describe('(h) self-healing: nothing to push, but production does not serve what the repository holds', () => {
  /** Health as production shows it: `YYYY-MM-DD HH:MM:SS`, the milliseconds dropped. */
  const healthOf = (overrides: Partial<Record<DatasetSlug, string | null>> = {}) => ({
    datasets: Object.fromEntries(
      DATASETS.map((d) => [
        d.slug,
        {
          lastUpdated:
            d.slug in overrides ? overrides[d.slug]! : newest[d.slug]!.lastUpdated.slice(0, 19).replace('T', ' '),
        },
      ]),
    ),
  });

  it('production serving an older lastUpdated for a dataset gets a deploy', async () => {
    const { origin, clone } = await repository();
    vercel.health = healthOf({ [B.slug]: '2020-02-20 09:00:00' });
    const run = await hourly(clone, origin, { PRODUCTION_URL: vercel.productionUrl });
    expect(run.code, run.stderr).toBe(0);
    expect(await originLog(origin)).toHaveLength(1);
    expect(vercel.deploys).toHaveLength(1);
    expect(run.stdout).toContain(
      `${B.slug}: production serves 2020-02-20 09:00:00, the repository has ${newest[B.slug]!.lastUpdated}`,
    );
    expect(run.stdout).toContain(
      `calling the deploy hook: self-healing: production is behind the repository for ${B.slug}`,
    );
  });

  it('production serving nothing for a dataset the repository has gets a deploy', async () => {
    const { origin, clone } = await repository();
    vercel.health = healthOf({ [B.slug]: null });
    const run = await hourly(clone, origin, { PRODUCTION_URL: vercel.productionUrl });
    expect(run.code, run.stderr).toBe(0);
    expect(vercel.deploys).toHaveLength(1);
    expect(run.stdout).toContain(`${B.slug}: production serves nothing`);
  });

  it('production serving newer data than the repository (a rollback pushed but not deployed) gets a deploy', async () => {
    const { origin, clone } = await repository();
    vercel.health = healthOf({ [A.slug]: '2026-01-02 03:04:05' });
    const run = await hourly(clone, origin, { PRODUCTION_URL: vercel.productionUrl });
    expect(run.code, run.stderr).toBe(0);
    expect(vercel.deploys).toHaveLength(1);
    expect(run.stdout).toContain(
      `calling the deploy hook: self-healing: production serves newer data than the repository (a rollback not deployed yet) for ${A.slug}`,
    );
  });

  it('production serving the same lastUpdated (to the second) gets no deploy', async () => {
    const { origin, clone } = await repository();
    vercel.health = healthOf();
    const run = await hourly(clone, origin, { SITE_URL: vercel.productionUrl });
    expect(run.code, run.stderr).toBe(0);
    expect(vercel.deploys).toHaveLength(0);
    expect(run.stdout).toContain('nothing pushed and production serves the newest snapshots: not deploying');
  });

  it('production health that cannot be read: a warning, no deploy on a guess', async () => {
    const { origin, clone } = await repository();
    const run = await hourly(clone, origin, { PRODUCTION_URL: vercel.productionUrl });
    expect(run.code, run.stderr).toBe(0);
    expect(vercel.deploys).toHaveLength(0);
    expect(run.stdout).toMatch(
      /::warning::could not read production health \(.*without a datasets object\); not deploying on a guess/,
    );
  });

  it('after a push, a later hour with no change does not deploy again once production caught up', async () => {
    const { origin, clone } = await repository();
    servePages({ [A.slug]: changed(OURS) });
    expect((await hourly(clone, origin)).code).toBe(0);
    expect(vercel.deploys).toHaveLength(1);
    const pushed = JSON.parse(await originFile(origin, (await originLog(origin))[0]!.files[0]!));

    // Production built it: health shows the new lastUpdated. Next hour, same page.
    vercel.health = healthOf({ [A.slug]: pushed.lastUpdated.slice(0, 19).replace('T', ' ') });
    const again = await hourly(clone, origin, { PRODUCTION_URL: vercel.productionUrl });
    expect(again.code, again.stderr).toBe(0);
    expect(vercel.deploys).toHaveLength(1);
    // The deploy did not happen (hook failed, say): the next hour heals it.
    vercel.health = healthOf();
    const healed = await hourly(clone, origin, { PRODUCTION_URL: vercel.productionUrl });
    expect(healed.code, healed.stderr).toBe(0);
    expect(vercel.deploys).toHaveLength(2);
    expect(healed.stdout).toContain(`self-healing: production is behind the repository for ${A.slug}`);
  });
});

it('a commit pushed to origin by someone else before the run is simply built upon', async () => {
  // The clone is behind origin from the start (the checkout happened before someone pushed).
  const { origin, clone } = await repository();
  await commitToOrigin(origin, { 'NOTES.md': 'earlier\n' }, 'Earlier commit');
  servePages({ [A.slug]: changed(OURS) });
  const run = await hourly(clone, origin);
  expect(run.code, run.stderr).toBe(0);
  expect((await originLog(origin)).map((c) => c.message.split('\n')[0])).toEqual([
    expect.stringMatching(/^Rates /),
    'Earlier commit',
    'Seed',
  ]);
  expect(vercel.deploys).toHaveLength(1);
});

describe('websites: links.json beside the snapshots', () => {
  /** A's first lender, its name linked as a campaign logo links (test/fixtures/real-pages). */
  const lender = () => newest[A.slug].data[0] as { id: string; name: string };
  const RECORDED =
    'https://www.tsbbank.co.nz?utm_source=interest.co.nz&utm_medium=oncall_logo&utm_campaign=interest.co.nz';
  const linksPath = `snapshots/${A.slug}/links.json`;
  /** Every page as it is, A's with its first lender's name linked. */
  const serveLinked = () => {
    servePages();
    source.serve(A.sourcePath, {
      page: renderSourcePage(A.slug, newest[A.slug].data, { links: { [lender().name]: RECORDED } }),
    });
  };

  it('a run that finds only a new website commits links.json alone, says no rate moved, and deploys', async () => {
    const { origin, clone } = await repository();
    serveLinked();
    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    const [ours] = await originLog(origin);
    expect(ours!.author).toBe(BOT);
    expect(ours!.files).toEqual([linksPath]);
    expect(ours!.message.split('\n')[0]).toMatch(
      new RegExp(`^Lender websites \\d{4}-\\d{2}-\\d{2}: ${A.label} \\(1\\); no rate moved$`),
    );
    expect(JSON.parse(await originFile(origin, linksPath))).toEqual({
      websites: { [lender().id]: 'https://www.tsbbank.co.nz/' },
    });
    expect(vercel.deploys).toHaveLength(1);
  });

  it('a racing commit wrote links.json too: ours goes on top through the links rules, theirs kept where only it linked', async () => {
    const { origin, clone } = await repository();
    await raceOnFirstPush(
      clone,
      origin,
      { [linksPath]: `{\n  "websites": {\n    "institution:zz-other": "https://www.example.co.nz/"\n  }\n}\n` },
      'Websites recorded elsewhere',
    );
    serveLinked();
    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    const log = await originLog(origin);
    expect(
      log.map((c) => c.message.split('\n')[0]),
      run.stdout,
    ).toEqual([expect.stringMatching(/^Lender websites /), 'Websites recorded elsewhere', 'Seed']);
    expect(JSON.parse(await originFile(origin, linksPath))).toEqual({
      websites: { [lender().id]: 'https://www.tsbbank.co.nz/', 'institution:zz-other': 'https://www.example.co.nz/' },
    });
    await expectNoConflictMarkers(origin);
  });
});

describe('failures reach the maintainers: the collection-failure issue', () => {
  /** The line the collector printed for `dataset`. */
  const printed = (run: Run, dataset: DatasetSlug) => {
    const line = new RegExp(`^${dataset}: FAILED: .*$`, 'm').exec(run.stdout)?.[0];
    expect(line, `${dataset}'s FAILED line in:\n${run.stdout}`).toBeDefined();
    return line!;
  };

  it('a failing run opens one issue naming the dataset, the reason and the run; the next failing run comments on it; a good run closes it', async () => {
    const { origin, clone } = await repository();
    source.serve(FAILING_PATH, { status: 500 });

    const first = await hourly(clone, origin, github.env('1001'));
    expect(first.code).toBe(1);
    expect(github.issues).toHaveLength(1);
    const issue = github.issues[0]!;
    expect(issue.title).toBe(`Hourly collection failed: ${B.slug}`);
    expect(issue.labels).toEqual(['collection-failure']);
    expect(printed(first, B.slug)).toMatch(/: FAILED: HTTP 500 from http:\/\/127\.0\.0\.1:\d+\//);
    expect(issue.body).toContain(printed(first, B.slug));
    expect(issue.body).toContain(runLink(github, '1001'));
    expect(first.stdout).toContain(
      `hourly: failure issue: opened #1 https://github.example/${github.repository}/issues/1`,
    );

    // Next hour B's page still fails and A's is refused (it shrank).
    servePages({ [A.slug]: newest[A.slug].data.slice(0, 2) });
    source.serve(FAILING_PATH, { status: 500 });
    const second = await hourly(clone, origin, github.env('1002'));
    expect(second.code).toBe(1);
    expect(github.issues).toHaveLength(1);
    expect(issue.comments).toHaveLength(1);
    expect(printed(second, A.slug)).toMatch(
      /: FAILED: refused \(shrink\): only 2 institutions where the newest snapshot has/,
    );
    for (const dataset of [A.slug, B.slug]) expect(issue.comments[0]).toContain(printed(second, dataset));
    expect(issue.comments[0]).toContain(runLink(github, '1002'));
    expect(second.stdout).toContain('hourly: failure issue: commented on #1, still open');

    servePages();
    const good = await hourly(clone, origin, github.env('1003'));
    expect(good.code, good.stderr).toBe(0);
    expect(github.issues).toHaveLength(1);
    expect(issue.state).toBe('closed');
    expect(issue.comments).toHaveLength(2);
    expect(issue.comments[1]).toMatch(/^Recovered: /);
    expect(issue.comments[1]).toContain(runLink(github, '1003'));
    expect(good.stdout).toContain('hourly: failure issue: closed #1, this run recovered');
  });

  it('with no open issue, a good run only looks: nothing opened, commented or closed', async () => {
    const { origin, clone } = await repository();
    const run = await hourly(clone, origin, github.env('2001'));
    expect(run.code, run.stderr).toBe(0);
    expect(github.requests).toEqual([expect.stringMatching(/^GET \/repos\/nz-rates\/rates\/issues\?state=open&/)]);
    expect(github.issues).toEqual([]);
    expect(run.stdout).toContain('hourly: failure issue: none open, nothing to close');
  });

  /** Break the push or the deploy of the next run. */
  const breakIt: Record<'push' | 'deploy', (origin: Origin) => Promise<unknown>> = {
    push: (origin) => rejectEveryPush(origin),
    deploy: async () => vercel.hook({ status: 404 }),
  };
  it.each([
    ['push', /^push: could not push to origin\/main after 3 attempts/m],
    ['deploy', /^deploy: the deploy hook failed after 1 attempt\(s\): HTTP 404/m],
  ] as const)('a failed %s opens the issue too: production is not getting the data', async (subject, line) => {
    const { origin, clone } = await repository();
    await breakIt[subject](origin);
    servePages({ [A.slug]: changed(OURS) });
    const run = await hourly(clone, origin, github.env('3001'));
    expect(run.code).toBe(1);
    expect(github.issues.map((i) => i.title)).toEqual([`Hourly collection failed: ${subject}`]);
    expect(github.issues[0]!.body).toMatch(line);
  });

  it('missing secrets (exit 2) open the issue, naming each', async () => {
    const { origin, clone } = await repository();
    const run = await hourly(clone, origin, { ...github.env('4001'), VERCEL_DEPLOY_HOOK_URL: '' }, [
      '--require-secrets',
    ]);
    expect(run.code).toBe(2);
    expect(source.requests).toHaveLength(0);
    expect(github.issues.map((i) => i.title)).toEqual([
      'Hourly collection failed: secret BLOB_READ_WRITE_TOKEN, secret VERCEL_DEPLOY_HOOK_URL',
    ]);
    expect(github.issues[0]!.body).toContain('secret VERCEL_DEPLOY_HOOK_URL: not set (Settings → Secrets');
  });

  /** The run's output without the issue's own lines and the timings, to compare two runs. */
  const own = (text: string) =>
    text
      .split('\n')
      .filter((l) => !/failure issue: |::warning::could not update the collection-failure issue/.test(l))
      .join('\n')
      .replace(/\d+ ms\b/g, 'N ms');

  it.each([
    ['answers 500', { status: 500 }, {}],
    ['never answers', { hang: true as const }, { FAILURE_ISSUE_TIMEOUT_MS: '300' }],
  ])(
    'an issues API that %s changes neither the exit code nor the output of the run: a warning only',
    async (_, fault, tuning) => {
      const { origin, clone } = await repository();
      const STATUS_DIR = await tempDir('rates-status-');
      source.serve(FAILING_PATH, { status: 500 });
      const skipped = await hourly(clone, origin, { STATUS_DIR });
      expect(skipped.stdout).toContain('hourly: failure issue: skipped (not on GitHub Actions');

      github.fault = fault;
      const failing = await hourly(clone, origin, { STATUS_DIR, ...github.env('5001'), ...tuning });
      expect(failing.code).toBe(skipped.code);
      expect(failing.code).toBe(1);
      expect(own(failing.stdout)).toBe(own(skipped.stdout));
      expect(own(failing.stderr)).toBe(own(skipped.stderr));
      expect(failing.stdout).toMatch(
        /^::warning::could not update the collection-failure issue \(GET \/repos\/nz-rates\/rates\/issues: (HTTP 500|no answer within 300 ms)/m,
      );

      // A good run stays green.
      servePages();
      const good = await hourly(clone, origin, { STATUS_DIR, ...github.env('5002'), ...tuning });
      expect(good.code, good.stderr).toBe(0);
      expect(good.stdout).toMatch(/^::warning::could not update the collection-failure issue/m);
      expect(github.issues).toEqual([]);
    },
  );
});
