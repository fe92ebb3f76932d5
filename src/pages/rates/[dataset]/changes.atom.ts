import type { APIRoute, GetStaticPaths } from 'astro';
import { BUILT_CHANGES, type BuiltChanges } from '../../../build/changes.ts';
import { atomFeed } from '../../../changes/feeds.ts';
import { ATOM_TYPE } from '../../../changes/urls.ts';
import { siteUrl } from '../../../site.ts';
import { websubHub } from '../../../lib/websub.ts';

// One dataset's changes: a static file written at build time, served by the CDN.
export const prerender = true;
export const getStaticPaths = (() =>
  BUILT_CHANGES.map((built) => ({
    params: { dataset: built.view.definition.path },
    props: { built },
  }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { changes } = (props as { built: BuiltChanges }).built;
  return new Response(atomFeed({ kind: 'dataset', dataset: changes.dataset }, [changes], siteUrl(), websubHub()), {
    headers: { 'content-type': ATOM_TYPE },
  });
};
