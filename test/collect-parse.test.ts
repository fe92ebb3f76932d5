import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type NumberKind, readNumber } from '../src/collect/cells.ts';
import { makeId, slugify } from '../src/collect/ids.ts';
import { institutionName } from '../src/collect/page-spellings.ts';
import { PAGE_PARSERS } from '../src/collect/parsers/index.ts';
import { normalizeProductName } from '../src/collect/parsers/mortgage.ts';
import { DATASETS, datasetBySlug, type Dataset, type DatasetSlug } from '../src/datasets.ts';
import { CreditCardIssuer, LoanInstitution, MortgageInstitution } from '../src/schemas/rates.ts';
import { normalizeDataset } from '../src/snapshots/normalize.ts';
import { headerRow, renderSourcePage } from './fixtures/source-page.ts';
import { datasetOfSchema, datasetsOfSchema, EACH } from './support/datasets.ts';
import { historyDir } from './support/history.ts';

/** The pages these markup tests write, by the shape of their data: termed rates, loan rates, cards. */
const TERMED = datasetOfSchema(MortgageInstitution).slug;
const LOANS = datasetsOfSchema(LoanInstitution).map((d) => d.slug);
const CARDS = datasetOfSchema(CreditCardIssuer).slug;

function collectPage(slug: string, html: string) {
  const dataset = datasetBySlug(slug) as Dataset;
  const parsed = PAGE_PARSERS[dataset.slug](html);
  return normalizeDataset(dataset, parsed.data) as any[];
}

/** A page of the dataset in the fixture's style: its title, and each table with the dataset's header row. */
const page = (slug: DatasetSlug, tables: string[]) =>
  `<html><head><title>${slug} | interest.co.nz</title></head><body>${tables.map((rows, i) => `<h2 class="pane-title">Section ${i}</h2><table id="interest_financial_datatable" class="interest_financial_datatable">${headerRow(slug)}<tbody>${rows}</tbody></table>`).join('')}</body></html>`;

/**
 * A snapshot with the labels the alias table maps (an older "Nelson") under the name the history
 * holds now ("Nelson Bldg Society"), ids included: what the collector makes of such a label.
 */
function asTheHistoryNamesThemNow(data: any[]): any[] {
  return data.map((entity) => {
    const name = institutionName(entity.name);
    if (name === entity.name) return entity;
    const [from, to] = [slugify(entity.name), slugify(name)];
    const json = JSON.stringify({ ...entity, name }).replace(new RegExp(`"(\\w+):${from}(?=[:"])`, 'g'), `"$1:${to}`);
    return JSON.parse(json);
  });
}

describe('pages rendered from the real history parse back to the same data', () => {
  it.each(DATASETS.map((d) => d.slug))('%s: the last five snapshots, with every markup quirk', async (slug) => {
    const dates = (await readdir(join(historyDir(), slug))).sort().slice(-5);
    for (const file of dates) {
      const snapshot = JSON.parse(await readFile(join(historyDir(), slug, file), 'utf8'));
      for (const quirks of [false, true]) {
        const html = renderSourcePage(slug, snapshot.data, {
          quirks,
          splitAcrossSections: [snapshot.data[0].id, snapshot.data[2].id],
        });
        expect(collectPage(slug, html), `${file} quirks=${quirks}`).toEqual(asTheHistoryNamesThemNow(snapshot.data));
      }
    }
  });
});

describe('termed-rate page quirks', () => {
  const row = (cells: string[], cls = 'interest_financial_row_0') =>
    `<tr class="${cls}">${cells.map((c) => (c.startsWith('<td') ? c : `<td>${c}</td>`)).join('')}</tr>`;

  it('reads the logo alt (not its slogan title), 18-month follow-on rows, and keeps 0 as a value', () => {
    const html = page(TERMED, [
      row(
        [
          '<td class="inst-name"><img alt="Heartland Bank" title="Invest in Heartland to invest in New Zealand"></td>',
          'Special LVR under 80%',
          '',
          '<b>0</b>',
          '4.99%',
          '4.89',
          '',
          '',
          '',
        ],
        'primary_row',
      ) +
        row([
          '<td class="inst-name"></td>',
          'Special LVR under 80%',
          '<td class="special-line" colspan="7">18 months = 4.79</td>',
        ]) +
        row([
          '<td class="inst-name"></td>',
          'Standard',
          '8.64&nbsp;<img class="interest_financial_indicator-up">',
          'n/a',
          '-',
          '7.25*',
          '',
          '',
          '1',
        ]),
    ]);
    const [bank] = collectPage(TERMED, html);
    expect(bank.id).toBe('institution:heartland-bank');
    expect(bank.name).toBe('Heartland Bank');
    expect(bank.products.map((p: any) => [p.id, p.name])).toEqual([
      ['product:heartland-bank:special', 'Special'],
      ['product:heartland-bank:standard', 'Standard'],
    ]);
    expect(bank.products[0].rates).toEqual([
      { id: 'rate:heartland-bank:special:6-months', rate: 0, term: '6 months', termInMonths: 6 },
      { id: 'rate:heartland-bank:special:1-year', rate: 4.99, term: '1 year', termInMonths: 12 },
      { id: 'rate:heartland-bank:special:18-months', rate: 4.79, term: '18 months', termInMonths: 18 },
      { id: 'rate:heartland-bank:special:2-years', rate: 4.89, term: '2 years', termInMonths: 24 },
    ]);
    expect(bank.products[1].rates.map((r: any) => [r.termInMonths, r.rate])).toEqual([
      [null, 8.64],
      [24, 7.25],
      [60, 1],
    ]);
  });

  it.each(['Special LVR under 80%', 'Special - Classic', 'Special LVR <80%', 'Special LVR < 80%', 'Special'])(
    '"%s" is the Special rate',
    (name) => {
      expect(normalizeProductName(name)).toBe('Special');
    },
  );

  it.each(['First Home Buyer Special', 'Special - Signature Class', 'Standard LVR < 80%'])(
    '"%s" keeps its name',
    (name) => {
      expect(normalizeProductName(name)).toBe(name);
    },
  );

  it('merges an institution listed in several sections and folds macrons in ids', () => {
    const html = page(TERMED, [
      row(
        [
          '<td class="inst-name"><a title="Kāinga Ora">Kāinga Ora</a></td>',
          'Residential',
          '6.1',
          '',
          '',
          '',
          '',
          '',
          '',
        ],
        'primary_row',
      ),
      row(['<td class="inst-name"><a>Kāinga Ora</a></td>', 'First Home', '', '', '5.5', '', '', '', ''], 'primary_row'),
    ]);
    const data = collectPage(TERMED, html);
    expect(data).toHaveLength(1);
    expect(data[0].id).toBe('institution:kainga-ora');
    expect(data[0].name).toBe('Kāinga Ora');
    expect(data[0].products.map((p: any) => p.id)).toEqual([
      'product:kainga-ora:residential',
      'product:kainga-ora:first-home',
    ]);
  });

  it('one odd cell never fails the dataset, and footnote marks are not read as digits', () => {
    const html = page(TERMED, [
      row(
        ['<td class="inst-name">ASB</td>', 'Standard', 'call us', '6.5<sup>2</sup>', '???', '5.9 %', '', '', ''],
        'primary_row',
      ),
    ]);
    const [asb] = collectPage(TERMED, html);
    expect(asb.products[0].rates.map((r: any) => [r.termInMonths, r.rate])).toEqual([
      [6, 6.5],
      [24, 5.9],
    ]);
  });
});

describe.each(LOANS)('%s page quirks', (loans) => {
  it('joins From/To rows into one product, takes the product from the row above when blank, skips rows with no rate', () => {
    const html = page(loans, [
      '<tr class="primary_row"><td class="inst-name"><a>ASB</a></td><td>Personal Loan</td><td>Secured by car</td><td>From</td><td><b>12.95%</b></td></tr>' +
        '<tr class="interest_financial_row_1"><td class="inst-name"></td><td></td><td>Secured by car</td><td>To</td><td>17.95</td></tr>' +
        '<tr class="interest_financial_row_0"><td class="inst-name"></td><td>Personal Loan</td><td>Unsecured</td><td>$3,000 to $50,000</td><td>&nbsp;</td></tr>' +
        '<tr class="interest_financial_row_1"><td class="inst-name"></td><td>Green Loan</td><td></td><td></td><td>9.9*</td></tr>',
    ]);
    const [asb] = collectPage(loans, html);
    expect(asb.products).toEqual([
      {
        id: 'product:asb:personal-loan',
        name: 'Personal Loan',
        rates: [
          { id: 'rate:asb:personal-loan:secured-by-car:from', rate: 12.95, plan: 'Secured by car', condition: 'From' },
          { id: 'rate:asb:personal-loan:secured-by-car:to', rate: 17.95, plan: 'Secured by car', condition: 'To' },
        ],
      },
      {
        id: 'product:asb:green-loan',
        name: 'Green Loan',
        rates: [{ id: 'rate:asb:green-loan', rate: 9.9, plan: null, condition: null }],
      },
    ]);
  });

  it('keeps the condition id scheme of the earlier deployment', () => {
    const html = page(loans, [
      '<tr class="primary_row"><td class="inst-name">ANZ</td><td>Personal Loan</td><td>Unsecured</td><td>$3,000 to $50,000</td><td>13.9%</td></tr>',
    ]);
    expect(collectPage(loans, html)[0].products[0].rates[0].id).toBe('rate:anz:personal-loan:unsecured:3000-to-50000');
  });
});

describe('card page quirks', () => {
  it('reads card days, fees with separators, periods and rates, merging an issuer listed in two groups', () => {
    const html = page(CARDS, [
      '<tr class="primary_row"><td class="inst-name"><img alt="Amex" title="Don\'t leave home"></td><td>Platinum</td><td>55 days</td><td>$1,250</td><td>0%</td><td>6 mths</td><td>n/a</td><td><b>22.95%</b></td></tr>',
      '<tr class="primary_row"><td class="inst-name"><a>Amex</a></td><td>Platinum</td><td>-</td><td>$0</td><td>-</td><td>Life of bal tsfrd</td><td>21.95</td><td>19.95</td></tr>',
    ]);
    const data = collectPage(CARDS, html);
    expect(data).toEqual([
      {
        id: 'issuer:amex',
        name: 'Amex',
        plans: [
          {
            id: 'plan:amex:platinum',
            name: 'Platinum',
            purchaseRate: 22.95,
            cashAdvanceRate: null,
            balanceTransferRate: 0,
            balanceTransferPeriod: '6 months',
            interestFreeDays: 55,
            annualFeeNZD: 1250,
          },
          {
            id: 'plan:amex:platinum-2',
            name: 'Platinum',
            purchaseRate: 19.95,
            cashAdvanceRate: 21.95,
            balanceTransferRate: null,
            balanceTransferPeriod: 'Life of balance transferred',
            interestFreeDays: null,
            annualFeeNZD: 0,
          },
        ],
      },
    ]);
  });
});

describe('a page whose layout changed', () => {
  it.each(EACH)('%s: finds no table on a page whose layout changed', (slug) => {
    expect(
      PAGE_PARSERS[slug](
        `<html><head><title>${slug}</title></head><body><div class="rates-grid">5.99</div></body></html>`,
      ).tableCount,
    ).toBe(0);
  });
});

describe('number and name parsing (property-based)', () => {
  /** A number as a column of each kind may write it. */
  const decorate = fc.constantFrom<[NumberKind, (s: string) => string]>(
    ['rate', (s) => s],
    ['rate', (s) => `${s}%`],
    ['rate', (s) => `${s}*`],
    ['rate', (s) => `\u00a0${s}\u00a0`],
    ['rate', (s) => ` ${s} % `],
    ['rate', (s) => `${s}% p.a.`],
    ['rate', (s) => `${s} pa`],
    ['money', (s) => `$${s}`],
    ['money', (s) => s],
    ['days', (s) => `${s} days`],
  );
  /** Full-width digits and signs, as a page written in another input mode has them. */
  const fullWidth = (s: string) => s.replace(/[0-9.,%$]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

  it('reads any amount back, whatever the decoration, thousands separators or full-width digits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999 }),
        fc.boolean(),
        fc.boolean(),
        decorate,
        (cents, separators, wide, [kind, wrap]) => {
          const value = cents / 100;
          const text = separators ? value.toLocaleString('en-NZ', { minimumFractionDigits: 2 }) : value.toFixed(2);
          const written = wrap(text);
          expect(readNumber(wide ? fullWidth(written) : written, kind)).toEqual({ value });
        },
      ),
    );
  });

  it('reads a sign only in its own kind of column: `$` in money, `%` and p.a. in rates, days in days', () => {
    for (const [text, kind] of [
      ['$149', 'days'],
      ['$5.79', 'rate'],
      ['5.79%', 'money'],
      ['55 days', 'rate'],
      ['5.79 p.a.', 'money'],
    ] as const)
      expect(readNumber(text, kind), `${text} as ${kind}`).toEqual({ value: null, unreadable: true });
  });

  it('reads text without digits as "not offered", never as 0', () => {
    fc.assert(
      fc.property(
        // Words for nothing ("Nil", "None", "Free") are a fee of 0: test/collect-text.test.ts.
        fc.string().filter((s) => !/\d/.test(s) && !/^[\s*#^]*(?:nil|none|free)[\s*#^]*$/i.test(s)),
        (text) => {
          for (const kind of ['rate', 'money', 'days'] as const) expect(readNumber(text, kind).value).toBeNull();
        },
      ),
    );
  });

  // The earlier deployment's id function, for ASCII names (lower-case, < and > spelled out, whitespace to dashes, other non-word characters dropped).
  const earlier = (s: string) =>
    s
      .toLowerCase()
      .replaceAll('<', 'less-than-')
      .replaceAll('>', 'greater-than-')
      .replace(/\s+/g, '-')
      .replace(/[^\w-]/g, '')
      .replace(/-+/g, '-');

  it('gives ids identical to the earlier scheme for plain ASCII names', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'abcXYZ09 <>-$,%&()._/'.split('')) }), (name) => {
        expect(slugify(name)).toBe(earlier(name));
      }),
    );
  });

  it('folds letters with diacritics instead of dropping them, and ids are stable under re-slugging', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'aeiouAEIOUāēīōūĀĒĪŌŪéñ -'.split('')) }), (name) => {
        const plain = name.normalize('NFKD').replace(/\p{M}/gu, '');
        expect(slugify(name)).toBe(earlier(plain));
        expect(slugify(slugify(name))).toBe(slugify(name));
        expect(slugify(name)).toMatch(/^[a-z0-9_-]*$/);
        expect(slugify(name)).not.toContain('--');
      }),
    );
    expect(makeId('institution', 'Kāinga Ora')).toBe('institution:kainga-ora');
  });
});
