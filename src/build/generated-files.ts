/**
 * Where the build leaves what the site and the functions embed (never committed): GENERATED_DIR,
 * default .generated; pages import it as `@generated/…` (an alias set in astro.config.mjs).
 */
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../lib/atomic-write.ts';
import type { SiteData } from './site-data.ts';

export const GENERATED_DIR = resolve(process.env.GENERATED_DIR ?? '.generated');

export const GENERATED_FILES = {
  store: 'served-store.json',
  newest: 'served-newest.json',
  openapi: 'openapi.json',
  pages: 'docs.json',
  searchIndex: 'search-index.json',
  llms: 'llms.txt',
  llmsFull: 'llms-full.txt',
} as const;

/** Write every artifact; returns the size of each in bytes. */
export async function writeSiteData(data: SiteData, dir = GENERATED_DIR): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const [key, file] of Object.entries(GENERATED_FILES)) {
    const value = data[key as keyof SiteData];
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    await writeFileAtomic(join(dir, file), text);
    sizes[file] = Buffer.byteLength(text);
  }
  return sizes;
}
