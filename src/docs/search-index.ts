/**
 * The docs search index, built at build time (src/build/site-data.ts): each page split at its
 * level-2 headings, so a result points at the section, not just the page. Kept apart from the
 * handler (search.ts), which loads the index and never needs the Markdown parser.
 */
import MiniSearch from 'minisearch';
import { markdownToText } from './markdown.ts';
import type { DocPage } from './pages.ts';
import { OPTIONS, type Section } from './search.ts';

function sectionsOf(pages: DocPage[]): Section[] {
  return pages.flatMap((page) => {
    const parts = page.markdown.split(/^(?=## )/m);
    const ids = page.headings.filter((h) => h.depth === 2).map((h) => h.id);
    return parts.map((part, i) => {
      const heading = i === 0 ? page.title : (/^## (.*)$/m.exec(part)?.[1] ?? page.title);
      const anchor = i === 0 ? '' : `#${ids[i - 1] ?? ''}`;
      return {
        id: `${page.url}${anchor}`,
        title: page.title,
        url: `${page.url}${anchor}`,
        section: markdownToText(heading),
        text: markdownToText(part),
      };
    });
  });
}

export function buildSearchIndex(pages: DocPage[]): string {
  const index = new MiniSearch<Section>(OPTIONS);
  index.addAll(sectionsOf(pages));
  return JSON.stringify(index);
}
