/**
 * Text read as the page means it. Each page is the newest snapshot in the live page's markup
 * (test/fixtures/real-style-page.ts), bent as a page might be, served over a real socket: footnote
 * marks are marks and never digits, a fee of "Nil" is $0, a letter of any script that looks like a
 * Latin one is refused naming the field, and a logo's `alt` names a lender only when it reads as a
 * name. Then the number reader's property: a generated value, in a generated decoration, reads
 * back exactly, and a mark between its digits never makes another number.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as cheerio from 'cheerio';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityName, type NumberKind, readNumber } from '../src/collect/cells.ts';
import { rateValues } from '../src/collect/guards.ts';
import { lookAlikes } from '../src/collect/names.ts';
import { DATASETS, itemsOf } from '../src/datasets.ts';
import { CreditCardIssuer, LoanInstitution, MortgageInstitution } from '../src/schemas/rates.ts';
import { datasetOfSchema, datasetsOfSchema, EACH } from './support/datasets.ts';
import { historyDir } from './support/history.ts';
import { collectBench } from './support/collect-bench.ts';

const bench = collectBench();
const { collectPage, livePage, expectRefused } = bench;

const TERMED = datasetOfSchema(MortgageInstitution).slug;
const CARDS = datasetOfSchema(CreditCardIssuer).slug;
const LOANS = datasetsOfSchema(LoanInstitution).map((d) => d.slug);

/** The data a run wrote. */
async function written(result: Awaited<ReturnType<typeof collectPage>>): Promise<any[]> {
  expect(result.reason).toBeUndefined();
  expect(result.outcome).toBe('written');
  return JSON.parse(await readFile(join(bench.snapshots, result.file!), 'utf8')).data;
}

/** The value cells of a page holding a number (rates, fees, days), in page order. */
const numberCells = ($: cheerio.CheerioAPI) =>
  $('table.interest_financial_datatable tbody td.right')
    .toArray()
    .filter((td) => /^\$?\d/.test($(td).text().trim()));

/** The card plans of `data` with no value in `field`, each given a value no cell of the page holds, to be found and replaced. */
function plansMarked(data: any[], field: string, values: number[]): any[] {
  const plans = data.flatMap((e) => e.plans).filter((p: any) => p[field] === null);
  expect(plans.length).toBeGreaterThanOrEqual(values.length);
  values.forEach((value, i) => {
    plans[i][field] = value;
  });
  return plans.slice(0, values.length);
}

describe('footnote marks are marks, never digits', () => {
  const MARKS = ['¹', '²', '³', '*', '†', '‡', '#', '^', '⁾', '⁹'];

  it.each(EACH)('%s: every value with a footnote mark before or after it reads as the value alone', async (slug) => {
    const page = livePage(slug, ($) => {
      numberCells($).forEach((td, i) => {
        const mark = MARKS[i % MARKS.length]!;
        if (i % 3 === 0) $(td).prepend(mark);
        else $(td).append(mark);
      });
    });
    expect(page).toMatch(/>\d+\.\d+<\/b>\s*<img[^>]*>¹|\d¹</); // `6.89¹`, as text, not in a <sup>
    const result = await collectPage(slug, page);
    expect(result.unreadable).toEqual([]);
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('unchanged');
  });

  it(`${CARDS}: "$149¹" is a fee of $149, never $1,491`, async () => {
    const page = livePage(CARDS, ($) => {
      for (const td of numberCells($).filter((cell) => $(cell).text().includes('$'))) $(td).append('¹');
    });
    expect(page).toMatch(/\$\d[\d,]*(?:<\/[ab]>)?¹/);
    const result = await collectPage(CARDS, page);
    expect(result.outcome).toBe('unchanged');
  });

  it(`${TERMED}: a mark between a rate's digits makes the cell unreadable, never another number`, async () => {
    let text = '';
    const page = livePage(TERMED, ($) => {
      const cell = numberCells($).find((td) => /^\d+\.\d\d$/.test($(td).text().trim()))!;
      const value = $(cell).text().trim();
      text = `${value.slice(0, -1)}¹${value.slice(-1)}`; // 6.89 → 6.8¹9
      $(cell).text(text);
    });
    const result = await collectPage(TERMED, page);
    expect(result.unreadable).toEqual([expect.stringContaining(`"${text}"`)]);
    const data = await written(result);
    const misread = Number(text.replace('¹', '1'));
    expect(rateValues(data).map((r) => r.value)).not.toContain(misread);
  });
});

describe('words for nothing', () => {
  it(`${CARDS}: a fee of "Nil", "None" or "Free", in any case and with marks, is a fee of $0`, async () => {
    const data = structuredClone(bench.newest[CARDS].data) as any[];
    const plans = plansMarked(data, 'annualFeeNZD', [9991, 9992, 9993]);
    const page = livePage(CARDS, undefined, data)
      .replace('$9,991', 'Nil')
      .replace('$9,992', 'none*')
      .replace('$9,993', 'FREE¹');
    expect(page).not.toContain('$9,99');
    const saved = await written(await collectPage(CARDS, page));
    const expected = structuredClone(bench.newest[CARDS].data) as any[];
    for (const plan of expected.flatMap((e) => e.plans)) if (plans.some((p) => p.id === plan.id)) plan.annualFeeNZD = 0;
    expect(saved).toEqual(expected);
  });

  it(`${CARDS}: "Nil" or "None" interest-free days are 0 days; "Free" days are unreadable`, async () => {
    const data = structuredClone(bench.newest[CARDS].data) as any[];
    const plans = plansMarked(data, 'interestFreeDays', [901, 902, 903]);
    const page = livePage(CARDS, undefined, data)
      .replace('>901<', '>Nil<')
      .replace('>902<', '>None<')
      .replace('>903<', '>Free<');
    const result = await collectPage(CARDS, page);
    expect(result.unreadable).toEqual([expect.stringContaining('interest-free days: "Free"')]);
    const saved = (await written(result)).flatMap((e) => e.plans);
    expect(plans.map((p) => saved.find((s: any) => s.id === p.id).interestFreeDays)).toEqual([0, 0, null]);
  });

  it(`${TERMED}: a rate of "Nil" is unreadable: neither 0 % nor "not offered"`, async () => {
    const page = livePage(TERMED, ($) => {
      $(numberCells($)[0]!).text('Nil');
    });
    const result = await collectPage(TERMED, page);
    expect(result.unreadable).toEqual([expect.stringContaining('"Nil"')]);
  });
});

describe('look-alike letters of any script', () => {
  it.each(EACH)('%s: a lender "ꓮNZ" with a Lisu ꓮ is refused, naming the field and the letter', async (slug) => {
    const data = structuredClone(bench.newest[slug].data) as any[];
    data[0].name = '\ua4eeNZ';
    const reason = await expectRefused(
      slug,
      await collectPage(slug, livePage(slug, undefined, data)),
      'a name the service cannot keep',
    );
    expect(reason).toContain('name "ꓮNZ": "ꓮ" (U+A4EE) is no Latin letter but looks like "A"');
  });

  it.each(EACH)('%s: a product or plan with a Cherokee Ꮪ is refused, naming the field', async (slug) => {
    const data = structuredClone(bench.newest[slug].data) as any[];
    const [item] = itemsOf(data[0]) as any[];
    item.name = `\u13daUPER ${item.name}`;
    const reason = await expectRefused(
      slug,
      await collectPage(slug, livePage(slug, undefined, data)),
      'a name the service cannot keep',
    );
    expect(reason).toMatch(/ name "ᏚUPER [^"]*": "Ꮪ" \(U\+13DA\) is no Latin letter but looks like "S"/);
  });

  it.each(LOANS)('%s: a loan plan "Ꮪecured" is refused, naming the plan field', async (slug) => {
    const data = structuredClone(bench.newest[slug].data) as any[];
    const rate = data.flatMap((e) => e.products.flatMap((p: any) => p.rates)).find((r: any) => r.plan === 'Secured');
    rate.plan = '\u13daecured';
    const reason = await expectRefused(
      slug,
      await collectPage(slug, livePage(slug, undefined, data)),
      'a name the service cannot keep',
    );
    expect(reason).toContain(' plan "Ꮪecured": "Ꮪ" (U+13DA) is no Latin letter');
  });

  it.each(EACH)('%s: a lender "Kāinga Ora", Latin letters with their marks, is collected as written', async (slug) => {
    const data = structuredClone(bench.newest[slug].data) as any[];
    data[0].name = 'Kāinga Ora';
    const saved = await written(await collectPage(slug, livePage(slug, undefined, data)));
    expect(saved.find((e) => e.name === 'Kāinga Ora')?.id).toBe(`${data[0].id.split(':')[0]}:kainga-ora`);
  });

  it('no name, plan, condition or period in the whole history holds a look-alike letter', async () => {
    const texts = new Set<string>();
    const walk = (value: unknown) => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object')
        for (const [key, child] of Object.entries(value)) {
          if (typeof child === 'string' && key !== 'id') texts.add(child);
          else walk(child);
        }
    };
    for (const { slug } of DATASETS)
      for (const file of await readdir(join(historyDir(), slug)))
        if (/^\d{4}-\d\d-\d\d\.json$/.test(file))
          walk(JSON.parse(await readFile(join(historyDir(), slug, file), 'utf8')).data);
    expect(texts.size).toBeGreaterThan(100);
    expect([...texts].filter((text) => lookAlikes(text).length > 0)).toEqual([]);
  });
});

describe("a logo's alt names a lender only when it reads as a name", () => {
  /** The first name cells of the page that are logos alone (the name in the alt). */
  const logoCells = ($: cheerio.CheerioAPI) => $('td.inst-name').filter((_, td) => $(td).find('img[alt]').length > 0);

  it.each(EACH)(
    '%s: three lenders whose logos all say alt="logo" are refused, never one lender "logo"',
    async (slug) => {
      const page = livePage(slug, ($) => {
        const cells = logoCells($).slice(0, 3);
        expect(cells.length).toBe(3);
        cells.find('img').attr('alt', 'logo');
      });
      const reason = await expectRefused(
        slug,
        await collectPage(slug, page),
        'a row starts an institution with no usable name',
      );
      expect(reason).toMatch(/table \d+, row \d+/);
    },
  );

  it.each(
    EACH.flatMap(([slug]) =>
      [
        'Invest in Heartland to invest in New Zealand',
        'image',
        'Banner',
        'ANZ logo',
        'anz-logo.png',
        'interest.co.nz',
        'interest',
      ].map((alt) => [slug, alt] as const),
    ),
  )('%s: a logo whose alt is "%s" and whose titles are slogans names no one: refused', async (slug, alt) => {
    const page = livePage(slug, ($) => {
      logoCells($).first().find('img').attr('alt', alt);
    });
    await expectRefused(slug, await collectPage(slug, page), 'a row starts an institution with no usable name');
  });

  it.each(EACH)('%s: a logo with alt="logo" and its name in its title is named by the title', async (slug) => {
    const page = livePage(slug, ($) => {
      const img = logoCells($).first().find('img');
      img.attr('title', img.attr('alt')!.replace(/\.$/, '')).attr('alt', 'logo');
    });
    const result = await collectPage(slug, page);
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('unchanged');
  });

  it('every lender\'s name in the history, as a logo\'s alt, reads as the name ("Finance Now" too)', async () => {
    const names = new Set<string>();
    for (const { slug } of DATASETS)
      for (const file of await readdir(join(historyDir(), slug)))
        if (/^\d{4}-\d\d-\d\d\.json$/.test(file))
          for (const e of JSON.parse(await readFile(join(historyDir(), slug, file), 'utf8')).data) names.add(e.name);
    expect(names).toContain('Finance Now');
    for (const name of names) {
      const $ = cheerio.load(
        `<table><tr><td><a title="click to contact us"><img alt="${name.replaceAll('"', '&quot;')}." title="Apply now"></a></td></tr></table>`,
      );
      expect(entityName($('td')[0]!)).toBe(name);
    }
  });
});

describe('the number reader (property-based)', () => {
  /** Footnote marks as pages write them: signs, and superscript digits typed as text. */
  const mark = fc.constantFrom('*', '†', '‡', '#', '^', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹', '⁰', '⁾');
  const marks = fc.array(mark, { maxLength: 3 }).map((m) => m.join(''));
  const space = fc.constantFrom('', ' ', '\u00a0');
  /** A column's kind, and the signs of that kind written around a number. */
  const signed = fc.constantFrom<[NumberKind, (n: string) => string]>(
    ['rate', (n) => n],
    ['rate', (n) => `${n}%`],
    ['rate', (n) => `${n} %`],
    ['rate', (n) => `${n}% p.a.`],
    ['rate', (n) => `${n} pa`],
    ['money', (n) => `$${n}`],
    ['money', (n) => `$ ${n}`],
    ['money', (n) => n],
    ['days', (n) => n],
    ['days', (n) => `${n} days`],
  );
  /** A value, and the number as written: with or without thousands separators. */
  const number = fc
    .tuple(fc.integer({ min: 0, max: 99_999_999 }), fc.constantFrom(0, 1, 2), fc.boolean())
    .map(([units, decimals, separators]) => {
      const value = units / 10 ** decimals;
      const text = separators
        ? value.toLocaleString('en-NZ', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
        : value.toFixed(decimals);
      return { value, text };
    });
  const fullWidth = (s: string) => s.replace(/[0-9.,%$]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

  it('a value with marks and its kind’s signs around it reads back exactly the value', () => {
    fc.assert(
      fc.property(
        number,
        signed,
        marks,
        marks,
        space,
        space,
        fc.boolean(),
        ({ value, text }, [kind, sign], before, after, s1, s2, wide) => {
          const written = `${before}${s1}${sign(text)}${s2}${after}`;
          expect(readNumber(wide ? fullWidth(written) : written, kind)).toEqual({ value });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a mark between a number’s characters is unreadable: never a different number', () => {
    fc.assert(
      fc.property(
        number.filter(({ text }) => text.length > 1),
        signed,
        mark,
        fc.nat(),
        ({ text }, [kind, sign], m, at) => {
          const i = 1 + (at % (text.length - 1));
          const written = sign(`${text.slice(0, i)}${m}${text.slice(i)}`);
          expect(readNumber(written, kind)).toEqual({ value: null, unreadable: true });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a word for nothing, in any case and with marks, is 0 in fees and days, unreadable as a rate', () => {
    const word = fc
      .tuple(fc.constantFrom('nil', 'none', 'free'), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }))
      .map(([w, upper]) => [...w].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
    fc.assert(
      fc.property(word, marks, marks, (w, before, after) => {
        const written = `${before}${w}${after}`;
        const bare = w.toLowerCase();
        expect(readNumber(written, 'money')).toEqual({ value: 0 });
        expect(readNumber(written, 'days')).toEqual(bare === 'free' ? { value: null, unreadable: true } : { value: 0 });
        expect(readNumber(written, 'rate')).toEqual({ value: null, unreadable: true });
      }),
    );
  });

  it('dashes, "n/a" and blanks stay "not offered" in every column, marks or not', () => {
    for (const text of ['', '\u00a0', '-', '–', '—', 'n/a', 'N/A', 'na', '-*', '¹n/a'])
      for (const kind of ['rate', 'money', 'days'] as const)
        expect(readNumber(text, kind), `${text} as ${kind}`).toEqual({ value: null, unreadable: false });
  });
});
