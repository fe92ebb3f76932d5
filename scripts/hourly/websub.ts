/**
 * Tell the WebSub hub (WEBSUB_HUB_URL, src/lib/websub.ts) which feeds a collection changed, once
 * production serves them: the hub then fetches each feed and pushes it to its subscribers.
 *
 * Which feeds: those whose text differs between the snapshot tree of the pushed commit's parent
 * (what production served) and the pushed tree (scripts/hourly/feeds.ts). When: after the deploy
 * hook, production health (`/api/v1/health`, as scripts/hourly/production.ts reads it) must show
 * every dataset's newest snapshot, checked every `pollMs` for at most `timeoutMs`; asked earlier,
 * the hub would fetch and push the feeds as they were. How: one form-encoded POST per feed,
 * `hub.mode=publish` with the feed's address as both `hub.url` and `hub.topic` (the WebSub
 * recommendation leaves the publish request to each hub; these two names are the ones hubs read).
 *
 * A hub that fails, or a deployment not live in time, is a warning, never a red run: the data is
 * deployed anyway, and the feeds' readers still get it when they next fetch them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Git } from './git.ts';
import { changedFeeds, feedDigests } from './feeds.ts';
import { compareWithProduction } from './production.ts';

export interface WebSubOptions {
  hub: string;
  /** The production address: the feeds' addresses (the topics) are on it, and its health says when they are live. */
  productionUrl: string;
  /** The pushed snapshots: production is live once its health shows each dataset's newest of them. */
  snapshotsDir: string;
  /** The longest wait for production to serve the new data (WEBSUB_LIVE_TIMEOUT_MS). */
  liveTimeoutMs: number;
  /** How often production health is read meanwhile (WEBSUB_LIVE_POLL_MS). */
  livePollMs: number;
  /** Time allowed for each publish request. */
  publishTimeoutMs: number;
  log: (line: string) => void;
  warn: (line: string) => void;
}

/**
 * The feeds `commit` changed, by path: its tree's feeds against its parent's. A parent without
 * the snapshot folder (the first collection) has no feeds: every feed is new.
 */
export async function feedsChangedBy(
  git: Git,
  commit: string,
  snapshotsDir: string,
  snapshotsPath: string,
  site: string,
): Promise<string[]> {
  const before = await mkdtemp(join(tmpdir(), 'rates-websub-'));
  try {
    // Written beside, never into, the work tree: neither the index nor the tree changes.
    const restored = await git.attempt('--work-tree', before, 'restore', `--source=${commit}~1`, '--', snapshotsPath);
    if (!restored.ok && (await git('ls-tree', `${commit}~1`, '--', snapshotsPath)).trim())
      throw new Error(`could not read the snapshots of ${commit.slice(0, 7)}~1: ${restored.stderr.trim()}`);
    const [was, now] = [await feedDigests(join(before, snapshotsPath), site), await feedDigests(snapshotsDir, site)];
    return changedFeeds(was, now);
  } finally {
    await rm(before, { recursive: true, force: true });
  }
}

/** Wait until production health shows every dataset's newest snapshot; false when `timeoutMs` passed first. */
async function waitUntilLive(
  options: Pick<WebSubOptions, 'productionUrl' | 'snapshotsDir' | 'liveTimeoutMs' | 'livePollMs' | 'log'>,
): Promise<boolean> {
  const { productionUrl, snapshotsDir } = options;
  const started = Date.now();
  let last = '';
  for (;;) {
    const left = options.liveTimeoutMs - (Date.now() - started);
    try {
      const freshness = await compareWithProduction(productionUrl, snapshotsDir, Math.max(1, Math.min(15_000, left)));
      if (freshness.behind.length === 0) return true;
      last = freshness.behind.join('; ');
    } catch (error) {
      last = `health unreadable (${(error as Error).message})`;
    }
    if (Date.now() - started + options.livePollMs > options.liveTimeoutMs) {
      options.log(`websub: production still not live after ${Date.now() - started} ms: ${last}`);
      return false;
    }
    await sleep(options.livePollMs);
  }
}

/** POST one publish request; what went wrong, or undefined when the hub took it (any 2xx). */
async function publishOne(hub: string, topic: string, timeoutMs: number): Promise<string | undefined> {
  try {
    const response = await fetch(hub, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'hub.mode': 'publish', 'hub.url': topic, 'hub.topic': topic }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.ok ? undefined : `HTTP ${response.status}`;
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    return e.name === 'TimeoutError'
      ? `no answer within ${timeoutMs} ms`
      : (e.cause?.code ?? e.cause?.message ?? e.message);
  }
}

/**
 * Publish each changed feed, once production serves it. Returns the topics the hub took. A hub
 * that cannot be reached or fails with a 5xx is not asked again this run; a 4xx refuses one feed.
 */
export async function publishChangedFeeds(paths: readonly string[], options: WebSubOptions): Promise<string[]> {
  const { log, warn } = options;
  if (paths.length === 0) {
    log('websub: no feed changed: nothing to publish');
    return [];
  }
  log(
    `websub: ${paths.length} feed(s) changed; waiting up to ${options.liveTimeoutMs} ms (WEBSUB_LIVE_TIMEOUT_MS) for production to serve the new data`,
  );
  if (!(await waitUntilLive(options))) {
    warn(
      `websub: production did not serve the new data within ${options.liveTimeoutMs} ms (WEBSUB_LIVE_TIMEOUT_MS): the hub was not told of ${paths.length} changed feed(s); their readers get them when they next fetch them`,
    );
    return [];
  }
  const published: string[] = [];
  const refused: string[] = [];
  for (const [i, path] of paths.entries()) {
    const topic = new URL(path, options.productionUrl).href;
    const problem = await publishOne(options.hub, topic, options.publishTimeoutMs);
    if (problem === undefined) {
      published.push(topic);
      continue;
    }
    if (problem.startsWith('HTTP 4')) {
      refused.push(`${path} (${problem})`);
      continue;
    }
    warn(
      `websub: the hub failed (${problem}) publishing ${path}; ${paths.length - i - 1} more feed(s) not published this run. The data is deployed; the feeds' readers get it when they next fetch them`,
    );
    break;
  }
  if (refused.length > 0) warn(`websub: the hub refused ${refused.length} feed(s): ${refused.join(', ')}`);
  if (published.length > 0)
    log(
      `websub: published ${published.length} feed(s) to the hub: ${published.map((t) => new URL(t).pathname).join(', ')}`,
    );
  return published;
}
