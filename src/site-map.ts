/**
 * The site's pages, as /sitemap.xml lists them and the page tests open them (test/pages-axe.test.ts
 * runs axe on each). Made from the tables that make the pages: a docs page (src/docs/pages.ts), a
 * dataset (src/datasets.ts, its explorer facts in src/explorer/definitions.ts) or an institution
 * in the data is listed the build it appears. A page made from no table goes in OWN_PAGES.
 */
import { comparisonUrl, entityUrl } from './explorer/pages.ts';
import { DOC_PAGES, EXPLORER_VIEWS } from './generated.ts';

/** The pages that are their own file in src/pages, not one of a table's. */
const OWN_PAGES = ['/', '/rates', '/rates/changes', '/rates/lenders', '/status', '/openapi', '/openapi/interactive'];

/** Every page's path: the home page, the docs, then the rates pages, then the rest. */
export function sitePaths(): string[] {
  const [home, rates, ...rest] = OWN_PAGES;
  const explorer = EXPLORER_VIEWS.flatMap(({ definition, url, latest }) => [
    url,
    // Every lender on each compared measure; the lender-type filters are the same page narrowed.
    ...definition.measures
      .filter((m) => definition.compared.includes(m.key))
      .map((m) => comparisonUrl(definition, m, { type: 'all', restricted: false })),
    ...latest.data.map((entity) => entityUrl(definition, entity.id)),
  ]);
  return [home!, ...DOC_PAGES.map((p) => p.url), rates!, ...explorer, ...rest];
}

const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', "'": 'apos', '"': 'quot' }[c]};`);

/** The site map as the sitemaps.org protocol writes it, each page's absolute URL under `site`. */
export function siteMapXml(site: string): string {
  const urls = sitePaths().map((path) => `  <url><loc>${escapeXml(`${site}${path}`)}</loc></url>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls,
    '</urlset>',
    '',
  ].join('\n');
}
