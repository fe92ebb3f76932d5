/**
 * npm run hourly -- [--no-push] [--no-deploy] [--require-secrets] [--repo <dir>] [--remote <name>] [--branch <name>]
 *
 * The hourly chain `.github/workflows/collect.yml` runs: check the configuration, collect each
 * dataset's page, commit the changed snapshots as github-actions[bot] with the change summary, push with a
 * bounded rebase-and-retry, then deploy production through the Vercel deploy hook — or, when
 * nothing was pushed, deploy anyway if production does not serve the repository's newest data.
 *
 * Exit codes: 0 all went well; 1 something turned the run red (a dataset failed — the good ones
 * are still committed, pushed and deployed —, the push gave up, or the deploy hook failed);
 * 2 the configuration or the work tree is not usable (nothing was collected).
 *
 * On GitHub Actions (with GITHUB_TOKEN) a red run also opens or comments on the one
 * `collection-failure` issue, and a good run closes it (scripts/hourly/failure-issue.ts); a
 * missing secret counts as red, the other exit-2 stops do not touch the issue.
 *
 * With WEBSUB_HUB_URL (and PRODUCTION_URL) set, a deploy after a push is followed by telling the
 * WebSub hub of each feed the push changed, once production serves it (scripts/hourly/websub.ts);
 * a hub that fails is a warning, never a red run.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { runCollector } from './hourly/collector.ts';
import { triggerDeploy } from './hourly/deploy-hook.ts';
import { BOT, gitIn } from './hourly/git.ts';
import { reportToIssue, type RunFailure } from './hourly/failure-issue.ts';
import { compareWithProduction } from './hourly/production.ts';
import { commitSnapshots, pushWithRetry, type Pushed } from './hourly/publish.ts';
import { missingSecretLines, missingSecrets, secretsRequired } from './hourly/secrets.ts';
import { feedsChangedBy, publishChangedFeeds } from './hourly/websub.ts';
import { hubFrom } from '../src/lib/websub.ts';

const USAGE =
  'usage: npm run hourly -- [--no-push] [--no-deploy] [--require-secrets] [--repo <dir>] [--remote <name>] [--branch <name>]';
const env = process.env;
const log = (line: string) => console.log(`hourly: ${line}`);

function stop(message: string, code = 2): never {
  console.error(`::error::${message}`);
  process.exit(code);
}

/**
 * End the run with `code`, first telling the maintainers through the failure issue: `failures`
 * opens or comments on it, none closes it. Its own problems are only warnings, so the exit code
 * and the output above stay what the run made them.
 */
async function finish(code: number, failures: readonly RunFailure[]): Promise<never> {
  await reportToIssue(env, failures, {
    log,
    warn: (line) => console.log(`::warning::${line}`),
  });
  process.exit(code);
}

/** The parsed options; a usage error ends the command. */
function readArgs() {
  try {
    return parseArgs({
      allowNegative: true,
      options: {
        push: { type: 'boolean', default: true },
        deploy: { type: 'boolean', default: true },
        'require-secrets': { type: 'boolean', default: false },
        repo: { type: 'string' },
        remote: { type: 'string', default: 'origin' },
        branch: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    stop(`${(error as Error).message}\n${USAGE}`);
  }
}
const args = readArgs();
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const number = (name: string, fallback: number, min = 0) => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) stop(`${name} must be an integer of at least ${min}, got "${raw}"`);
  return value;
};
const url = (name: string) => {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return raw;
  } catch {}
  stop(`${name} is not an http(s) URL`);
};

// 1. Configuration, before anything is fetched: in CI a missing secret fails the run right here.
const missing = secretsRequired(env, args['require-secrets']) ? missingSecrets(env) : [];
if (missing.length > 0) {
  for (const line of missingSecretLines(missing)) console.error(line);
  console.error(`hourly: stopping before collection: ${missing.map((m) => m.name).join(' and ')} missing`);
  // Production gets no data until the secret is set: that is worth an issue, like a failed dataset.
  await finish(
    2,
    missing.map((m) => ({
      subject: `secret ${m.name}`,
      reason: 'not set (Settings → Secrets and variables → Actions)',
    })),
  );
}
const hookUrl = url('VERCEL_DEPLOY_HOOK_URL');
const productionUrl = url('PRODUCTION_URL') ?? url('SITE_URL');
const pushAttempts = number('HOURLY_PUSH_ATTEMPTS', 3, 1);
const pushRetryDelayMs = number('HOURLY_PUSH_RETRY_DELAY_MS', 2000);
const hook = {
  timeoutMs: number('DEPLOY_HOOK_TIMEOUT_MS', 15_000, 1),
  retries: number('DEPLOY_HOOK_RETRIES', 3),
  retryDelayMs: number('DEPLOY_HOOK_RETRY_DELAY_MS', 2000),
};
const hub = (() => {
  try {
    return hubFrom(env);
  } catch (error) {
    stop((error as Error).message);
  }
})();
// Vercel builds in a few minutes; the wait has to fit in the workflow's own timeout (collect.yml).
const websubWait = {
  liveTimeoutMs: number('WEBSUB_LIVE_TIMEOUT_MS', 480_000, 1),
  livePollMs: number('WEBSUB_LIVE_POLL_MS', 15_000, 1),
  publishTimeoutMs: 15_000,
};

// 2. The work tree: the chain resets and rebases it, so it must hold nothing of anyone's.
const git = gitIn(resolve(args.repo ?? '.'), { identity: BOT });
const top = (await git.attempt('rev-parse', '--show-toplevel')).stdout.trim();
if (!top) stop(`${git.dir} is not a git work tree`);
const repo = gitIn(top, { identity: BOT });
const branch =
  args.branch ??
  ((await repo.attempt('symbolic-ref', '--quiet', '--short', 'HEAD')).stdout.trim() ||
    stop('HEAD is detached; pass --branch <name>'));
const remote = args.remote;

/** The real path of `dir`, which may not exist yet (a fresh clone has no snapshots/ folder). */
async function real(dir: string): Promise<string> {
  return realpath(dir).catch(async () => join(await real(dirname(dir)), basename(dir)));
}
// A relative SNAPSHOTS_DIR is taken from the repository root here (the chain commits it there).
const snapshotsDir = await real(resolve(top, env.SNAPSHOTS_DIR ?? 'snapshots'));
const snapshotsPath = relative(top, snapshotsDir).split(sep).join('/');
if (!snapshotsPath || snapshotsPath.startsWith('..') || isAbsolute(snapshotsPath))
  stop(`SNAPSHOTS_DIR (${snapshotsDir}) must be a folder inside the repository ${top}`);
if (
  (await repo('status', '--porcelain', '--untracked-files=no')).trim() ||
  (await repo('status', '--porcelain', '--', snapshotsPath)).trim()
) {
  stop(
    `${top} has uncommitted changes (or untracked files under ${snapshotsPath}/); the chain commits ${snapshotsPath}/ and may reset the tree, so commit or stash them first`,
  );
}

log(`repository ${top}, branch ${branch} → ${remote}; snapshots in ${snapshotsPath}/`);
log(
  `status store: ${env.BLOB_READ_WRITE_TOKEN ? 'Vercel Blob' : `filesystem (${env.STATUS_DIR ?? '.status'}), BLOB_READ_WRITE_TOKEN is not set`}`,
);
log(
  `deploy: ${!args.push ? 'off (--no-push)' : !args.deploy ? 'off (--no-deploy)' : hookUrl ? 'through the deploy hook' : 'off, VERCEL_DEPLOY_HOOK_URL is not set'}`,
);
if (!productionUrl) {
  const note =
    'PRODUCTION_URL is not set: a run with nothing to push cannot check that production serves the newest snapshots (self-healing is off)';
  console.log(env.GITHUB_ACTIONS === 'true' ? `::warning::${note}` : `hourly: ${note}`);
}
if (hub && !productionUrl) {
  const note =
    'WEBSUB_HUB_URL is set but PRODUCTION_URL is not: the hub is told of a changed feed only once production serves it, so it is never told';
  console.log(env.GITHUB_ACTIONS === 'true' ? `::warning::${note}` : `hourly: ${note}`);
} else
  log(
    `websub: ${hub ? `after a deploy of a push, the changed feeds are published to WEBSUB_HUB_URL once production serves them (waiting at most ${websubWait.liveTimeoutMs} ms)` : 'off, WEBSUB_HUB_URL is not set'}`,
  );

const problems: string[] = [];
/** What the failure issue names: each failed dataset as the collector printed it, and each failed link of the chain. */
const failures: RunFailure[] = [];

// 3. Collect. A failed dataset keeps its newest snapshot; the good ones still go out below.
const collection = await runCollector({
  snapshotsDir,
  env: env.STATUS_DIR ? { ...env, STATUS_DIR: resolve(env.STATUS_DIR) } : env,
});
if (collection.code === 1) {
  problems.push(
    'Collection failed for at least one dataset (see the collector output above); its newest good snapshot was kept.',
  );
  failures.push(...collection.failures.map((f) => ({ subject: f.dataset, reason: f.reason })));
  if (collection.failures.length === 0)
    failures.push({
      subject: 'collection',
      reason: 'the collector exited 1 without naming a dataset; see the run log',
    });
} else if (collection.code !== 0) {
  const crash = `the collector crashed (exit code ${collection.code}); nothing was committed`;
  console.error(`::error::${crash}`);
  await finish(1, [{ subject: 'collector', reason: crash }]);
}

// 4. Commit and push.
let pushed: Pushed | undefined;
let pushFailed = false;
const commit = await commitSnapshots(
  repo,
  snapshotsPath,
  collection.summary ?? 'Rates update\n\n(The collector wrote no change summary.)\n',
);
if (!commit) {
  log('no snapshot changed: nothing to commit or push');
} else if (!args.push) {
  log(`committed ${commit.slice(0, 7)} locally; not pushing (--no-push). \`git reset --hard HEAD~1\` drops it`);
} else {
  log(`committed ${commit.slice(0, 7)}: ${collection.summary?.split('\n')[0] ?? 'Rates update'}`);
  try {
    pushed = await pushWithRetry({
      git: repo,
      snapshotsDir,
      snapshotsPath,
      remote,
      branch,
      pushAttempts,
      retryDelayMs: pushRetryDelayMs,
      log,
    });
  } catch (error) {
    pushFailed = true;
    problems.push(`Push failed: ${(error as Error).message}`);
    failures.push({ subject: 'push', reason: (error as Error).message });
  }
}

// 5. Deploy: after a push; or, with nothing pushed, when production does not serve what the repository holds.
let reason: string | undefined;
if (!args.push) {
  log('not deploying: --no-push');
} else if (pushFailed) {
  log('not deploying: the push failed, so production has nothing new to build');
} else if (pushed?.outcome === 'pushed') {
  reason = `pushed ${pushed.commit.slice(0, 7)}`;
} else if (!productionUrl) {
  log('nothing pushed and PRODUCTION_URL is not set: not deploying');
} else {
  try {
    const freshness = await compareWithProduction(productionUrl, snapshotsDir);
    for (const line of [...freshness.behind, ...freshness.ahead, ...freshness.current]) log(line);
    const names = (lines: string[]) => lines.map((l) => l.split(':')[0]).join(', ');
    if (freshness.behind.length > 0)
      reason = `self-healing: production is behind the repository for ${names(freshness.behind)}`;
    else if (freshness.ahead.length > 0)
      reason = `self-healing: production serves newer data than the repository (a rollback not deployed yet) for ${names(freshness.ahead)}`;
    else log('nothing pushed and production serves the newest snapshots: not deploying');
  } catch (error) {
    console.log(`::warning::could not read production health (${(error as Error).message}); not deploying on a guess`);
  }
}
let deployed = 'no';
let deployRequested = false;
if (reason) {
  if (!args.deploy) {
    log(`would call the deploy hook (${reason}) but --no-deploy is set`);
  } else if (!hookUrl) {
    log(`would call the deploy hook (${reason}) but VERCEL_DEPLOY_HOOK_URL is not set`);
  } else {
    log(`calling the deploy hook: ${reason}`);
    try {
      const job = await triggerDeploy(hookUrl, { ...hook, log });
      deployed = `job ${job.id ?? '(no id)'} ${job.state ?? ''}`.trim();
      deployRequested = true;
      log(`deployment requested: ${deployed}`);
    } catch (error) {
      problems.push(
        `Deploy failed: ${(error as Error).message}. The data is on ${branch} but production does not serve it; the next run retries (self-healing needs PRODUCTION_URL), or run the workflow by hand.`,
      );
      failures.push({ subject: 'deploy', reason: (error as Error).message });
    }
  }
}

// 6. WebSub: the feeds this push changed, to the hub once production serves them. Never red: the data is out.
if (hub && productionUrl && deployRequested && pushed?.outcome === 'pushed') {
  const warn = (line: string) => console.log(`::warning::${line}`);
  try {
    const paths = await feedsChangedBy(repo, pushed.commit, snapshotsDir, snapshotsPath, productionUrl);
    await publishChangedFeeds(paths, { hub, productionUrl, snapshotsDir, ...websubWait, log, warn });
  } catch (error) {
    warn(`websub: could not work out the changed feeds (${(error as Error).message}); the hub was not told`);
  }
}

const published = !commit
  ? 'nothing to commit'
  : !pushed
    ? pushFailed
      ? 'push failed'
      : 'committed locally'
    : pushed.outcome === 'pushed'
      ? `pushed ${pushed.commit.slice(0, 7)}`
      : 'already on the remote';
log(`done: collection ${collection.code === 0 ? 'ok' : 'with failures'}; ${published}; deployed: ${deployed}`);
for (const problem of problems) console.error(`::error::${problem}`);
await finish(problems.length > 0 ? 1 : 0, failures);
