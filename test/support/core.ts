/**
 * The service in process, over a snapshot tree compiled as the build does, with a fixed clock:
 * the bare core, the REST API as callers see it, and REST with MCP as deployed; and requests to it.
 */
import type { Handler } from '../../src/api/app.ts';
import { withRequestIds } from '../../src/http/request-id.ts';
import { createApi, createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { compileSnapshotTree } from '../../src/store/compile.ts';
import { servedStoreOf } from '../../src/store/history-build.ts';
import { FileStatusStore, type StatusStore } from '../../src/status/status-store.ts';
import { NOW, ORIGIN, SITE } from './constants.ts';
import { tempDir } from './history.ts';

/** The bare core over a snapshot tree, compiled as the build does, with a fixed clock: what a CDN caches. */
export async function coreOver(
  dir: string,
  options: { status?: StatusStore; now?: () => Date; websubHub?: string } = {},
): Promise<Handler> {
  const store = servedStoreOf(await compileSnapshotTree(dir));
  return createApi({
    loadStore: async () => store,
    status: options.status ?? new FileStatusStore(await tempDir('rates-status-')),
    now: options.now ?? (() => NOW),
    siteUrl: SITE,
    // No hub unless a test names one, whatever WEBSUB_HUB_URL the machine running the suite has.
    websubHub: options.websubHub,
  });
}

/** The REST API as callers see it: the core behind the request-id stamp every deployment puts in front of it. */
export async function apiOver(dir: string, options: { status?: StatusStore; now?: () => Date } = {}): Promise<Handler> {
  return withRequestIds(await coreOver(dir, options));
}

/** The service (REST, MCP, the way out) over a snapshot tree: to serve on a socket (http.ts serveService). */
export async function rawServiceOver(
  dir: string,
  options: { now?: () => Date; clock?: () => number; websubHub?: string } & ServiceOptions = {},
): Promise<Service> {
  const store = servedStoreOf(await compileSnapshotTree(dir));
  return createService(
    {
      loadStore: async () => store,
      status: new FileStatusStore(await tempDir('rates-status-')),
      now: options.now ?? (() => NOW),
      clock: options.clock,
      siteUrl: SITE,
      websubHub: options.websubHub,
    },
    options,
  );
}

/** The REST core and the MCP endpoint together, in process, as deployed (request ids stamped). */
export async function serviceOver(dir: string, options: { now?: () => Date } = {}): Promise<Handler> {
  return withRequestIds(await rawServiceOver(dir, options));
}

export function get(api: Handler, path: string, init: RequestInit = {}): Promise<Response> {
  return api(new Request(`${ORIGIN}${path}`, init));
}

export async function getJson(api: Handler, path: string, init: RequestInit = {}) {
  const response = await get(api, path, init);
  return { response, body: (await response.json()) as any };
}
