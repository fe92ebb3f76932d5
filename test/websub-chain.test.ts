/**
 * Pushed, not polled: the hourly chain (the real `npm run hourly`, real git repositories as in
 * test/deploy-chain.test.ts) tells a WebSub hub of the feeds a collection changed, and a
 * subscriber gets the new feed through the hub — all over real sockets, with a hub speaking the
 * protocol (test/support/websub-hub.ts). Production is a stand-in (test/support/vercel-stand-in.ts)
 * whose deploy builds the feeds from the origin's head as the site's build does
 * (scripts/hourly/feeds.ts, which test/changes-site.test.ts holds to the real build), a while
 * after the hook is called, so that a publish sent before the deployment is live would push the
 * old feed.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAtomFeed } from 'feedsmith';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ALL_FEED_URL, ATOM_TYPE, datasetFeedUrl, datasetPageUrl, entityFeedUrl } from '../src/changes/urls.ts';
import { newestSnapshot } from '../src/collect/write-rules.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { hubLinkHeader } from '../src/lib/websub.ts';
import { feedTexts } from '../scripts/hourly/feeds.ts';
import { cloneOrigin, makeOrigin, type Origin } from './support/git-origin.ts';
import { ROOT } from './support/constants.ts';
import {
  firstRate,
  newestDates,
  newestSnapshots,
  newestTexts,
  type SnapshotFile,
  tempDir,
  withFirstRate,
  withFirstRateMoved,
} from './support/history.ts';
import { serveSourcePages, startSourceServer, type SourceServer } from './support/source-server.ts';
import { startVercelStandIn, type VercelStandIn } from './support/vercel-stand-in.ts';
import { startSubscriber, startWebSubHub, type Subscriber, type WebSubHub } from './support/websub-hub.ts';

vi.setConfig({ testTimeout: 120_000 });

/** The dataset whose rate a collection moves, and one it leaves alone. */
const A = DATASETS[0];
const B = DATASETS.at(-1)!;
/** How long the stand-in's deployment takes to go live after the hook. */
const BUILD_MS = 1500;

let source: SourceServer;
let production: VercelStandIn;
let hub: WebSubHub;
let subscriber: Subscriber;
let newest: Record<DatasetSlug, SnapshotFile>;
let seed: Record<string, string>;

const moved = () => withFirstRateMoved(newest[A.slug].data, 0.6);
/**
 * A's first rate lowered 4.5 points (within the collector's guards): below every other offer of
 * its measure in the test data, so its best open rate moves too.
 */
function lowered() {
  const first = firstRate(newest[A.slug].data);
  const value = Math.round((first.value - 4.5) * 100) / 100;
  return { data: withFirstRate(newest[A.slug].data, value), first };
}

/** Health shows a time to the second, as production's does. */
const healthTime = (iso: string) => iso.slice(0, 19).replace('T', ' ');

/**
 * Deploy the origin's head as the build would: its feeds (naming the hub, with the `Link` header
 * of the static files) and its health.
 */
async function deploy(origin: Origin): Promise<void> {
  const dir = join(await cloneOrigin(origin), 'snapshots');
  const files = new Map<string, { headers: Record<string, string>; body: string }>();
  for (const [path, body] of await feedTexts(dir, production.productionUrl, hub.url))
    files.set(path, {
      headers: {
        'content-type': ATOM_TYPE,
        link: hubLinkHeader(hub.url, `${production.productionUrl}${path}`),
      },
      body,
    });
  const datasets: Record<string, { lastUpdated: string | null }> = {};
  for (const dataset of DATASETS) {
    const snapshot = await newestSnapshot(dir, dataset);
    datasets[dataset.slug] = { lastUpdated: snapshot ? healthTime(snapshot.lastUpdated) : null };
  }
  production.files = files;
  production.health = { datasets };
}

/** `npm run hourly` on `clone`, its environment from scratch (as test/deploy-chain.test.ts runs it). */
async function hourly(clone: string, origin: Origin, env: Record<string, string> = {}) {
  const merged: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...origin.gitEnv,
    INTEREST_BASE_URL: source.url,
    SNAPSHOTS_DIR: join(clone, 'snapshots'),
    STATUS_DIR: await tempDir('rates-status-'),
    COLLECT_TIMEOUT_MS: '3000',
    COLLECT_RETRIES: '0',
    VERCEL_DEPLOY_HOOK_URL: production.hookUrl,
    PRODUCTION_URL: production.productionUrl,
    WEBSUB_HUB_URL: hub.url,
    WEBSUB_LIVE_POLL_MS: '100',
    WEBSUB_LIVE_TIMEOUT_MS: '30000',
    DEPLOY_HOOK_RETRY_DELAY_MS: '10',
    ...env,
  };
  const clean = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
  return promisify(execFile)('npm', ['run', '--silent', 'hourly', '--', '--repo', clone], {
    cwd: ROOT,
    env: clean,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
}

/** A fresh origin of each dataset's newest snapshot, deployed, and a CI-like clone of it. */
async function repository() {
  const origin = await makeOrigin(seed);
  await deploy(origin);
  return { origin, clone: await cloneOrigin(origin) };
}

/** Subscribe to the feed at `path` as a reader would: its hub and topic found from the feed's own answer. */
async function subscribeTo(path: string): Promise<string> {
  const response = await fetch(`${production.productionUrl}${path}`);
  const link = response.headers.get('link') ?? '';
  const found = Object.fromEntries([...link.matchAll(/<([^>]+)>; rel="(\w+)"/g)].map((m) => [m[2], m[1]]));
  const feed = parseAtomFeed(await response.text());
  expect(feed.links?.find((l) => l.rel === 'hub')?.href).toBe(found.hub);
  expect(feed.links?.find((l) => l.rel === 'self')?.href).toBe(found.self);
  expect(await subscriber.subscribe(found.hub!, found.self!)).toBe(202);
  await hub.verified(found.self!, subscriber.callback);
  return found.self!;
}

beforeAll(async () => {
  source = await startSourceServer();
  production = await startVercelStandIn();
  hub = await startWebSubHub();
  newest = await newestSnapshots();
  const dates = newestDates();
  seed = { 'README.md': '# rates\n' };
  for (const [slug, text] of Object.entries(await newestTexts()))
    seed[`snapshots/${slug}/${dates[slug as DatasetSlug]}.json`] = text;
});
afterAll(async () => {
  await source?.close();
  await production?.close();
  await hub?.close();
});
beforeEach(async () => {
  production.reset();
  hub.publishes.length = 0;
  hub.problems.length = 0;
  hub.failPublishWith = undefined;
  await subscriber?.close();
  subscriber = await startSubscriber();
  source.requests.length = 0;
  serveSourcePages(source, (slug) => newest[slug].data);
});

describe('a collection that changes a rate reaches a WebSub subscriber through the hub', () => {
  it('once production serves it, the hub is told of exactly the feeds that changed, and pushes the new feed', async () => {
    const { origin, clone } = await repository();
    const topic = await subscribeTo(datasetFeedUrl(A));
    // Subscribed to a feed the collection leaves alone too: nothing of it may come.
    await subscribeTo(datasetFeedUrl(B));
    const before = production.files.get(datasetFeedUrl(A))!.body;

    const change = lowered();
    serveSourcePages(source, (slug) => (slug === A.slug ? change.data : newest[slug].data));
    // The deployment goes live a while after the hook: until then production serves the old feeds.
    production.onDeploy = () => void setTimeout(() => void deploy(origin), BUILD_MS);
    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    await hub.settled();
    expect(hub.problems).toEqual([]);

    // Told of the feeds the moved rate is in — every dataset's, its dataset's, its lender's, its
    // measure's best rate — once each, and of no other.
    const told = hub.publishes.map((p) => new URL(p.topic).pathname);
    const lowest = told.filter((path) => path.endsWith('/lowest.atom'));
    expect(lowest).toHaveLength(1);
    expect(lowest[0]!.startsWith(`${datasetPageUrl(A)}/`)).toBe(true);
    expect([...told].sort()).toEqual(
      [ALL_FEED_URL, datasetFeedUrl(A), entityFeedUrl(A, change.first.entity.id), lowest[0]!].sort(),
    );
    expect(hub.publishes.every((p) => p.status === 200)).toBe(true);
    expect(run.stdout).toContain(`websub: published ${told.length} feed(s) to the hub`);

    // The subscriber got the new feed, pushed — and only that one: what production serves now, with its type and links.
    expect(subscriber.deliveries).toHaveLength(1);
    const [delivery] = subscriber.deliveries;
    const now = production.files.get(datasetFeedUrl(A))!.body;
    expect(now).not.toBe(before);
    expect(delivery!.body).toBe(now);
    expect(delivery!.headers['content-type']).toBe(ATOM_TYPE);
    expect(delivery!.headers.link).toBe(`<${hub.url}>; rel="hub", <${topic}>; rel="self"`);
    // The seed's one snapshot had no change; the pushed feed has the collection's.
    expect(parseAtomFeed(before).entries ?? []).toHaveLength(0);
    expect(parseAtomFeed(delivery!.body).entries).toHaveLength(1);
  });

  it('a hub that fails is a warning, never a red run: the data is pushed and deployed anyway', async () => {
    const { origin, clone } = await repository();
    await subscribeTo(datasetFeedUrl(A));
    serveSourcePages(source, (slug) => (slug === A.slug ? moved().data : newest[slug].data));
    production.onDeploy = () => void deploy(origin);
    hub.failPublishWith = 503;
    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    expect(production.deploys).toHaveLength(1);
    expect(run.stdout).toMatch(
      /::warning::websub: the hub failed \(HTTP 503\) publishing \/rates\/\S+\.atom; \d+ more feed\(s\) not published this run/,
    );
    expect(subscriber.deliveries).toHaveLength(0);
  });

  it('a deployment not live within WEBSUB_LIVE_TIMEOUT_MS: a warning, and the hub is not told (it would push the old feed)', async () => {
    const { origin, clone } = await repository();
    await subscribeTo(datasetFeedUrl(A));
    serveSourcePages(source, (slug) => (slug === A.slug ? moved().data : newest[slug].data));
    // The hook takes the request, but the build never goes live.
    const run = await hourly(clone, origin, { WEBSUB_LIVE_TIMEOUT_MS: '1200' });
    expect(run.code, run.stderr).toBe(0);
    expect(production.deploys).toHaveLength(1);
    expect(run.stdout).toMatch(
      /::warning::websub: production did not serve the new data within 1200 ms \(WEBSUB_LIVE_TIMEOUT_MS\)/,
    );
    expect(run.stdout).toContain(`${A.slug}: production serves`);
    expect(hub.publishes).toEqual([]);
    expect(subscriber.deliveries).toHaveLength(0);
  });

  it('a run that changes nothing tells the hub nothing', async () => {
    const { origin, clone } = await repository();
    const run = await hourly(clone, origin);
    expect(run.code, run.stderr).toBe(0);
    expect(production.deploys).toHaveLength(0);
    expect(hub.publishes).toEqual([]);
  });

  it('WEBSUB_HUB_URL that is not an http(s) URL stops the run before collecting, in one line', async () => {
    const { origin, clone } = await repository();
    const run = await hourly(clone, origin, { WEBSUB_HUB_URL: 'ftp://hub.example/' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      '::error::WEBSUB_HUB_URL is not an http(s) URL; it names the WebSub hub every feed announces',
    );
    expect(source.requests).toHaveLength(0);
  });
});
