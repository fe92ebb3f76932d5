import type { APIRoute, GetStaticPaths } from 'astro';
import { BUILT_CHANGES, type BuiltChanges } from '../../../build/changes.ts';
import { datasetCsv } from '../../../changes/csv.ts';
import { CSV_TYPE, type CsvFile, csvFiles, csvName, csvSnapshots } from '../../../changes/urls.ts';

// The CSV files of a dataset (src/changes/urls.ts): the newest snapshot, the newest two years of
// snapshots, and one file per calendar year — static files written at build time, the years taken
// from the snapshots' dates (Content-Disposition on Vercel comes from vercel.json; the file name is
// the download name).
export const prerender = true;
export const getStaticPaths = (() =>
  BUILT_CHANGES.flatMap((built) =>
    csvFiles(built.view.snapshots.map((s) => s.date)).map((file) => ({
      params: { dataset: built.view.definition.path, download: csvName(built.view.dataset, file) },
      props: { built, file },
    })),
  )) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { built, file } = props as { built: BuiltChanges; file: CsvFile };
  const { dataset, snapshots } = built.view;
  const name = `${csvName(dataset, file)}.csv`;
  return new Response(datasetCsv(dataset, csvSnapshots(file, snapshots)), {
    headers: { 'content-type': CSV_TYPE, 'content-disposition': `attachment; filename="${name}"` },
  });
};
