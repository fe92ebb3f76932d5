import type { APIRoute, GetStaticPaths } from 'astro';
import { BUILT_CHANGES, type BuiltChanges } from '../../../changes/built.ts';
import { datasetCsv } from '../../../changes/csv.ts';
import { CSV_TYPE, csvName, type CsvKind } from '../../../changes/urls.ts';

// The newest snapshot and the whole history of a dataset as CSV: static files written at build
// time (Content-Disposition on Vercel comes from vercel.json; the file name is the download name).
export const prerender = true;
export const getStaticPaths = (() =>
  BUILT_CHANGES.flatMap((built) =>
    (['latest', 'history'] as const).map((kind) => ({
      params: { dataset: built.view.definition.path, download: csvName(built.view.dataset, kind) },
      props: { built, kind },
    })),
  )) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { built, kind } = props as { built: BuiltChanges; kind: CsvKind };
  const { dataset, snapshots, latest } = built.view;
  const file = `${csvName(dataset, kind)}.csv`;
  return new Response(datasetCsv(dataset, kind === 'latest' ? [latest] : snapshots), {
    headers: { 'content-type': CSV_TYPE, 'content-disposition': `attachment; filename="${file}"` },
  });
};
