/**
 * Put our collected snapshots (and links files) back on top of a newer remote head through the snapshot write
 * rules, instead of letting git merge two versions of a JSON file line by line. Used when the
 * remote moved on and touched a file our commit also wrote (same dataset, same date).
 */
import { posix } from 'node:path';
import { datasetBySlug } from '../../src/datasets.ts';
import { describeChanges, type ChangedDataset, type LinkedDataset } from '../../src/collect/summary.ts';
import { newestSnapshot, saveIfChanged } from '../../src/collect/write-rules.ts';
import { LINKS_FILE, parseLinks, saveLinks } from '../../src/snapshots/links.ts';
import { SNAPSHOT_FILE, validateSnapshot } from '../../src/snapshots/tree.ts';

/** A snapshot file as our commit wrote it: `path` relative to the repository root, with `/`. */
export interface CollectedFile {
  path: string;
  content: string;
}

export interface Reapplied {
  changed: ChangedDataset[];
  /** Datasets whose links file took a website of ours (no rate moved for them). */
  linked: LinkedDataset[];
  /** Human-readable notes on what was kept and why. */
  notes: string[];
}

export async function reapplySnapshots(
  snapshotsDir: string,
  snapshotsPath: string,
  files: readonly CollectedFile[],
): Promise<Reapplied> {
  const changed: ChangedDataset[] = [];
  const linked: LinkedDataset[] = [];
  const notes: string[] = [];
  for (const { path, content } of files) {
    const [slug, name, ...rest] = posix.relative(snapshotsPath, path).split('/');
    const dataset = datasetBySlug(slug ?? '');
    if (dataset && name === LINKS_FILE && rest.length === 0) {
      // Websites are no rates: ours go over the remote's, which keeps any it alone recorded.
      const moved = await saveLinks(snapshotsDir, dataset, parseLinks(content, path).websites);
      if (moved.length > 0) linked.push({ dataset, ids: moved });
      notes.push(
        `${dataset.slug}: ${moved.length > 0 ? `recorded our websites of ${moved.join(', ')} over the remote's` : 'the remote already has our websites'}`,
      );
      continue;
    }
    const date = SNAPSHOT_FILE.exec(name ?? '')?.[1];
    if (!dataset || !date || rest.length > 0)
      throw new Error(`our commit holds ${path}, which is not a snapshot file; refusing to re-apply it`);
    const ours = validateSnapshot(dataset, JSON.parse(content), path, date);

    const previous = await newestSnapshot(snapshotsDir, dataset);
    if (previous && Date.parse(previous.lastUpdated) > Date.parse(ours.lastUpdated)) {
      // A later collection already landed: by the write rules the newer one is what the tree keeps.
      notes.push(
        `${dataset.slug}: the remote already has a later collection (${previous.lastUpdated}); ours (${ours.lastUpdated}) is superseded`,
      );
      continue;
    }
    const saved = await saveIfChanged(snapshotsDir, dataset, ours.data, new Date(ours.lastUpdated), previous);
    if (!saved.file) {
      notes.push(`${dataset.slug}: the remote already has the same data; nothing to add`);
      continue;
    }
    const file = `${dataset.slug}/${date}.json`;
    notes.push(
      `${dataset.slug}: ${saved.outcome === 'replaced' ? 'replaced the remote version of' : 'wrote'} ${file} with our collection (${ours.lastUpdated})`,
    );
    changed.push({ dataset, file, changes: describeChanges(dataset, previous?.data, ours.data) });
  }
  return { changed, linked, notes };
}
