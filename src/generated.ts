/**
 * What the build step left in GENERATED_DIR (`@generated/`), for the pages and functions to embed. Every import
 * here is resolved at build time; nothing reads the snapshot tree or content/ at request time.
 * (`?raw` keeps type-checking independent of whether a build has run.)
 */
import docsText from '@generated/docs.json?raw';
import historyText from '@generated/served-store.json?raw';
import type { DocPage } from './docs/pages.ts';
import { datasetViews } from './explorer/pages.ts';
import type { CompiledStore } from './store/compile.ts';

export const DOC_PAGES = JSON.parse(docsText) as DocPage[];

/** The whole history, for the rates explorer's pages (rendered at build time only). */
export const EXPLORER_VIEWS = datasetViews(JSON.parse(historyText) as CompiledStore);
