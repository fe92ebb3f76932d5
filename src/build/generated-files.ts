/**
 * Where the build leaves what the site and the functions embed (never committed): GENERATED_DIR,
 * default .generated; pages import it as `@generated/…` (an alias set in astro.config.mjs).
 */
import { rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { writeFileAtomic } from '../lib/atomic-write.ts';
import type { SiteData } from './site-data.ts';

export const GENERATED_DIR = resolve(process.env.GENERATED_DIR ?? '.generated');

/**
 * The history folder the functions read (src/store/history-files.ts). The functions find it by its
 * path relative to the working directory, which is the repository for `npm start` and the
 * function's root on Vercel (where astro.config.mjs has the adapter copy it to the same path).
 */
const HISTORY_FOLDER = 'history';

const GENERATED_FILES = {
  /** The whole compiled history, for the pages rendered at build time (never bundled into a function). */
  store: 'served-store.json',
  /** The history folder's path, relative to the working directory (a JSON string). */
  historyDir: 'history-dir.json',
  newest: 'served-newest.json',
  openapi: 'openapi.json',
  pages: 'docs.json',
  searchIndex: 'search-index.json',
  llms: 'llms.txt',
  llmsFull: 'llms-full.txt',
  /** The docs' Markdown and the OpenAPI document, for the API function's MCP resources (loaded on first use). */
  mcpDocuments: 'mcp-documents.json',
} as const;

/** Write every artifact; returns the size of each in bytes. */
export async function writeSiteData(data: SiteData, dir = GENERATED_DIR): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  const historyDir = join(dir, HISTORY_FOLDER);
  const values: Record<keyof typeof GENERATED_FILES, unknown> = {
    ...data,
    historyDir: JSON.stringify(relative(process.cwd(), historyDir)),
  };
  for (const [key, file] of Object.entries(GENERATED_FILES)) {
    const value = values[key as keyof typeof GENERATED_FILES];
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    await writeFileAtomic(join(dir, file), text);
    sizes[file] = Buffer.byteLength(text);
  }
  // A year or dataset gone from the snapshots must not linger from an earlier build.
  await rm(historyDir, { recursive: true, force: true });
  sizes[HISTORY_FOLDER] = 0;
  for (const [path, text] of data.history) {
    await writeFileAtomic(join(historyDir, path), text);
    sizes[HISTORY_FOLDER] += Buffer.byteLength(text);
  }
  return sizes;
}
