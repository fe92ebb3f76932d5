/**
 * How the collector reads a page it has never seen in our own style: a real page of the source
 * site (test/fixtures/real-pages, the same table module as the lending pages), columns read by
 * their headers wherever they stand, the page checked to be the one asked for, rows that name no
 * institution refused, and a cell read as a number only when the whole cell is one.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanName, readNumber } from '../src/collect/cells.ts';
import { MAX_UNREADABLE_SHARE, unreadableRefusal } from '../src/collect/guards.ts';
import { foldHeader, type SourcePage } from '../src/collect/page-layout.ts';
import { PAGE_PARSERS } from '../src/collect/parsers/index.ts';
import { websiteOf } from '../src/collect/links.ts';
import { entityRuns, PageRefusal, readRateTables } from '../src/collect/tables.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { MortgageInstitution } from '../src/schemas/rates.ts';
import { headerRow, renderSourcePage } from './fixtures/source-page.ts';
import { datasetOfSchema, EACH } from './support/datasets.ts';
import { newestSnapshots } from './support/history.ts';

/** The page of termed rates (a column per term): the layout the column tests below write. */
const TERMED = datasetOfSchema(MortgageInstitution);

const REAL_PAGE = join(import.meta.dirname, 'fixtures/real-pages/saving-call-account-2020-07-17.html');
/** The real page's address on the source site, as the repository that published it writes it (test/fixtures/real-pages). */
const REAL_PAGE_PATH = '/saving/call-account';
/** The dataset whose page it is, if the table has one: its parser must read it, every other one refuse it. */
const ITS_OWN = DATASETS.filter((d) => d.page.path === REAL_PAGE_PATH);
const OTHERS = DATASETS.filter((d) => d.page.path !== REAL_PAGE_PATH);

/** The savings page's own layout, declared as a lending page's is, for a table with no dataset of that page. */
const SAVINGS: SourcePage = {
  path: REAL_PAGE_PATH,
  title: /\bsavings\b/,
  item: 'account',
  columns: [
    { key: 'institution', label: 'institution', header: /^institution$/ },
    { key: 'rating', label: 'credit rating', header: /^credit rating$/ },
    { key: 'account', label: 'account type', header: /^account type$/ },
    { key: 'deposit', label: 'minimum deposit', header: /^minimum deposit \$$/ },
    { key: 'rate', label: 'interest rate', header: /^interest rate %$/ },
  ],
};
/** What the shared reader reads it by: its own dataset's layout, where the table has one (any other would be refused as its page). */
const READ_BY: SourcePage = ITS_OWN[0]?.page ?? SAVINGS;
/** The key of the column that header names, in that layout. */
const keyOf = (header: string) => READ_BY.columns.find((c) => c.header.test(foldHeader(header)))!.key;

/** Why a parser refused a page. */
function refusal(parse: () => unknown): PageRefusal {
  try {
    parse();
  } catch (error) {
    if (error instanceof PageRefusal) return error;
    throw error;
  }
  throw new Error('the page was not refused');
}

describe('a real page of the source site (2020 savings page, the same table module)', () => {
  it('the shared reader reads it right: names from alt (not the slogan), grouping, values', async () => {
    const html = await readFile(REAL_PAGE, 'utf8');
    const { tableCount, rows } = readRateTables(html, READ_BY);
    expect(tableCount).toBe(5);
    const runs = entityRuns(rows);
    const names = runs.map((r) => r.name);
    expect(names).toHaveLength(31);
    // Logos: the alt is the name, the title a slogan ("Invest in Heartland to invest in New Zealand").
    expect(names).toEqual(expect.arrayContaining(['Heartland Bank', 'RaboDirect', 'TSB Bank', 'Forsyth Barr']));
    expect(names.join(' ')).not.toMatch(/invest in|click here|find out more/i);
    // Stray characters cleaned; labels the alias table knows take the history's name.
    expect(names).toEqual(expect.arrayContaining(['SBS Bank', 'ICBC', 'Christian Savings', 'Nelson Bldg Society']));
    const anz = runs.find((r) => r.name === 'ANZ')!;
    const texts = ['Account type', 'Credit Rating', 'Minimum deposit $', 'Interest rate %'].map(keyOf);
    expect(anz.rows.map((r) => texts.map((key) => r.text(key)))).toEqual([
      ['Online savings', 'AA-', '$1', '0.05'],
      ['Select', 'AA-', '$5,000', '0.05'],
    ]);
    expect(readNumber(anz.rows[1]!.text(keyOf('Minimum deposit $')), 'money')).toEqual({ value: 5000 });
    const asb = runs.find((r) => r.name === 'ASB')!;
    expect(asb.rows[0]!.text('rate')).toBe('0.05'); // a value inside a link
  });

  it('the links of its name cells, as written: the directory for most, a campaign logo’s own site with tracking', async () => {
    const { links } = readRateTables(await readFile(REAL_PAGE, 'utf8'), READ_BY);
    expect(links).toHaveLength(31);
    expect(links.find((l) => l.entity === 'ANZ')?.href).toBe('https://www.interest.co.nz/directory#anz');
    const websites = Object.fromEntries(
      links.flatMap(({ entity, href }) => {
        const website = websiteOf(href, `https://www.interest.co.nz${REAL_PAGE_PATH}`);
        return website ? [[entity, website]] : [];
      }),
    );
    // Four of 31 names link off the source site, each a logo whose alt is the name.
    expect(websites).toEqual({
      'Heartland Bank': 'https://www.heartland.co.nz/savings-and-deposits/savings-account',
      RaboDirect: 'https://www.rabobank.co.nz/interest-rates/',
      'TSB Bank': 'https://www.tsbbank.co.nz/',
      'Forsyth Barr': 'http://www.forbar.co.nz/',
    });
  });

  it.each(ITS_OWN.map((d) => d.slug))('the %s parser, whose page it is, reads every cell of it', async (slug) => {
    const { tableCount, data, cells } = PAGE_PARSERS[slug](await readFile(REAL_PAGE, 'utf8'));
    expect(tableCount).toBe(5);
    expect(data).toHaveLength(31);
    expect(cells.read).toBeGreaterThan(0);
    expect(cells.unreadable).toEqual([]);
  });

  it.each(OTHERS.map((d) => d.slug))('the %s parser refuses it: not the page asked for', async (slug) => {
    const html = await readFile(REAL_PAGE, 'utf8');
    const refused = refusal(() => PAGE_PARSERS[slug](html));
    expect(refused.rule).toBe('not the page asked for');
    expect(refused.evidence).toContain('standard savings accounts');
  });

  it.each(OTHERS.map((d) => d.slug))(
    'the %s parser refuses it by its headers too, when the title and heading are no guide',
    async (slug: DatasetSlug) => {
      const titled = (await readFile(REAL_PAGE, 'utf8'))
        .replace(/<title>[^<]*<\/title>/, `<title>${slug} | interest.co.nz</title>`)
        .replace(/<h1 class="title">[^<]*<\/h1>/, `<h1 class="title">${slug}</h1>`);
      const refused = refusal(() => PAGE_PARSERS[slug](titled));
      expect(refused.rule).toBe('table headers do not match');
      // What a maintainer needs to fix the mapping: the headers found and the columns expected.
      expect(refused.evidence).toContain('headers found: "Institution" | "Credit Rating" | "Account type"');
      expect(refused.evidence).toContain('expected: ');
    },
  );
});

/** A page of termed rates with these header cells and one ANZ row of these cells. */
function mortgagePage(headers: string[], cells: string[]): string {
  return `<html><head><title>${TERMED.slug} | interest.co.nz</title></head><body>
<table id="interest_financial_datatable" class="interest_financial_datatable">
<thead><tr>${headers.map((h) => `<th>${h}</th>`).join('')}</tr></thead>
<tbody><tr class="primary_row"><td class="inst-name"><a title="ANZ">ANZ</a></td>${cells.map((c) => `<td>${c}</td>`).join('')}</tr></tbody>
</table></body></html>`;
}

const TERMS = ['Variable floating', '6 months', '1 year', '2 years', '3 years', '4 years', '5 years'];
const ratesOf = (html: string) =>
  (PAGE_PARSERS[TERMED.slug](html).data[0] as any).products[0].rates.map((r: any) => [r.term, r.rate]);

describe('columns read by their headers', () => {
  it('an added 18-month column is the 18-month rate, and every later term keeps its own', () => {
    const headers = ['Institution', 'Product', ...TERMS.slice(0, 3), '18<br>months', ...TERMS.slice(3)];
    const html = mortgagePage(headers, ['Special', '6.94', '6.39', '5.79', '5.69', '5.59', '5.55', '5.65', '5.75']);
    expect(ratesOf(html)).toEqual([
      ['Variable floating', 6.94],
      ['6 months', 6.39],
      ['1 year', 5.79],
      ['18 months', 5.69],
      ['2 years', 5.59],
      ['3 years', 5.55],
      ['4 years', 5.65],
      ['5 years', 5.75],
    ]);
  });

  it('columns in another order, headers broken over lines, are read by what they say', () => {
    const headers = [
      'Institution',
      'Product',
      '5<br>years',
      '1<br>year',
      'Variable<br>floating',
      '6<br>mths',
      '2 yrs',
      '4 years',
      '3 years',
    ];
    const html = mortgagePage(headers, ['Special', '5.75', '5.79', '6.94', '6.39', '5.59', '5.65', '5.55']);
    expect(ratesOf(html)).toEqual([
      ['Variable floating', 6.94],
      ['6 months', 6.39],
      ['1 year', 5.79],
      ['2 years', 5.59],
      ['3 years', 5.55],
      ['4 years', 5.65],
      ['5 years', 5.75],
    ]);
  });

  it('a header no column is known by is refused, printing the headers found and the columns expected', () => {
    const html = mortgagePage(
      ['Institution', 'Product', ...TERMS, 'Cashback'],
      ['Special', '1', '2', '3', '4', '5', '6', '7', '8'],
    );
    const refused = refusal(() => PAGE_PARSERS[TERMED.slug](html));
    expect(refused.rule).toBe('table headers do not match');
    expect(refused.evidence).toContain('no column is known by "Cashback"');
    expect(refused.evidence).toContain('"Institution" | "Product" | "Variable floating"');
    expect(refused.evidence).toContain(
      'expected: institution, product, Variable floating, 6 months, 1 year, 18 months (optional)',
    );
  });

  it('a missing column is refused', () => {
    const html = mortgagePage(
      ['Institution', 'Product', ...TERMS.filter((t) => t !== '4 years')],
      ['Special', '1', '2', '3', '4', '5', '6'],
    );
    expect(refusal(() => PAGE_PARSERS[TERMED.slug](html)).evidence).toContain('no 4 years column');
  });

  it('a table without a header row is refused', () => {
    const html = mortgagePage([], ['Special', '6.94']).replace('<thead><tr></tr></thead>', '');
    expect(refusal(() => PAGE_PARSERS[TERMED.slug](html)).evidence).toContain('has no header row');
  });
});

describe('the page asked for, and nothing else', () => {
  it.each(EACH)('the page of %s served as any other dataset’s is refused by its title', async (slug, dataset) => {
    const html = renderSourcePage(slug, (await newestSnapshots())[slug].data);
    for (const other of DATASETS.filter((d) => d !== dataset)) {
      const refused = refusal(() => PAGE_PARSERS[other.slug](html));
      expect(refused.rule, other.slug).toBe('not the page asked for');
      expect(refused.evidence, other.slug).toContain(dataset.label);
    }
  });

  it.each(EACH)('a block or challenge page is refused as such by the %s parser', (slug) => {
    for (const html of [
      '<html><head><title>Just a moment...</title></head><body><div id="challenge-form"></div></body></html>',
      '<html><head><title>Attention Required! | Cloudflare</title></head><body><h1>Sorry, you have been blocked</h1></body></html>',
      `<html><head><title>${slug}</title></head><body><div class="g-recaptcha"></div></body></html>`,
    ])
      expect(refusal(() => PAGE_PARSERS[slug](html)).rule).toBe('a block or challenge page, not the rates page');
  });

  it('a row that starts an institution with no usable name is refused, never filed under the one above', () => {
    const html = mortgagePage(
      ['Institution', 'Product', ...TERMS],
      ['Special', '1', '2', '3', '4', '5', '6', '7'],
    ).replace(
      '</tbody>',
      '<tr class="primary_row"><td class="inst-name"><a title="Home Loans – Apply now"><img src="/l.png" title="Home Loans – Apply now"></a></td><td>Standard</td><td>7.5</td><td></td><td></td><td></td><td></td><td></td><td></td></tr></tbody>',
    );
    const refused = refusal(() => PAGE_PARSERS[TERMED.slug](html));
    expect(refused.rule).toBe('a row starts an institution with no usable name');
    expect(refused.evidence).toContain('Standard | 7.5');
  });

  const nestedTables = (slug: DatasetSlug, count: number) => {
    const table = (inner: string) =>
      `<table class="interest_financial_datatable">${headerRow(slug)}<tbody><tr class="primary_row"><td>ANZ</td><td>${inner}</td></tr></tbody></table>`;
    let inner = 'Special';
    for (let i = 0; i < count; i++) inner = table(inner);
    return `<html><head><title>${slug}</title></head><body>${inner}</body></html>`;
  };

  it.each(EACH)('%s: a rate table inside a rate table is refused', (slug) => {
    expect(refusal(() => PAGE_PARSERS[slug](nestedTables(slug, 20))).rule).toBe('a rate table inside a table');
  });

  // Read cubically, 300 nested tables took 88 s: past this file's 30 s test timeout.
  it.each(EACH)('%s: 300 nested rate tables are refused, read in time linear in the page', (slug) => {
    expect(refusal(() => PAGE_PARSERS[slug](nestedTables(slug, 300))).rule).toBe('markup nested too deep');
  });

  it.each(EACH)('%s: markup nested deeper than any page is refused', (slug) => {
    const html = `<html><head><title>${slug}</title></head><body>${'<div>'.repeat(5000)}x${'</div>'.repeat(5000)}</body></html>`;
    expect(refusal(() => PAGE_PARSERS[slug](html)).rule).toBe('markup nested too deep');
  });
});

describe('cells', () => {
  it.each([['see note 3'], ['POA 2'], ['.5'], ['3 9'], ['NaN'], ['1e308'], ['4.5.6'], ['5.79% pa extra'], ['$5.79']])(
    '"%s" is not a rate: unreadable, never a guess',
    (text) => {
      expect(readNumber(text, 'rate')).toEqual({ value: null, unreadable: true });
    },
  );

  it.each([
    ['', null],
    ['&nbsp;', null],
    ['-', null],
    ['n/a', null],
    ['—', null],
  ])('"%s" is no value, and not an error', (text) => {
    expect(readNumber(text.replace('&nbsp;', '\u00a0'), 'rate')).toEqual({ value: null, unreadable: false });
  });

  it.each([
    ['5.79', 'rate', 5.79],
    ['5.79%', 'rate', 5.79],
    ['5.79% p.a.', 'rate', 5.79],
    ['5.79 p.a.', 'rate', 5.79],
    ['５.７９％', 'rate', 5.79],
    ['$1,250', 'money', 1250],
    ['＄１，２５０', 'money', 1250],
    ['0', 'rate', 0],
    ['6.49*', 'rate', 6.49],
    ['55 days', 'days', 55],
  ] as const)('"%s" read as %s is %d', (text, kind, value) => {
    expect(readNumber(text, kind)).toEqual({ value });
  });

  it('unreadable cells are named, and past the stated share they refuse the page', () => {
    const cells = ['see note 3', 'POA 2', '5.79', '5.59'];
    const html = mortgagePage(['Institution', 'Product', ...TERMS], ['Special', ...cells, '', '', '']);
    const parsed = PAGE_PARSERS[TERMED.slug](html);
    expect(parsed.cells).toEqual({
      read: 4,
      unreadable: ['ANZ · Special · Variable floating: "see note 3"', 'ANZ · Special · 6 months: "POA 2"'],
    });
    expect(unreadableRefusal(parsed.cells)).toMatch(
      /^refused \(too many unreadable cells\): 2 of 4 non-empty value cells/,
    );
    expect(
      unreadableRefusal({
        read: 100,
        unreadable: ['x'.repeat(MAX_UNREADABLE_SHARE * 100)].flatMap((x) => x.split('')),
      }),
    ).toBeNull();
  });

  it('names lose control, bidi and zero-width characters, and take Unicode NFC', () => {
    expect(cleanName('A\u202eNZ\u200b\u001b[31m Bank\u0007')).toBe('ANZ[31m Bank');
    expect(cleanName('Ka\u0304inga Ora')).toBe('K\u0101inga Ora');
    expect(cleanName(' SBS Bank. ')).toBe('SBS Bank');
  });
});
