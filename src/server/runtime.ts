/**
 * The service as deployed: what `npm run build:data` produced — each dataset's newest snapshot,
 * the search index and the MCP server's documents embedded in the bundle (parsed on first use; the
 * documents in a chunk of their own, loaded with them), the history read from its
 * folder of files as requests need it (src/store/history-files.ts) — and the status store chosen
 * from the environment. `npm start` (node-entry.ts), the Vercel function (vercel-function.ts)
 * and Astro's dev server (astro.config.mjs) each make theirs here.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import historyDirText from '@generated/history-dir.json?raw';
import newestText from '@generated/served-newest.json?raw';
import searchIndexText from '@generated/search-index.json?raw';
import { defaultLog } from '../lib/log.ts';
import { createSearchCore } from '../docs/search.ts';
import { mcpAllowedHostsFromEnv } from '../mcp/allowed-hosts.ts';
import { STATUS_CACHE_MS } from '../status/health.ts';
import { createService } from '../service.ts';
import { siteUrl } from '../site.ts';
import type { CompiledStore } from '../store/compile.ts';
import { ServedStore } from '../store/served-store.ts';
import { statusStoreFromEnv } from '../status/from-env.ts';
import { statusReport } from '../status/report.ts';

/**
 * Relative to the working directory: the repository for `npm start`, the function's root on
 * Vercel, where the adapter copies the folder to the same relative path (astro.config.mjs).
 */
const historyDir = resolve(JSON.parse(historyDirText) as string);

let store: Promise<ServedStore> | undefined;

function loadStore(): Promise<ServedStore> {
  store ??= Promise.resolve()
    .then(
      () =>
        new ServedStore(JSON.parse(newestText) as CompiledStore, (path) => readFile(join(historyDir, path), 'utf8')),
    )
    .catch((error: unknown) => {
      store = undefined; // try again on the next request rather than failing forever
      throw error;
    });
  return store;
}

/** The one origin of every absolute URL in an answer (SITE_URL, Vercel's production domain, or the local address). */
export const site = siteUrl();

const status = statusStoreFromEnv();

/** Where every failure of the functions is reported: the one logger, passed down to each part. */
export const log = defaultLog;

/** /api/search: the docs' index, answered like the API. */
const search = createSearchCore(async () => searchIndexText, site, log);

/** What the status page (/status) shows, read now from the same data and status store as health. */
export const statusNow = () => statusReport(loadStore, status, new Date(), log);

/** Everything under /api; `coding` where the deployment codes its own answers (`npm start`, not Vercel). */
export const serviceWith = (coding: boolean) =>
  createService(
    { loadStore, status, siteUrl: site, statusCacheMs: STATUS_CACHE_MS, log },
    {
      coding,
      search,
      mcp: {
        allowedHosts: mcpAllowedHostsFromEnv(),
        documents: () => import('./mcp-documents.ts').then((m) => m.MCP_DOCUMENTS),
      },
    },
  );
