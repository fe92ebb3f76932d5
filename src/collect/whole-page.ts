/**
 * Whether a page's text is all of it. A body can end early with no error on the way (a response
 * delimited by the connection's close, a server sending what it had), and an HTML parser closes
 * whatever a cut left open, so a page cut after a row reads as a page with fewer lenders and one
 * cut inside a value as another value. A cut keeps a page's beginning and loses its end, so the
 * page is whole when the end of everything it opens is there, in its raw text: every rate table
 * it opens is closed by a `</table>`, and a page that opens its document (`<html>` or `<body>`)
 * ends it (`</body>` or `</html>`).
 *
 * One pass over the text, each character looked at a bounded number of times: comments, scripts
 * and styles are passed over as a browser passes over them, so a `</table>` written inside a
 * script closes nothing.
 */
import { quote } from '../lib/clean-text.ts';

/** The tags that open or close what a whole page ends, and what the scan passes over. */
const TOKEN = /<!--|<(\/?)(table|html|body|script|style)(?=[\s/>])/gi;
const RAW_TEXT_END: Record<string, RegExp> = { script: /<\/script/gi, style: /<\/style/gi };
/** A rate table's open tag names it by class or id (tables.ts reads the same tables). */
const RATE_TABLE = 'interest_financial_datatable';
/** Characters of the page's end quoted in the evidence: where it stopped. */
const END_QUOTED = 60;

/** Why the page's text is not all of it (the evidence of a refusal), or undefined when it is whole. */
export function cutShort(text: string): string | undefined {
  const tables: boolean[] = []; // the open tables, innermost last: whether each is a rate table
  let rateTables = 0;
  let documentOpened = false;
  let documentEnded = false;
  let inside = '';
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    const end = text.indexOf(m[0] === '<!--' ? '-->' : '>', TOKEN.lastIndex);
    if (end < 0) {
      inside = m[0] === '<!--' ? 'a comment' : `a <${m[1]}${m[2]}> tag`;
      break;
    }
    TOKEN.lastIndex = end + 1;
    if (m[0] === '<!--') continue;
    const name = m[2]!.toLowerCase();
    const closing = m[1] === '/';
    if (!closing && RAW_TEXT_END[name]) {
      const raw = RAW_TEXT_END[name];
      raw.lastIndex = TOKEN.lastIndex;
      if (!raw.exec(text)) {
        inside = `a <${name}>`;
        break;
      }
      TOKEN.lastIndex = raw.lastIndex;
    } else if (name === 'table') {
      if (!closing) {
        const rate = text.slice(m.index, end).includes(RATE_TABLE);
        if (rate) rateTables++;
        tables.push(rate);
      } else tables.pop();
    } else if (closing) documentEnded = true;
    else documentOpened = true;
  }
  const open = tables.filter(Boolean).length;
  const problems = [
    open > 0 ? `${open} of its ${rateTables} rate table(s) not closed (no </table>)` : '',
    documentOpened && !documentEnded ? 'the document does not end (no </body> or </html>)' : '',
    inside ? `it ends inside ${inside}` : '',
  ].filter(Boolean);
  if (problems.length === 0) return undefined;
  const tail = text.slice(-END_QUOTED).replace(/\s+/g, ' ');
  return `${problems.join(', ')}; the text ends after ${text.length.toLocaleString('en')} characters, with ${quote(tail)}`;
}
