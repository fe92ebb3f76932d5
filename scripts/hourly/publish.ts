/**
 * Commit the collected snapshots and push them, rebasing onto whatever landed in the meantime,
 * a bounded number of times. Only the snapshot folder is ever staged; the push is never forced.
 * When the rebase stops on a conflict — the remote also wrote one of our files (same dataset, same
 * date) — it is aborted, the tree reset to the remote head, and our collected snapshots saved
 * again on top of it by the snapshot write rules; the same happens when git did merge such a file
 * line by line, since a line merge of two JSON snapshots is not something to publish unchecked.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { summaryMarkdown } from '../../src/collect/summary.ts';
import type { Git } from './git.ts';
import { reapplySnapshots, type CollectedFile } from './reapply.ts';

export interface PublishOptions {
  /** Git in the work tree, with the bot identity. */
  git: Git;
  /** The snapshot folder: absolute, and relative to the repository root (the only path staged). */
  snapshotsDir: string;
  snapshotsPath: string;
  remote: string;
  branch: string;
  /** Pushes tried in all, the first included. */
  pushAttempts: number;
  /** Wait before retry n is n × this (a rejected push is usually a race another fetch resolves). */
  retryDelayMs: number;
  log: (line: string) => void;
}

export type Pushed =
  | { outcome: 'pushed'; commit: string; attempts: number }
  /** The remote already had our data (or a later collection): nothing was left to push. */
  | { outcome: 'superseded'; attempts: number };

export class PushError extends Error {
  override name = 'PushError';
}

const lines = (text: string) => text.split('\n').filter(Boolean);
const short = (sha: string) => sha.slice(0, 7);
/** Git's complaint on one line: what the remote said and the error, without `To <url>` and hints. */
const tail = (text: string) =>
  lines(text)
    .filter((line) => !/^(To |hint:)/.test(line))
    .slice(-4)
    .map((line) => line.trim())
    .join(' | ');

/** Stage the snapshot folder and commit it with `message`; undefined when nothing changed. */
export async function commitSnapshots(git: Git, snapshotsPath: string, message: string): Promise<string | undefined> {
  await git('add', '--all', '--', snapshotsPath);
  if ((await git.attempt('diff', '--cached', '--quiet', '--', snapshotsPath)).ok) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'rates-commit-'));
  try {
    const file = join(dir, 'message.md');
    await writeFile(file, message);
    // `-- path` commits only the snapshot folder whatever else is staged; `whitespace` keeps the
    // summary's `###` headings, which the default cleanup could strip as comments.
    await git('commit', '--quiet', '--cleanup=whitespace', '--file', file, '--', snapshotsPath);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return (await git('rev-parse', 'HEAD')).trim();
}

export async function pushWithRetry(options: PublishOptions): Promise<Pushed> {
  const { git, remote, branch, log } = options;
  const tracking = `refs/remotes/${remote}/${branch}`;
  // Our commit is always exactly base..HEAD: one commit on top of the last remote head we saw.
  let base = (await git('rev-parse', 'HEAD~1')).trim();

  /** Reset to the remote head and save the snapshots of `ours` on top of it by the write rules. */
  async function reapply(upstream: string, ours: string, paths: string[]): Promise<'committed' | 'nothing-left'> {
    const files: CollectedFile[] = [];
    for (const path of paths) {
      const shown = await git.attempt('show', `${ours}:${path}`);
      if (!shown.ok)
        throw new PushError(
          `our commit removes ${path}; the collector never does, so it is not re-applied automatically`,
        );
      files.push({ path, content: shown.stdout });
    }
    await git('reset', '--quiet', '--hard', upstream);
    base = upstream;
    const { changed, linked, notes } = await reapplySnapshots(options.snapshotsDir, options.snapshotsPath, files);
    for (const note of notes) log(note);
    if (changed.length === 0 && linked.length === 0) return 'nothing-left';
    const commit = await commitSnapshots(
      git,
      options.snapshotsPath,
      summaryMarkdown(changed, new Date().toISOString().slice(0, 10), linked),
    );
    if (!commit) return 'nothing-left';
    log(
      `committed ${short(commit)} again on top of ${short(upstream)}, with a summary of what moved from the remote's data to ours`,
    );
    return 'committed';
  }

  /** Bring our commit on top of the remote's newest head. */
  async function integrate(): Promise<'ready' | 'nothing-left'> {
    const fetched = await git.attempt('fetch', '--quiet', '--no-tags', remote, `+refs/heads/${branch}:${tracking}`);
    if (!fetched.ok) {
      log(`fetch failed: ${tail(fetched.stderr)}`);
      return 'ready';
    }
    const upstream = (await git('rev-parse', tracking)).trim();
    if ((await git.attempt('merge-base', '--is-ancestor', upstream, 'HEAD')).ok) {
      log(`${remote}/${branch} has nothing we lack (${short(upstream)}); pushing again`);
      return 'ready';
    }
    const ours = (await git('rev-parse', 'HEAD')).trim();
    const ourPaths = lines(await git('diff', '--name-only', '--no-renames', base, ours));
    const theirPaths = new Set(lines(await git('diff', '--name-only', '--no-renames', base, upstream)));
    const overlap = ourPaths.filter((path) => theirPaths.has(path));
    log(
      `${remote}/${branch} moved on to ${short(upstream)}, changing ${theirPaths.size} file(s); rebasing our commit onto it`,
    );
    const rebased = await git.attempt('rebase', '--quiet', '--onto', upstream, base);
    if (!rebased.ok) {
      log(
        `the rebase stopped on a conflict (${tail(rebased.stderr)}); aborting it and re-applying our snapshots on top through the snapshot write rules`,
      );
      await git.attempt('rebase', '--abort');
      return (await reapply(upstream, ours, ourPaths)) === 'committed' ? 'ready' : 'nothing-left';
    }
    if (overlap.length > 0) {
      // Git merged two versions of the same snapshot line by line: a JSON file it may have made
      // inconsistent. The write rules decide instead, from our commit as collected.
      log(
        `the remote also changed ${overlap.join(', ')}; not trusting git's line merge of it, re-applying our snapshots through the snapshot write rules`,
      );
      return (await reapply(upstream, ours, ourPaths)) === 'committed' ? 'ready' : 'nothing-left';
    }
    base = upstream;
    log(`rebased our commit onto it: ${short((await git('rev-parse', 'HEAD')).trim())}`);
    return 'ready';
  }

  for (let attempt = 1; ; attempt += 1) {
    const pushed = await git.attempt('push', '--quiet', remote, `HEAD:refs/heads/${branch}`);
    if (pushed.ok) {
      const commit = (await git('rev-parse', 'HEAD')).trim();
      log(`pushed ${short(commit)} to ${remote}/${branch} (attempt ${attempt} of ${options.pushAttempts})`);
      return { outcome: 'pushed', commit, attempts: attempt };
    }
    log(`push attempt ${attempt} of ${options.pushAttempts} failed: ${tail(pushed.stderr)}`);
    if (attempt >= options.pushAttempts) {
      throw new PushError(
        `could not push to ${remote}/${branch} after ${attempt} attempts (last error: ${tail(pushed.stderr)}); the snapshots were collected but are not on ${branch}, and nothing was deployed`,
      );
    }
    await sleep(options.retryDelayMs * attempt);
    if ((await integrate()) === 'nothing-left') {
      log(`nothing left to push: ${remote}/${branch} already holds our data or a later collection`);
      return { outcome: 'superseded', attempts: attempt };
    }
  }
}
