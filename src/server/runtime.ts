/**
 * The functions as deployed: what `npm run build:data` produced — each dataset's newest snapshot
 * and the search index embedded in the server bundle (parsed on first use), the history read from
 * its folder of files as requests need it (src/store/history-files.ts) — and the status store
 * chosen from the environment. The Astro routes call these, and so does `npm start`'s direct path
 * to /api (src/server/node-entry.ts).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import historyDirText from '@generated/history-dir.json?raw';
import newestText from '@generated/served-newest.json?raw';
import searchIndexText from '@generated/search-index.json?raw';
import { defaultLog } from '../api/edge.ts';
import { createSearchHandler } from '../docs/search.ts';
import { mcpAllowedHostsFromEnv } from '../mcp/allowed-hosts.ts';
import type { Codings } from '../api/ready.ts';
import { STATUS_CACHE_MS } from '../api/health.ts';
import { createService } from '../service.ts';
import { siteUrl } from '../site.ts';
import type { CompiledStore } from '../store/compile.ts';
import { ServedStore } from '../store/served-store.ts';
import { statusStoreFromEnv } from '../status/from-env.ts';

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

/** /api/v1/* and the MCP endpoint, with the deployment's content codings (none: Vercel's CDN compresses). */
export const serviceWith = (codings?: Codings) =>
  createService(
    { loadStore, status, siteUrl: site, statusCacheMs: STATUS_CACHE_MS, codings, log },
    { allowedHosts: mcpAllowedHostsFromEnv() },
  );

/** The service of the Astro routes (Vercel). `npm start` makes its own, with Node's codings (node-entry.ts). */
export const api = serviceWith();

/** /api/search. */
export const search = createSearchHandler(async () => searchIndexText, site, log);
