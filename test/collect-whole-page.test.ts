/**
 * A page is read only when it is whole, and as the text its charset says (src/collect/fetch-page.ts,
 * whole-page.ts, decode.ts). Each page is the newest snapshot in the live page's markup
 * (test/fixtures/real-style-page.ts), sent over a real socket by hand: cut where a connection
 * might end, under a Content-Length that promises more, or in another charset's bytes.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../src/collect/collect.ts';
import { cutShort } from '../src/collect/whole-page.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { MortgageInstitution } from '../src/schemas/rates.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { datasetOfSchema, EACH } from './support/datasets.ts';
import { expectNewestUntouched, newestSnapshots, type SnapshotFile, tempDir, treeOfNewest } from './support/history.ts';
import { type Behaviour, startSourceServer, type SourceServer } from './support/source-server.ts';

/** One retry, so a refusal that is retried shows as two requests. */
const FETCH = { timeoutMs: 5_000, retries: 1, retryDelayMs: 1 };
const TERMED = datasetOfSchema(MortgageInstitution).slug;

let server: SourceServer;
let newest: Record<DatasetSlug, SnapshotFile>;
let snapshots: string;
let status: FileStatusStore;

beforeAll(async () => {
  server = await startSourceServer();
  newest = await newestSnapshots();
});
afterAll(() => server.close());
beforeEach(async () => {
  snapshots = await treeOfNewest();
  status = new FileStatusStore(await tempDir('rates-status-'));
  server.requests.length = 0;
});

const pathOf = (slug: DatasetSlug) => DATASETS.find((d) => d.slug === slug)!.sourcePath;
const requestsOf = (slug: DatasetSlug) => server.requests.filter((r) => r.path === pathOf(slug)).length;

/** Collect the dataset's page as the behaviours answer it: the run's result for that dataset. */
async function collectServed(slug: DatasetSlug, ...behaviours: Behaviour[]) {
  server.serve(pathOf(slug), ...behaviours);
  const [result] = await collect({
    baseUrl: server.url,
    snapshotsDir: snapshots,
    status,
    datasets: [slug],
    now: () => new Date('2026-11-21T03:00:00.000Z'),
    fetch: FETCH,
  });
  return result!;
}

/** A refusal: the rule in the reason and in the result, and the newest snapshot byte for byte as it was. */
async function expectRefused(slug: DatasetSlug, result: Awaited<ReturnType<typeof collectServed>>, rule: string) {
  expect(result.outcome).toBe('failed');
  expect(result.refused).toBe(true);
  expect(result.rule).toBe(rule);
  expect(result.reason).toContain(`refused (${rule}): `);
  await expectNewestUntouched(snapshots, slug);
  return result.reason!;
}

/** The page as the live page writes it. */
const pageOf = (slug: DatasetSlug, data = newest[slug].data) => renderRealStylePage(slug, data);

/** The page up to the end of the row that ends at or after `share` of its rate rows: a cut at a row boundary. */
function cutAtRow(page: string, share: number): string {
  const ends = [...page.matchAll(/<\/tr>/g)].map((m) => m.index + m[0].length);
  return page.slice(0, ends[Math.floor(ends.length * share)]!);
}

describe('a page cut short is refused, never read as a shorter page', () => {
  it.each(EACH)(
    '%s: a body cut at a row boundary, delimited by the connection’s close, is retried, then refused',
    async (slug) => {
      const cut = cutAtRow(pageOf(slug), 0.6);
      const result = await collectServed(slug, { bytes: cut });
      const reason = await expectRefused(slug, result, 'a page cut short');
      expect(reason).toMatch(/rate table\(s\) not closed \(no <\/table>\), the document does not end/);
      expect(reason).toContain(`the text ends after ${cut.length.toLocaleString('en')} characters`);
      expect(requestsOf(slug)).toBe(FETCH.retries + 1);
    },
  );

  it(`${TERMED}: a body cut inside a value ("5.19" become "5.1") is refused, quoting where it ends`, async () => {
    const page = pageOf(TERMED);
    const value = /<td class="right">(\d\.\d\d)<\/td>/.exec(page.slice(page.length / 2))!;
    const at = page.indexOf(value[0], page.length / 2) + '<td class="right">'.length + 3;
    expect(page.slice(at - 3, at + 1)).toBe(value[1]);
    const reason = await expectRefused(
      TERMED,
      await collectServed(TERMED, { bytes: page.slice(0, at) }),
      'a page cut short',
    );
    expect(reason).toContain(`${value[1]!.slice(0, 3)}"`);
  });

  it(`${TERMED}: a page cut inside a value that never opened <html> or <body> is refused by its open table`, async () => {
    // Those tags are optional in HTML: what tells a cut then is the rate table left open.
    const page = pageOf(TERMED).replace(/<\/?(?:html|head|body)>/g, '');
    const reason = await expectRefused(
      TERMED,
      await collectServed(TERMED, { bytes: cutAtRow(page, 0.5).slice(0, -12) }),
      'a page cut short',
    );
    expect(reason).toMatch(/^refused \(a page cut short\): 1 of its \d+ rate table\(s\) not closed \(no <\/table>\);/);
  });

  it.each(EACH)(
    '%s: a body cut after a table’s </table>, before the later sections and </html>, is refused',
    async (slug) => {
      const page = pageOf(slug);
      const ends = [...page.matchAll(/<\/table>/g)].map((m) => m.index + m[0].length);
      expect(ends.length).toBeGreaterThanOrEqual(3);
      const reason = await expectRefused(
        slug,
        await collectServed(slug, { bytes: page.slice(0, ends.at(-2)) }),
        'a page cut short',
      );
      expect(reason).toMatch(/^refused \(a page cut short\): the document does not end \(no <\/body> or <\/html>\);/);
    },
  );

  it(`${TERMED}: a cut page under a Content-Length that matches it is refused too: the markup is what tells`, async () => {
    const cut = cutAtRow(pageOf(TERMED), 0.6);
    const result = await collectServed(TERMED, {
      bytes: cut,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(cut) },
    });
    await expectRefused(TERMED, result, 'a page cut short');
  });

  it(`${TERMED}: a Content-Length larger than what arrives fails the run, retried, the newest snapshot kept`, async () => {
    const page = Buffer.from(pageOf(TERMED));
    const result = await collectServed(TERMED, {
      bytes: page,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': page.byteLength + 100 },
    });
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(/cut short/);
    expect(requestsOf(TERMED)).toBe(FETCH.retries + 1);
    await expectNewestUntouched(snapshots, TERMED);
  });

  it(`${TERMED}: a cut body, then the whole page: the retry is collected`, async () => {
    const page = pageOf(TERMED);
    const result = await collectServed(TERMED, { bytes: cutAtRow(page, 0.3) }, { bytes: page });
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('unchanged');
    expect(requestsOf(TERMED)).toBe(2);
  });

  it(`${TERMED}: end tags in a script or a comment end nothing: the page is read whole, and refused cut after them`, async () => {
    const COMMENT = '<!-- </table></body></html> -->';
    const page = pageOf(TERMED)
      .replace('</head>', `<script>document.write('<table class="interest_financial_datatable">');</script></head>`)
      .replace('</table>', `</table>${COMMENT}`);
    const whole = await collectServed(TERMED, { bytes: page });
    expect(whole.reason).toBeUndefined();
    expect(whole.outcome).toBe('unchanged');
    const cut = page.slice(0, page.indexOf(COMMENT) + COMMENT.length);
    const reason = await expectRefused(TERMED, await collectServed(TERMED, { bytes: cut }), 'a page cut short');
    expect(reason).toContain('the document does not end');
  });

  it.each(EACH)(
    '%s: a cut anywhere from <html> to </body> is told, at every byte near a tag and every 53rd',
    (slug) => {
      for (const page of [pageOf(slug), renderSourcePage(slug, newest[slug].data)]) {
        expect(cutShort(page)).toBeUndefined();
        const from = page.indexOf('<html') + '<html>'.length;
        const to = page.lastIndexOf('</body>') + '</body>'.length;
        const cuts = new Set<number>();
        for (let at = from; at < to; at += 53) cuts.add(at);
        for (const m of page.matchAll(/<\/?(?:table|tbody|tr|td|body)\b/g))
          for (let k = -8; k <= 8; k++) cuts.add(m.index + k);
        const missed = [...cuts].filter((at) => at >= from && at < to && cutShort(page.slice(0, at)) === undefined);
        expect(missed).toEqual([]);
      }
    },
  );

  it.each(EACH)('%s: the whole page sent close-delimited, with no Content-Length, is read', async (slug) => {
    const result = await collectServed(slug, { bytes: pageOf(slug) });
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('unchanged');
  });
});

/**
 * `text` in windows-1252 bytes; a character that charset has no byte for is written as an HTML
 * character reference, as a page in that charset writes it.
 */
function windows1252(text: string): Buffer {
  const high = new TextDecoder('windows-1252').decode(Uint8Array.from({ length: 128 }, (_, i) => 128 + i));
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const at = high.indexOf(char);
    if (code < 128) bytes.push(code);
    else if (at >= 0) bytes.push(128 + at);
    else bytes.push(...Buffer.from(`&#${code};`, 'latin1'));
  }
  return Buffer.from(bytes);
}

describe('text as its charset says', () => {
  const slug = TERMED;
  const NAME = 'Société Générale';
  /** The newest data with a lender named NAME added, and the page of it with its meta tag replaced by `meta`. */
  const pageWith = (meta: string) => {
    const data = structuredClone(newest[slug].data) as any[];
    data.push({ ...structuredClone(data[0]), name: NAME });
    return pageOf(slug, data).replace('<meta charset="utf-8" />', meta);
  };
  const writtenNames = async () => {
    const [file] = (await readdir(join(snapshots, slug))).filter((n) => n.startsWith('2026-11-21'));
    return (JSON.parse(await readFile(join(snapshots, slug, file!), 'utf8')).data as any[]).map((e) => e.name);
  };

  it.each([
    ['the Content-Type header', 'text/html; charset=windows-1252', '<meta charset="windows-1252">'],
    ['a <meta charset>', 'text/html', '<meta charset="windows-1252">'],
    [
      'a <meta http-equiv="Content-Type">',
      'text/html',
      '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
    ],
  ])('a windows-1252 page declared by %s publishes "Société Générale", never U+FFFD', async (_, type, meta) => {
    const bytes = windows1252(pageWith(meta));
    expect(bytes.includes(Buffer.from([0xe9]))).toBe(true); // é as one windows-1252 byte
    const result = await collectServed(slug, { bytes, headers: { 'content-type': type } });
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('written');
    const names = await writtenNames();
    expect(names).toContain(NAME);
    expect(names.join()).not.toContain('\ufffd');
  });

  it('a UTF-8 body cut inside a character is a page cut short, not a charset', async () => {
    const bytes = Buffer.from(pageWith('<meta charset="utf-8">'));
    const at = bytes.indexOf(Buffer.from('é')) + 1; // the first of é's two bytes
    const reason = await expectRefused(
      slug,
      await collectServed(slug, { bytes: bytes.subarray(0, at) }),
      'a page cut short',
    );
    expect(reason).toContain('the document does not end');
  });

  it('the header’s charset comes before a <meta>’s', async () => {
    const bytes = windows1252(pageWith('<meta charset="utf-8">'));
    const result = await collectServed(slug, {
      bytes,
      headers: { 'content-type': 'text/html; charset=windows-1252' },
    });
    expect(result.outcome).toBe('written');
    expect(await writtenNames()).toContain(NAME);
  });

  it.each([
    ['declared UTF-8 by its header', 'text/html; charset=utf-8', 'utf-8 (declared by the Content-Type header)'],
    ['declared UTF-8 by its <meta>', 'text/html', 'utf-8 (declared by a <meta> tag)'],
    ['declaring nothing', 'text/html', 'utf-8 (none declared, so UTF-8)'],
  ])('a page %s whose bytes are not UTF-8 is refused at once, naming the charset', async (what, type, named) => {
    const meta = what.includes('<meta>') ? '<meta charset="utf-8">' : '';
    const bytes = windows1252(pageWith(meta));
    const reason = await expectRefused(
      slug,
      await collectServed(slug, { bytes, headers: { 'content-type': type } }),
      'a page it cannot decode',
    );
    expect(reason).toContain(`the bytes are not valid ${named}`);
    expect(requestsOf(slug)).toBe(1); // the same bytes would come again
  });

  it.each([
    ['its Content-Type header', { 'content-type': 'text/html; charset=x-klingon' }, '', 'the Content-Type header'],
    ['its <meta>', { 'content-type': 'text/html' }, '<meta charset="x-klingon">', 'a <meta> tag'],
  ])('a charset no decoder knows, named by %s, is refused naming it', async (_, headers, meta, by) => {
    const bytes = Buffer.from(pageOf(slug).replace('<meta charset="utf-8" />', meta));
    const reason = await expectRefused(slug, await collectServed(slug, { bytes, headers }), 'a page it cannot decode');
    expect(reason).toContain(`charset "x-klingon", declared by ${by}, is no charset a decoder knows`);
  });
});
