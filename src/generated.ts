/**
 * What the build step left in GENERATED_DIR (`@generated/`), for the pages and functions to embed. Every import
 * here is resolved at build time; nothing reads the snapshot tree or content/ at request time.
 * (`?raw` keeps type-checking independent of whether a build has run.)
 */
import docsText from '@generated/docs.json?raw';
import type { DocPage } from './docs/pages.ts';

export const DOC_PAGES = JSON.parse(docsText) as DocPage[];
