/** Markdown → HTML for the docs, with GitHub-style heading ids so anchors like #no_data are stable. */
import GithubSlugger from 'github-slugger';
import { Marked, type Tokens } from 'marked';

export interface Heading {
  depth: number;
  text: string;
  id: string;
}

// Emphasis with `*` only: underscores belong to identifiers such as institution_not_found.
const stripInline = (text: string) =>
  text
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*{1,2}([^*]+)\*{1,2}/g, '$1');

export function renderMarkdown(markdown: string): { html: string; headings: Heading[] } {
  const slugger = new GithubSlugger();
  const headings: Heading[] = [];
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Heading['tokens']): string } }, token: Tokens.Heading) {
        const text = stripInline(token.text);
        const id = slugger.slug(text);
        headings.push({ depth: token.depth, text, id });
        const inner = this.parser.parseInline(token.tokens);
        // The "#" beside a heading is a pointer's shortcut to its address: hidden from screen
        // readers and out of the tab order (the heading itself is what they announce).
        return `<h${token.depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true" tabindex="-1">#</a>${inner}</h${token.depth}>\n`;
      },
    },
  });
  // Code blocks and tables can scroll sideways (a table does on a phone): in the tab order, so a
  // keyboard can scroll them.
  const html = (marked.parse(markdown, { async: false }) as string)
    .replaceAll('<pre>', '<pre tabindex="0">')
    .replaceAll('<table>', '<table tabindex="0">');
  return { html, headings };
}

/** Plain text of Markdown, for search and snippets. */
export function markdownToText(markdown: string): string {
  return stripInline(
    markdown
      .replace(/```[\s\S]*?```/g, (block) => block.replace(/```\w*/g, ''))
      .replace(/^#+\s*/gm, '')
      .replace(/^\|?[-:| ]+\|?$/gm, '')
      .replace(/\|/g, ' '),
  )
    .replace(/\s+/g, ' ')
    .trim();
}
