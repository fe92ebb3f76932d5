import type { APIRoute, GetStaticPaths } from 'astro';
import { lowestChangesAtom } from '../../../../api/alerts.ts';
import { ATOM_TYPE } from '../../../../changes/urls.ts';
import { EXPLORER_VIEWS } from '../../../../generated.ts';
import { comparisonPaths, type DatasetView } from '../../../../explorer/pages.ts';
import { siteUrl } from '../../../../site.ts';
import { websubHub } from '../../../../lib/websub.ts';

// Every change of one compared measure's lowest open rate, beside its comparison page: a static
// file written at build time, served by the CDN.
export const prerender = true;
export const getStaticPaths = (() =>
  EXPLORER_VIEWS.flatMap((view) =>
    // One feed per comparison page of every lender (no filter): the filters narrow the page, not its lowest.
    comparisonPaths(view)
      .filter((p) => p.rest === undefined)
      .map(({ measure }) => ({
        params: { dataset: view.definition.path, measure: measure.slug },
        props: { view, measureKey: measure.key },
      })),
  )) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { view, measureKey } = props as { view: DatasetView; measureKey: string };
  return new Response(lowestChangesAtom(view.dataset, view.snapshots, measureKey, siteUrl(), websubHub()), {
    headers: { 'content-type': ATOM_TYPE },
  });
};
