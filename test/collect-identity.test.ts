/**
 * An offer is what its row says, never where the row sits. Each page is the newest snapshot in the
 * live page's markup (test/fixtures/real-style-page.ts), bent as a real page changes and served to
 * the collector over a real socket: collected under the same ids, or refused with the rows named
 * and the newest snapshot byte for byte as it was.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { historySpelling } from '../src/collect/page-spellings.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { bestRateOf } from '../src/explorer/best.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { CreditCardIssuer, LoanInstitution, MortgageInstitution } from '../src/schemas/rates.ts';
import { collectBench } from './support/collect-bench.ts';
import { datasetOfSchema, datasetsOfSchema, EACH } from './support/datasets.ts';
import { expectNewestUntouched, tempDir } from './support/history.ts';

const bench = collectBench();
const { collectPage, livePage } = bench;

const TERMED = datasetOfSchema(MortgageInstitution).slug;
const CARDS = datasetOfSchema(CreditCardIssuer).slug;
const LOANS = datasetsOfSchema(LoanInstitution).map((d) => d.slug);
/** The datasets whose page holds one rate a row (a `rate` column): a row repeated repeats a rate of its product. */
const RATE_ROWS = DATASETS.filter((d) => d.page.columns.some((c) => c.key === 'rate')).map((d) => d.slug);

const expectRefused = async (slug: DatasetSlug, page: string, rule: string) =>
  bench.expectRefused(slug, await collectPage(slug, page), rule);

async function expectUnchanged(slug: DatasetSlug, page: string): Promise<void> {
  const result = await collectPage(slug, page);
  expect(result.reason).toBeUndefined();
  expect(result.outcome).toBe('unchanged');
}

const tables = ($: cheerio.CheerioAPI) => $('table.interest_financial_datatable');
/** The rows of the institution whose run starts at the `n`th lead row of table `t` (its lead row and those after it, up to the next lead). */
function runOf($: cheerio.CheerioAPI, t: number, n: number) {
  const rows = tables($).eq(t).find('tbody > tr').toArray();
  const leads = rows.flatMap((tr, i) => ($(tr).hasClass('primary_row') ? [i] : []));
  return $(rows.slice(leads[n], leads[n + 1] ?? rows.length));
}

describe('a featured table, repeated rows, a lender in two runs', () => {
  it.each(EACH)(
    '%s: a table on top repeating two lenders’ offers at better rates is refused, naming the product',
    async (slug) => {
      // A featured table shows promotions: half a point lower for a rate paid, higher for a rate earned.
      const better = bestRateOf(EXPLORER[slug]).paid ? -0.5 : 0.5;
      const page = livePage(slug, ($) => {
        const first = tables($).first();
        const featured = first.clone();
        featured
          .find('tbody')
          .empty()
          .append(runOf($, 0, 0).clone())
          .append(runOf($, 0, 1).clone());
        featured.find('td.right b, td.right a, td.right').each((_, td) => {
          const text = $(td).text().trim();
          if (/^\d+\.\d+$/.test(text)) $(td).text((Number(text) + better).toFixed(2));
        });
        first.parent().prepend(featured);
      });
      const reason = await expectRefused(slug, page, 'a product listed again in another table');
      expect(reason).toMatch(/"[^"]+" · "[^"]+" is listed in two tables of the page/);
    },
  );

  it.each(EACH)('%s: one row repeated word for word is refused as two offers alike', async (slug) => {
    const page = livePage(slug, ($) => {
      const row = runOf($, 0, 0).first();
      row.after(
        row
          .clone()
          .removeClass('primary_row')
          .each((_, tr) => void $(tr).children('td').first().empty()),
      );
    });
    const result = await collectPage(slug, page);
    expect(result.outcome).toBe('failed');
    // A mortgage row with an 18-month line makes that line name two products, refused as soon.
    expect(result.reason).toMatch(
      RATE_ROWS.includes(slug)
        ? /^refused \(two rates alike in (?!nothing)[a-z ]+\)/
        : /^refused \((?:two rows alike in name and in what they carry|an 18-month line names no one product of its lender)\)/,
    );
    // The rule names what tells the product's rates apart: a loan's plan and condition.
    if (LOANS.includes(slug)) expect(result.reason).toMatch(/^refused \(two rates alike in plan and condition\)/);
    expect(result.reason).not.toMatch(/row \d/);
    await expectNewestUntouched(bench.snapshots, slug);
  });

  it.each(EACH)('%s: one lender starting two runs of rows in one table is refused, naming both', async (slug) => {
    const page = livePage(slug, ($) => {
      // The first lender's rows again after the second lender's, its name cell and all.
      runOf($, 0, 1)
        .last()
        .after(runOf($, 0, 0).clone());
    });
    const reason = await expectRefused(slug, page, 'one lender starts several runs of rows in one table');
    expect(reason).toMatch(/starts rows at table 1, the row ".+" and again at table 1, the row ".+"/);
  });

  it.each(EACH)(
    '%s: the sections in reverse order, and each table’s lenders too, are collected as they were',
    async (slug) => {
      const page = livePage(slug, ($) => {
        const panes = $('div.panel-pane').toArray();
        $(panes[0]!).parent().append(panes.reverse());
        tables($).each((t) => {
          const body = tables($).eq(t).find('tbody');
          const runs: cheerio.Cheerio<any>[] = [];
          for (let n = 0; body.find('tr.primary_row').eq(n).length > 0; n++) runs.push(runOf($, t, n));
          for (const run of runs.reverse()) body.append(run);
        });
      });
      await expectUnchanged(slug, page);
    },
  );
});

describe('namesakes told apart by what they carry', () => {
  const namesakes = () =>
    bench.newest[CARDS].data.flatMap((issuer: any) =>
      issuer.plans
        .filter((p: any, _: number, all: any[]) => all.filter((q) => q.name === p.name).length > 1)
        .map((p: any) => ({ issuer: issuer.name, plan: p })),
    );

  /** The page with each pair of namesake plans' rows trading their values (each row keeps its place and its name cell). */
  const traded = () =>
    livePage(CARDS, ($) => {
      for (const name of ['Airpoints Card', 'Airpoints']) {
        const rows = $('tbody > tr')
          .toArray()
          .filter((tr) => historySpelling($(tr).children('td').eq(1).text().trim(), 'plan') === name);
        expect(rows).toHaveLength(2);
        const [a, b] = rows.map((tr) => $(tr).children('td').slice(1).clone());
        $(rows[0]!).children('td').slice(1).remove();
        $(rows[0]!).append(b!);
        $(rows[1]!).children('td').slice(1).remove();
        $(rows[1]!).append(a!);
      }
    });

  it('the history’s two pairs of card plans of one name keep their ids when their rows trade places', async () => {
    expect(namesakes().map((n: any) => n.plan.id)).toEqual([
      'plan:amex:airpoints-card',
      'plan:amex:airpoints-card-2',
      'plan:westpac:airpoints',
      'plan:westpac:airpoints-2',
    ]);
    await expectUnchanged(CARDS, traded());
  });

  it('one of a pair renamed to what the other’s id spells ("Airpoints Card 2"): the other keeps its id, the newcomer takes a free one', async () => {
    const [plain, full] = namesakes().filter((n: any) => n.issuer === 'Amex');
    const page = livePage(CARDS, ($) => {
      // The plain card: no fee, so no "$" in its row.
      const row = $('tbody > tr')
        .toArray()
        .find(
          (tr) =>
            historySpelling($(tr).children('td').eq(1).text().trim(), 'plan') === 'Airpoints Card' &&
            !$(tr).text().includes('$'),
        );
      expect(row).toBeDefined();
      $(row!).children('td').eq(1).text('Airpoints Card 2');
    });
    const result = await collectPage(CARDS, page);
    expect(result.reason).toBeUndefined();
    const written = JSON.parse(await readFile(join(bench.snapshots, result.file!), 'utf8'));
    const amex = written.data.find((i: any) => i.name === 'Amex').plans;
    expect(amex.find((p: any) => p.id === full.plan.id)).toEqual(full.plan);
    const renamed = amex.find((p: any) => p.name === 'Airpoints Card 2');
    expect(renamed).toEqual({ ...plain.plan, id: 'plan:amex:airpoints-card-2-2', name: 'Airpoints Card 2' });
  });

  it('collected into an empty tree, namesakes are told apart the history’s way, whatever their order: the card first, then the plainer', async () => {
    bench.snapshots = await tempDir('rates-empty-');
    const result = await collectPage(CARDS, traded());
    expect(result.outcome).toBe('written');
    const written = JSON.parse(await readFile(join(bench.snapshots, result.file!), 'utf8'));
    const plans = new Map(written.data.flatMap((i: any) => i.plans.map((p: any) => [p.id, p])));
    for (const { plan } of namesakes()) expect(plans.get(plan.id)).toEqual(plan);
  });
});

describe('the 18-month line belongs to the product it names', () => {
  const lines = ($: cheerio.CheerioAPI) => $('td.special-line').closest('tr');

  it('moved under another product of its lender, or above its own, it is still its own product’s', async () => {
    const below = livePage(TERMED, ($) => {
      const line = lines($).first();
      const run = line.prevAll('tr.primary_row').first().nextUntil('tr.primary_row').addBack();
      expect(run.length).toBeGreaterThan(2);
      run.last().after(line); // the lender's last row, below another product
    });
    await expectUnchanged(TERMED, below);
    const above = livePage(TERMED, ($) => {
      lines($).each((_, tr) => {
        const product = $(tr).prev();
        if (!product.hasClass('primary_row')) product.before(tr);
      });
    });
    await expectUnchanged(TERMED, above);
  });

  it('a line naming no product of its lender is refused, naming the line', async () => {
    const page = livePage(TERMED, ($) => void lines($).first().children('td').eq(1).text('Premium Fixed'));
    const reason = await expectRefused(TERMED, page, 'an 18-month line names no one product of its lender');
    expect(reason).toContain('18 months');
    expect(reason).toContain('names no product listed');
  });

  it('a second 18-month value for a product is refused', async () => {
    const page = livePage(TERMED, ($) => {
      const line = lines($).first();
      line.after(line.clone().each((_, tr) => void $(tr).find('span').text('4.11')));
    });
    const reason = await expectRefused(TERMED, page, 'a second value for a term');
    expect(reason).toContain('4.11');
  });

  it('a line inlined into a full row of values is refused', async () => {
    const page = livePage(TERMED, ($) => {
      const line = lines($).first();
      const product = line.prevAll('tr').first();
      product.children('td').last().replaceWith(line.find('td.special-line').clone().removeAttr('colspan'));
      line.remove();
    });
    await expectRefused(TERMED, page, 'a follow-on line inside a row of values');
  });

  it('a row of rates whose product cell is empty is refused, never dropped in silence', async () => {
    const page = livePage(TERMED, ($) => void $('tr.primary_row').first().children('td').eq(1).text(''));
    await expectRefused(TERMED, page, 'a row of rates names no product');
  });
});

describe('loan columns that traded places', () => {
  it.each(LOANS)(
    '%s: a product cell reading as a plan, a plan cell as a product, or a rate in the notes refuses the table',
    async (slug) => {
      const swapped = livePage(slug, ($) => {
        const row = $('tr.primary_row').first();
        const [product, plan] = [row.children('td').eq(1), row.children('td').eq(2)];
        const text = product.text();
        product.text(plan.text());
        plan.text(text);
      });
      const reason = await expectRefused(slug, swapped, 'columns traded places');
      expect(reason).toMatch(
        /the product column reads "(?:Un)?[Ss]ecured[^"]*", a plan|the plan \(secured or not\) column reads "[^"]+", a product/,
      );
      const rateInNotes = livePage(slug, ($) => void $('tr.primary_row').first().children('td').eq(3).text('8.00'));
      expect(await expectRefused(slug, rateInNotes, 'columns traded places')).toContain(
        'a bare number, which is a rate',
      );
      const productOnly = livePage(
        slug,
        ($) => void $('tr.primary_row').first().children('td').eq(1).text('Secured by car'),
      );
      expect(await expectRefused(slug, productOnly, 'columns traded places')).toContain('a plan (secured or not)');
    },
  );
});
