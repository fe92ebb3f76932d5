/**
 * The feeds the hourly job publishes to the WebSub hub, as the build writes them from a snapshot
 * tree: the change feeds (src/pages/rates/changes.atom.ts, [dataset]/changes.atom.ts,
 * [dataset]/[entity]/changes.atom.ts) and the lowest-rate feeds ([dataset]/[measure]/lowest.atom.ts),
 * by path, each made by the same function with the same arguments as its page
 * (test/changes-site.test.ts checks the two agree over a real build). Which feeds a collection
 * changed is then exact, whatever moved and however the feeds word it: those whose text differs
 * between the tree before the collection and after it, the feed's own `<updated>` aside (newsOf).
 * The changelog's feed changes with a
 * release, never with a collection; an alert feed's address carries its threshold, so it is never
 * published (its readers poll it, or follow the lowest-rate feed).
 */
import { createHash } from 'node:crypto';
import { lowestChangesAtom } from '../../src/api/alerts.ts';
import { changeDays, entitiesEver } from '../../src/changes/model.ts';
import { atomFeed, type DatasetChanges } from '../../src/changes/feeds.ts';
import { ALL_FEED_URL, datasetFeedUrl, entityFeedUrl } from '../../src/changes/urls.ts';
import { comparisonPaths, datasetViews, lowestFeedUrl } from '../../src/explorer/pages.ts';
import { compileSnapshotTree } from '../../src/store/compile.ts';

/** Every published feed of the tree: path → its text, `site` the origin its links name, `hub` the WebSub hub it names. */
export async function feedTexts(snapshotsDir: string, site: string, hub?: string): Promise<Map<string, string>> {
  const views = datasetViews(await compileSnapshotTree(snapshotsDir));
  const feeds = new Map<string, string>();
  const sources: DatasetChanges[] = [];
  for (const view of views) {
    const { dataset } = view;
    const changes: DatasetChanges = {
      dataset,
      days: changeDays(dataset, view.snapshots),
      lastUpdated: view.latest.lastUpdated,
    };
    sources.push(changes);
    feeds.set(datasetFeedUrl(dataset), atomFeed({ kind: 'dataset', dataset }, [changes], site, hub));
    for (const entity of entitiesEver(view.snapshots))
      feeds.set(entityFeedUrl(dataset, entity.id), atomFeed({ kind: 'entity', dataset, entity }, [changes], site, hub));
    for (const { measure } of comparisonPaths(view).filter((p) => p.rest === undefined))
      feeds.set(
        lowestFeedUrl(view.definition, measure),
        lowestChangesAtom(dataset, view.snapshots, measure.key, site, hub),
      );
  }
  feeds.set(ALL_FEED_URL, atomFeed({ kind: 'all' }, sources, site, hub));
  return feeds;
}

/**
 * What a feed tells its readers: its text without the feed's own `<updated>`. A feed with entries
 * takes that time from its newest entry, which the entries hold anyway; one without any takes it
 * from the newest snapshot (src/changes/feeds.ts), so it moves with every collection, though
 * nothing of the feed's changed: not worth a push to every subscriber.
 */
function newsOf(text: string): string {
  const first = text.indexOf('<entry>');
  const head = first === -1 ? text : text.slice(0, first);
  return `${head.replace(/<updated>[^<]*<\/updated>/, '')}${first === -1 ? '' : text.slice(first)}`;
}

/** Each published feed's digest of what it tells (newsOf), kept between the two trees instead of the texts. */
export async function feedDigests(snapshotsDir: string, site: string): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  for (const [path, text] of await feedTexts(snapshotsDir, site))
    digests.set(path, createHash('sha256').update(newsOf(text)).digest('base64'));
  return digests;
}

/** The feeds whose text differs, new ones included (a feed that is gone has nobody to tell), in path order. */
export function changedFeeds(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...after]
    .filter(([path, digest]) => before.get(path) !== digest)
    .map(([path]) => path)
    .sort();
}
