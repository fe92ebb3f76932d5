/**
 * `GET /api/v1/institutions`: the registry of every institution and issuer the history holds
 * (src/explorer/institutions.ts), from each dataset's history index. Worked out once per served
 * store, on the first request, and kept: no request reads the history again.
 */
import { createHash } from 'node:crypto';
import { DATASETS, type DatasetSlug } from '../datasets.ts';
import { institutionRegistry, type ListedEntity } from '../explorer/institutions.ts';
import { INSTITUTIONS_TYPE } from '../schemas/institutions.ts';
import type { ServedStore } from '../store/served-store.ts';
import { envelopeHead, etagFor, readyAnswer, type ReadyHead } from './bodies.ts';
import type { RequestContext } from './context.ts';

const encoder = new TextEncoder();
const kept = new WeakMap<ServedStore, Promise<ReadyHead>>();

async function registryHead(store: ServedStore): Promise<ReadyHead> {
  const listed: Partial<Record<DatasetSlug, readonly ListedEntity[]>> = {};
  const versions: string[] = [];
  let lastUpdated = '';
  for (const { slug } of DATASETS) {
    const archive = await store.history(slug);
    listed[slug] = archive.listedEver();
    versions.push(archive.version);
    if (archive.size > 0 && archive.lastUpdated(archive.latest) > lastUpdated)
      lastUpdated = archive.lastUpdated(archive.latest);
  }
  if (lastUpdated === '') throw new Error('no dataset has a snapshot');
  const data = JSON.stringify(institutionRegistry(listed));
  // Every dataset's content hash, and the registry itself: websites change it without a rate changing.
  const version = createHash('sha1').update(versions.join(' ')).update(data).digest('base64url').slice(0, 16);
  return { head: encoder.encode(envelopeHead(INSTITUTIONS_TYPE, data, lastUpdated)), etag: etagFor({ version }, '') };
}

export async function getInstitutions(ctx: RequestContext) {
  let ready = kept.get(ctx.store);
  if (!ready) {
    ready = registryHead(ctx.store);
    kept.set(ctx.store, ready);
    // Try again on the next request rather than failing for the life of the process.
    ready.catch(() => kept.get(ctx.store) === ready && kept.delete(ctx.store));
  }
  return readyAnswer(await ready, ctx.now);
}
