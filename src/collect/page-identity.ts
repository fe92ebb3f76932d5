/**
 * Whether a page is the dataset's rates page, judged on several of its features together so that
 * no one of them decides alone: a challenge widget in a real page's footer does not refuse it, and
 * a neighbour page does not pass for it.
 *
 * For the page (`page`, the dataset's SourcePage):
 * - named: its `<title>` or its first `<h1>` says the page's words (`page.title`);
 * - headed: it has rate tables, and every one's header row maps to the page's columns (mapHeaders);
 * - in sections: every rate table stands under a section heading of its own (an `h2.pane-title`
 *   after the table before it), whatever the heading says: the live page's headings are not recorded.
 * Against it:
 * - elsewhere: its title or h1 says another dataset's page's words (that page's own pattern, so
 *   "home loans" names the mortgage page and no loan page);
 * - challenge: a block or challenge page's words in its title or h1, or its markup anywhere.
 *
 * The decision, in this order:
 * 1. challenge, and no rate table headed as this page's: a block or challenge page;
 * 2. elsewhere, whether or not it names this page too: not the page asked for;
 * 3. named: the page (a table headed otherwise is then refused by its headers, tables.ts);
 * 4. headed and in sections: the page, its title and heading changed;
 * 5. else: not the page asked for.
 * The personal-loan and car-loan pages share one layout: only the words of their titles and
 * headings tell them apart, so one whose title and heading name neither passes for the other.
 */
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { DATASETS } from '../datasets.ts';
import { cut, QUOTE_MAX_CHARS, quote } from '../lib/clean-text.ts';
import { readCellText } from './cells.ts';
import { foldHeader, type SourcePage } from './page-layout.ts';

/** Words of a block or challenge page, in its title or heading. */
const CHALLENGE =
  /just a moment|attention required|access denied|are you (?:a )?human|captcha|verify (?:that )?you are|checking your browser|request (?:was )?blocked|too many requests|forbidden/;
/** Markup of the usual challenge pages. */
const CHALLENGE_MARKUP = '#challenge-form, #cf-challenge-running, .cf-browser-verification, .g-recaptcha, #px-captcha';

const RATE_TABLES = 'table.interest_financial_datatable, table#interest_financial_datatable';
const SECTION_HEADING = 'h2.pane-title';

/** Title words fold like headers, with `-` and `|` as spaces ("home-loans | rates" reads as "home loans rates"). */
const foldTitle = (text: string) => foldHeader(cut(text, QUOTE_MAX_CHARS).replace(/[-_|–—]/g, ' '));

/**
 * tables.ts's mapHeaders, which throws when a header row is not the page's columns. Passed in, not
 * imported: the table reader calls this module, so an import back would make a circle.
 */
export type HeaderMap = (headers: readonly string[], page: SourcePage, table: number) => unknown;

/** Why the page is not the one asked for: the rule and the evidence a PageRefusal carries. */
export interface NotThePage {
  rule: string;
  evidence: string;
}

/** The texts of a table's header row: its `thead` row, or else a first row of `th` cells (as tables.ts reads it). */
function headerTexts($: CheerioAPI, table: Element): string[] | undefined {
  let row = $(table).children('thead').children('tr').first();
  if (row.length === 0) {
    row = $(table).children('tbody').children('tr').add($(table).children('tr')).first();
    if (row.children('td').length > 0 || row.children('th').length === 0) return undefined;
  }
  return row
    .children('th, td')
    .toArray()
    .map((cell) => readCellText(cell).text);
}

/** Whether a header row is the page's columns: mapHeaders refuses it otherwise. */
function headedAs(headers: readonly string[], page: SourcePage, table: number, mapHeaders: HeaderMap): boolean {
  try {
    mapHeaders(headers, page, table);
    return true;
  } catch {
    return false;
  }
}

/** The page's features, counted (see the module's comment). */
function features($: CheerioAPI, page: SourcePage, mapHeaders: HeaderMap) {
  let tables = 0;
  let headed = 0;
  let inSections = 0;
  let heading = false;
  // Headings and tables in document order: a table is in a section when a heading came since the table before it.
  for (const element of $(`${SECTION_HEADING}, ${RATE_TABLES}`).toArray()) {
    if ($(element).is(SECTION_HEADING)) {
      heading = true;
      continue;
    }
    tables++;
    if (heading) inSections++;
    heading = false;
    const headers = headerTexts($, element);
    if (headers && headedAs(headers, page, tables - 1, mapHeaders)) headed++;
  }
  return { tables, headed, inSections };
}

/** Why the page is not the one asked for, or a block or challenge page; undefined when it is the page. */
export function checkPage($: CheerioAPI, page: SourcePage, mapHeaders: HeaderMap): NotThePage | undefined {
  const said = [$('title').first().text(), $('h1').first().text()].map(foldTitle);
  const { tables, headed, inSections } = features($, page, mapHeaders);
  const found = `title ${quote(said[0]!)}, heading ${quote(said[1]!)}; ${headed} of ${tables} rate table(s) headed as this page's, ${inSections} under a section heading`;
  if ((said.some((text) => CHALLENGE.test(text)) || $(CHALLENGE_MARKUP).length > 0) && headed === 0) {
    return { rule: 'a block or challenge page, not the rates page', evidence: found };
  }
  const elsewhere = DATASETS.filter((d) => d.page !== page && said.some((text) => d.page.title.test(text)));
  if (elsewhere.length > 0) {
    const pages = elsewhere.map((d) => `the ${d.label} page (${d.page.title})`).join(' and ');
    return { rule: 'not the page asked for', evidence: `${found}: the title or heading names ${pages}` };
  }
  if (said.some((text) => page.title.test(text))) return undefined;
  if (tables > 0 && headed === tables && inSections === tables) return undefined;
  return {
    rule: 'not the page asked for',
    evidence: `${found}; expected the title or heading to match ${page.title}, or every rate table headed as this page's under a section heading`,
  };
}
