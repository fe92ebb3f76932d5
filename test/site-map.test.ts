/**
 * /sitemap.xml (src/site-map.ts) lists what CHANGELOG.md says it lists: made here from the test
 * history in process, as the build makes it from the snapshots, and compared with every page the
 * site's routes make of the same data.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { comparisonPaths, comparisonUrl, entityMeasurePaths, entityUrl } from '../src/explorer/pages.ts';
import { slugOf } from '../src/changes/urls.ts';
import { ROOT } from './support/constants.ts';

// What the build leaves in GENERATED_DIR for the pages, made from the test history.
vi.mock('../src/generated.ts', async () => {
  const { buildSiteData } = await import('../src/build/site-data.ts');
  const { datasetViews } = await import('../src/explorer/pages.ts');
  const { historyDir } = await import('./support/history.ts');
  const { ROOT: root } = await import('./support/constants.ts');
  const { join: joinPath } = await import('node:path');
  const data = await buildSiteData({
    snapshotsDir: historyDir(),
    contentDir: joinPath(root, 'content/docs'),
    site: 'https://rates.example',
  });
  return { DOC_PAGES: data.pages, EXPLORER_VIEWS: datasetViews(data.store) };
});

const { sitePaths } = await import('../src/site-map.ts');
const { DOC_PAGES, EXPLORER_VIEWS } = await import('../src/generated.ts');

describe('the site map', () => {
  it('lists the pages CHANGELOG.md says, and leaves out the ones it says', async () => {
    const listed = sitePaths();
    const views = EXPLORER_VIEWS;
    expect(views.length).toBeGreaterThan(0);
    const kept = [
      '/',
      ...DOC_PAGES.map((p) => p.url),
      '/status',
      '/openapi',
      '/openapi/interactive',
      '/rates',
      '/rates/changes',
      '/rates/lenders',
      ...views.flatMap((view) => [
        view.url,
        ...comparisonPaths(view)
          .filter(({ filter }) => filter.type === 'all' && !filter.restricted)
          .map(({ measure, filter }) => comparisonUrl(view.definition, measure, filter)),
        ...view.latest.data.map((entity) => entityUrl(view.definition, entity.id)),
      ]),
    ];
    const left = views.flatMap((view) => [
      ...comparisonPaths(view)
        .filter(({ filter }) => filter.type !== 'all' || filter.restricted)
        .map(({ measure, filter }) => comparisonUrl(view.definition, measure, filter)),
      ...entityMeasurePaths(view).map(
        ({ entity, measure }) => `/rates/${view.definition.path}/${slugOf(entity.id)}/${measure.slug}`,
      ),
    ]);
    expect(left.length).toBeGreaterThan(0);
    expect([...listed].sort()).toEqual([...new Set(kept)].sort());
    for (const path of left) expect(listed).not.toContain(path);

    const changelog = (await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8')).replace(/\s+/g, ' ');
    expect(changelog).toContain(
      "`/sitemap.xml`, announced in `/robots.txt`: the home page, every docs page, the status page, the two API reference pages, and the rates pages — the hub, the change page, the lenders page, each dataset's page, each compared measure's page (every lender) and each listed institution's or issuer's page. It leaves out the narrowed views of a comparison (banks, non-banks, restricted offers shown) and an institution's page per measure.",
    );
  });
});
