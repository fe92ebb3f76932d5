import type { APIRoute, GetStaticPaths } from 'astro';
import { BUILT_CHANGES, type BuiltChanges } from '../../../../build/changes.ts';
import { atomFeed } from '../../../../changes/feeds.ts';
import { ATOM_TYPE, slugOf } from '../../../../changes/urls.ts';
import { siteUrl } from '../../../../site.ts';
import { websubHub } from '../../../../lib/websub.ts';

// One institution's or issuer's changes, for every one the history ever listed (a feed stays
// after its institution is no longer listed, so that its last entry, the removal, reaches readers).
export const prerender = true;
export const getStaticPaths = (() =>
  BUILT_CHANGES.flatMap((built) =>
    built.entities.map((entity) => ({
      params: { dataset: built.view.definition.path, entity: slugOf(entity.id) },
      props: { built, entity },
    })),
  )) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { built, entity } = props as { built: BuiltChanges; entity: BuiltChanges['entities'][number] };
  const xml = atomFeed(
    { kind: 'entity', dataset: built.changes.dataset, entity },
    [built.changes],
    siteUrl(),
    websubHub(),
  );
  return new Response(xml, { headers: { 'content-type': ATOM_TYPE } });
};
