/**
 * The links file of a dataset, `<dir>/<dataset>/links.json` (src/schemas/links.ts): read, and
 * written only when a website differs, one way (ids in order, 2-space indentation), so its diff
 * shows just the links that moved. A lender the page no longer links keeps its last website.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dataset } from '../datasets.ts';
import { writeFileAtomic } from '../lib/atomic-write.ts';
import { LenderLinks } from '../schemas/links.ts';
import { describeIssues, SnapshotFileError } from './tree.ts';

export const LINKS_FILE = 'links.json';

export const linksPath = (dir: string, dataset: Dataset) => join(dir, dataset.slug, LINKS_FILE);

/** The dataset's links; none before the first is recorded. A file that does not fit is an error naming it. */
export async function readLinks(dir: string, dataset: Dataset): Promise<LenderLinks> {
  const file = linksPath(dir, dataset);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { websites: {} };
    throw error;
  }
  return parseLinks(text, file);
}

export function parseLinks(text: string, file: string): LenderLinks {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SnapshotFileError(file, [`not JSON (${(error as Error).message})`]);
  }
  const parsed = LenderLinks.safeParse(value);
  if (!parsed.success) throw new SnapshotFileError(file, describeIssues(parsed.error.issues, value));
  return parsed.data;
}

function serializeLinks(links: LenderLinks): string {
  const websites = Object.fromEntries(Object.entries(links.websites).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${JSON.stringify({ websites }, null, 2)}\n`;
}

/**
 * Records the websites a collection found over those recorded: written when one differs, else
 * nothing. Returns the ids whose website is new or changed.
 */
export async function saveLinks(dir: string, dataset: Dataset, found: Record<string, string>): Promise<string[]> {
  const { websites } = await readLinks(dir, dataset);
  const moved = Object.keys(found).filter((id) => websites[id] !== found[id]);
  if (moved.length === 0) return [];
  await writeFileAtomic(linksPath(dir, dataset), serializeLinks({ websites: { ...websites, ...found } }));
  return moved.sort();
}
