/**
 * The collector holds on pages it has never seen. Each page below is served to the collector over
 * a real socket, in the live page's markup (test/fixtures/real-style-page.ts) under the header texts
 * the records show (test/fixtures/recorded-headers.ts), then bent as a page might be: read right,
 * or refused with the rule and the evidence and the newest snapshot byte for byte as it was.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../src/collect/collect.ts';
import { MAX_CELL_CHARS } from '../src/collect/cells.ts';
import { rateValues } from '../src/collect/guards.ts';
import { CREDIT_CARD_PAGE, MORTGAGE_PAGE, PERSONAL_LOAN_PAGE } from '../src/collect/page-layout.ts';
import { mapHeaders } from '../src/collect/tables.ts';
import { DATASETS, type DatasetSlug, type Entity, itemsOf } from '../src/datasets.ts';
import { INVISIBLE_CHARACTERS } from '../src/schemas/common.ts';
import { CreditCardIssuer, LoanInstitution, MortgageInstitution } from '../src/schemas/rates.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { renderRealStylePage } from './fixtures/real-style-page.ts';
import { headerTexts, RECORDED_HEADERS, RECORDS } from './fixtures/recorded-headers.ts';
import { renderSourcePage } from './fixtures/source-page.ts';
import { datasetOfSchema, datasetsOfSchema, EACH } from './support/datasets.ts';
import {
  expectNewestUntouched,
  movedWithinBounds,
  newestDates,
  newestSnapshots,
  type SnapshotFile,
  tempDir,
  treeOfNewest,
} from './support/history.ts';
import { startSourceServer, type SourceServer } from './support/source-server.ts';

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
});

const pathOf = (slug: DatasetSlug) => DATASETS.find((d) => d.slug === slug)!.sourcePath;
const LOANS = datasetsOfSchema(LoanInstitution).map((d) => d.slug);
const TERMED = datasetOfSchema(MortgageInstitution).slug;
const CARDS = datasetOfSchema(CreditCardIssuer).slug;

/** Collect `page` as the dataset's page at `at`: the run's result for that dataset. */
async function collectPage(slug: DatasetSlug, page: string, at = new Date('2026-11-21T03:00:00.000Z')) {
  server.serve(pathOf(slug), { page });
  const [result] = await collect({
    baseUrl: server.url,
    snapshotsDir: snapshots,
    status,
    datasets: [slug],
    now: () => at,
    fetch: { timeoutMs: 20_000, retries: 0, retryDelayMs: 1 },
  });
  return result!;
}

/** A refusal: the dataset failed with the rule, nothing was written, the newest snapshot is the same bytes. */
async function expectRefused(slug: DatasetSlug, result: Awaited<ReturnType<typeof collectPage>>, rule: string) {
  expect(result.outcome).toBe('failed');
  expect(result.reason).toContain(`refused (${rule})`);
  await expectNewestUntouched(snapshots, slug);
  return result.reason!;
}

/** The newest snapshot in the live page's markup, bent by `edit` (a cheerio document of it). */
function livePage(slug: DatasetSlug, edit: ($: cheerio.CheerioAPI) => void = () => {}, data = newest[slug].data) {
  const $ = cheerio.load(renderRealStylePage(slug, data));
  edit($);
  return $.html();
}

/** The body rows of the page's `t`th rate table. */
const rowsOf = ($: cheerio.CheerioAPI, t: number) => $('table.interest_financial_datatable').eq(t).find('tbody > tr');

describe("the page's own header words", () => {
  it('every header a fixture page renders is a recorded text, and each names its record', () => {
    for (const { slug } of DATASETS) {
      for (const page of [renderSourcePage(slug, newest[slug].data), renderRealStylePage(slug, newest[slug].data)]) {
        const $ = cheerio.load(page.replaceAll('<br>', ' '));
        const found = $('thead th')
          .toArray()
          .map((th) => $(th).text().trim());
        const recorded = Object.values(RECORDED_HEADERS).flat();
        for (const text of found) {
          const entry = recorded.find((h) => h.text === text);
          expect(entry, `${slug}: "${text}" is a recorded header`).toBeDefined();
          expect(RECORDS[entry!.record]).toBeTruthy();
        }
      }
    }
    // The one record of the card and loan headers, word for word.
    expect(headerTexts('card').slice(1)).toEqual([
      'Plan',
      'Interest free period',
      'Fee primary $',
      'Balance transfer %',
      'Balance transfer period',
      'Cash Adv %',
      'Purchases %',
    ]);
    expect(headerTexts('loan').slice(2)).toEqual(['Plan', 'Notes', 'Interest rate %']);
  });

  it.each(EACH)('%s: the live page under its recorded headers is collected as the history holds it', async (slug) => {
    const result = await collectPage(slug, livePage(slug));
    expect(result.reason).toBeUndefined();
    expect(result.outcome).toBe('unchanged');
  });

  it('abbreviations of the recorded words, and the plain words of unrecorded columns, place each column', () => {
    expect(
      mapHeaders(
        [
          'Issuer',
          'Plan',
          'Int. free period',
          'Fee primary',
          'Bal. transfer %',
          'Bal transfer period',
          'Cash Adv. %',
          'Purchases %',
        ],
        CREDIT_CARD_PAGE,
        0,
      ),
    ).toEqual(CREDIT_CARD_PAGE.columns.map((c) => c.key));
    expect(
      mapHeaders(
        [
          'Provider',
          'Card',
          'Interest free days',
          'Annual fee $',
          'Bal tsfr %',
          'Balance transfer period',
          'Cash advance %',
          'Purchase rate %',
        ],
        CREDIT_CARD_PAGE,
        0,
      ),
    ).toEqual(CREDIT_CARD_PAGE.columns.map((c) => c.key));
    // "Loan type" beside "Plan" is the product; "Plan" is whether it is secured.
    for (const [first, product] of [
      ['Lender', 'Loan type'],
      ['Provider', 'Loan'],
      ['Institution', 'Product'],
    ])
      expect(mapHeaders([first!, product!, 'Plan', 'Notes', 'Int. rate %'], PERSONAL_LOAN_PAGE, 0)).toEqual([
        'institution',
        'product',
        'plan',
        'condition',
        'rate',
      ]);
    expect(
      mapHeaders(
        ['Lender', 'Loan type', '6 mths', '1 yr', '2 yrs', '3 yrs', '4 yrs', '5 yrs', 'Floating'],
        MORTGAGE_PAGE,
        0,
      ),
    ).toHaveLength(9);
  });
});

describe('rows read by their shape', () => {
  it.each(EACH)(
    '%s: lead rows without their class, logo-only names included, still start their institution',
    async (slug) => {
      const page = livePage(slug, ($) => {
        expect($('tr.primary_row td.inst-name img[alt]').length).toBeGreaterThan(0); // logo-only names are there
        $('tr.primary_row').removeClass('primary_row');
      });
      const result = await collectPage(slug, page);
      expect(result.reason).toBeUndefined();
      expect(result.outcome).toBe('unchanged');
    },
  );

  it.each(EACH)('%s: a logo with no alt is named by a title that is a name, never by a slogan', async (slug) => {
    // The first logo-only name cell: its alt is the name, its title and its link's a slogan.
    const named = livePage(slug, ($) => {
      const img = $('td.inst-name img[alt]').first();
      img.attr('title', img.attr('alt')!.replace(/\.$/, '')).attr('alt', '');
      expect(img.parent('a').attr('title')).not.toBe(img.attr('title'));
    });
    expect((await collectPage(slug, named)).outcome).toBe('unchanged');
    const slogan = livePage(slug, ($) => {
      $('td.inst-name img[alt]').first().attr('alt', '').closest('tr').removeClass('primary_row');
    });
    const reason = await expectRefused(
      slug,
      await collectPage(slug, slogan),
      'a row starts an institution with no usable name',
    );
    expect(reason).toMatch(/table \d+, row \d+/);
  });

  it.each(EACH)('%s: one cell missing from every row of one section is refused, naming the row', async (slug) => {
    const page = livePage(slug, ($) => {
      rowsOf($, 1).each((_, tr) => void $(tr).children('td').eq(3).remove());
    });
    const reason = await expectRefused(slug, await collectPage(slug, page), 'a row does not line up with its header');
    expect(reason).toMatch(/table 2, row 1 \(".*"\): \d+ column\(s\) where the header has \d+/);
  });

  it.each(LOANS)('%s: plan and notes traded in one section of four are refused, naming the column', async (slug) => {
    const page = livePage(slug, ($) => {
      expect($('table.interest_financial_datatable').length).toBeGreaterThanOrEqual(3);
      rowsOf($, 0).each((_, tr) => {
        const cells = $(tr).children('td');
        cells.eq(2).before(cells.eq(3)); // notes now where plan was
      });
    });
    const reason = await expectRefused(slug, await collectPage(slug, page), 'columns traded places');
    expect(reason).toMatch(
      /the plan \(secured or not\) column reads "[^"]+", an amount or a range|the notes \(amount or term\) column reads "[^"]+", a plan/,
    );
  });

  it.each(EACH)(
    '%s: a name cell spanning its institution’s rows (rowspan) is read as the page shows it',
    async (slug) => {
      const page = livePage(slug, ($) => {
        $('tbody').each((_, tbody) => {
          let lead: cheerio.Cheerio<any> | undefined;
          let span = 0;
          const close = () => lead?.attr('rowspan', String(span));
          $(tbody)
            .children('tr')
            .each((_, tr) => {
              const name = $(tr).children('td').first();
              if ($(tr).hasClass('primary_row')) {
                close();
                lead = name;
                span = 1;
              } else {
                name.remove();
                span++;
              }
            });
          close();
        });
      });
      expect(page).toContain('rowspan="');
      const result = await collectPage(slug, page);
      expect(result.reason).toBeUndefined();
      expect(result.outcome).toBe('unchanged');
    },
  );

  it.each(EACH)(
    '%s: a header row repeated mid-table, in <th> or in <td> cells, is a header, never a lender',
    async (slug) => {
      for (const tag of ['mixed', 'td'] as const) {
        const page = livePage(slug, ($) => {
          const headers = $('thead th')
            .slice(0, $('table.interest_financial_datatable').first().find('thead th').length)
            .toArray()
            .map((th) => $(th).html());
          const cells = headers.map((h, i) => (tag === 'td' || i < 2 ? `<td>${h}</td>` : `<th>${h}</th>`)).join('');
          rowsOf($, 0).eq(2).after(`<tr>${cells}</tr>`);
        });
        const result = await collectPage(slug, page);
        expect(result.reason, tag).toBeUndefined();
        expect(result.outcome, tag).toBe('unchanged');
      }
    },
  );

  it(`${TERMED}: a value spanning two term columns is refused: which term it is cannot be said`, async () => {
    const page = livePage(TERMED, ($) => {
      const row = rowsOf($, 0).first();
      row.children('td').eq(3).remove();
      row.children('td').eq(2).attr('colspan', '2');
    });
    await expectRefused(TERMED, await collectPage(TERMED, page), 'a value spans several columns');
  });
});

describe('guards anchored to the snapshot of at least 24 hours ago, as to the newest', () => {
  const hour = (h: number) => new Date(`2026-11-21T${String(h).padStart(2, '0')}:00:00.000Z`);
  /** The dataset's newest data with every rate of its first entity moved by `delta` points (within the rates' bounds). */
  const moved = (slug: DatasetSlug, delta: number) => {
    const data = structuredClone(newest[slug].data) as any[];
    for (const item of itemsOf(data[0]) as any[])
      for (const holder of [...(item.rates ?? []), item])
        for (const key of Object.keys(holder))
          if (
            (key === 'rate' || key.endsWith('Rate')) &&
            key !== 'balanceTransferRate' &&
            typeof holder[key] === 'number'
          )
            holder[key] = movedWithinBounds(holder[key], delta);
    return data;
  };
  const rateCount = (entity: Entity) => rateValues([entity]).length;
  const todays = (slug: DatasetSlug) => readFile(join(snapshots, slug, '2026-11-21.json'), 'utf8');

  it.each(EACH)('%s: three runs in a day of +4.9 points each go no further than one', async (slug) => {
    const first = await collectPage(slug, livePage(slug, undefined, moved(slug, 4.9)), hour(3));
    expect(first.outcome).toBe('written');
    const kept = await todays(slug);
    const second = await collectPage(slug, livePage(slug, undefined, moved(slug, 9.8)), hour(4));
    expect(second.outcome).toBe('failed');
    expect(second.reason).toContain('refused (a rate moved more than 5 percentage points within 24 hours)');
    expect(second.reason).toContain(`from the snapshot of at least 24 hours ago (${newestDates()[slug]})`);
    expect(await todays(slug)).toBe(kept);
    const third = await collectPage(slug, livePage(slug, undefined, moved(slug, 14.7)), hour(5));
    expect(third.outcome).toBe('failed');
    expect(await todays(slug)).toBe(kept);
  });

  it.each(EACH)('%s: runs that each keep 51 % of the lenders cannot walk the list down in one day', async (slug) => {
    // The lenders with the most rates first, so a share of the lenders keeps at least that share of the rates.
    const data = [...newest[slug].data].sort((a, b) => rateCount(b) - rateCount(a));
    const keep = (share: number) => data.slice(0, Math.ceil(data.length * share));
    expect((await collectPage(slug, livePage(slug, undefined, keep(0.51)), hour(3))).outcome).toBe('written');
    const second = await collectPage(slug, livePage(slug, undefined, keep(0.51 * 0.51)), hour(4));
    expect(second.outcome).toBe('failed');
    expect(second.reason).toMatch(
      /refused \(shrink\): only \d+ institutions where the snapshot of at least 24 hours ago \(\d{4}-\d\d-\d\d\) has \d+/,
    );
  });

  it.each(EACH)(
    '%s: runs that each replace 49 % of the lenders cannot replace them all in one day',
    async (slug, dataset) => {
      const data = newest[slug].data as any[];
      const strangers = (from: number, count: number) =>
        data
          .slice(0, count)
          .map((e, i) => ({ ...e, id: `${dataset.entity.prefix}:lender-${from + i}`, name: `Lender ${from + i}` }));
      const replaced = Math.floor(data.length * 0.49);
      const once = [...strangers(0, replaced), ...data.slice(replaced)];
      expect((await collectPage(slug, livePage(slug, undefined, once), hour(3))).outcome).toBe('written');
      const twice = [...strangers(0, replaced), ...strangers(replaced, replaced), ...data.slice(2 * replaced)];
      const second = await collectPage(slug, livePage(slug, undefined, twice), hour(4));
      expect(second.outcome).toBe('failed');
      expect(second.reason).toContain('refused (other lenders)');
      expect(second.reason).toContain(
        `of the ${data.length} institutions of the snapshot of at least 24 hours ago (${newestDates()[slug]}) are listed`,
      );
    },
  );

  it.each(EACH)('%s: a day of small moves, run after run, is collected every time', async (slug) => {
    for (const [h, delta] of [
      [3, -0.25],
      [4, -0.5],
      [5, -0.75],
    ] as const) {
      const result = await collectPage(slug, livePage(slug, undefined, moved(slug, delta)), hour(h));
      expect(result.reason).toBeUndefined();
      expect(result.outcome).toBe(h === 3 ? 'written' : 'replaced');
    }
  });
});

describe('bounded work: long and deep cells are read in time linear in the page', () => {
  // Before, one cell of 240,000 spaces took 106 s and a colspan cell of deep markup 28 s and 1.1 GB.
  const within = 10_000;
  const timed = async (slug: DatasetSlug, page: string) => {
    const started = performance.now();
    const result = await collectPage(slug, page);
    return { result, ms: performance.now() - started };
  };

  it(`${TERMED}: a name and a rate cell of 240,000 spaces each are refused in seconds`, async () => {
    const page = livePage(TERMED, ($) => {
      const row = rowsOf($, 0).first();
      row
        .children('td')
        .eq(0)
        .find('a')
        .text(`ANZ${' '.repeat(240_000)}.`);
      row
        .children('td')
        .eq(2)
        .text(`5.79${' '.repeat(240_000)}x`);
    });
    const { result, ms } = await timed(TERMED, page);
    await expectRefused(TERMED, result, 'a cell too long to read');
    expect(result.reason).toContain(`more than ${MAX_CELL_CHARS.toLocaleString('en')} characters`);
    expect(ms).toBeLessThan(within);
  }, 60_000);

  it(`${TERMED}: a cell of about 1 MB of spaces and line breaks is refused in seconds`, async () => {
    const page = livePage(TERMED, ($) => {
      rowsOf($, 0).first().children('td').eq(1).text(' \n \t'.repeat(250_000));
    });
    const { result, ms } = await timed(TERMED, page);
    await expectRefused(TERMED, result, 'a cell too long to read');
    expect(ms).toBeLessThan(within);
  }, 60_000);

  it(`${TERMED}: a cell spanning every column with 3.8 MB of markup is read once, and refused in seconds`, async () => {
    const deep = `${'<span><b>'.repeat(100)}${'<i>x</i>'.repeat(470_000)}${'</b></span>'.repeat(100)}`;
    const page = livePage(TERMED, ($) => {
      const row = rowsOf($, 0).first();
      row.children('td').slice(2).remove();
      row.append(`<td colspan="100">${deep}</td>`);
    });
    expect(page.length).toBeGreaterThan(3_800_000);
    const { result, ms } = await timed(TERMED, page);
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(/refused \(a cell too long to read|refused \(a row does not line up/);
    expect(ms).toBeLessThan(within);
  }, 60_000);
});

describe('bounded, clean reasons', () => {
  it.each(EACH)('%s: a refused page’s 2 MB title is stored at most 2,000 characters, clean', async (slug) => {
    const title = `\u001b[31m\n::error::${'Just a moment '.repeat(150_000)}\u202e`;
    const result = await collectPage(slug, `<html><head><title>${title}</title></head><body></body></html>`);
    await expectRefused(slug, result, 'a block or challenge page, not the rates page');
    for (const reason of [result.reason!, (await status.read(slug))!.lastError!]) {
      expect(reason.length).toBeLessThanOrEqual(2_000);
      expect(reason).not.toMatch(INVISIBLE_CHARACTERS);
    }
  });
});

describe('names and numbers', () => {
  it.each(EACH)('%s: a lender name past 100 characters is refused before it can block a build', async (slug) => {
    const data = structuredClone(newest[slug].data) as any[];
    data[0].name = `${data[0].name} ${'Long '.repeat(60)}`.trim();
    const reason = await expectRefused(
      slug,
      await collectPage(slug, livePage(slug, undefined, data)),
      'a name the service cannot keep',
    );
    expect(reason).toMatch(/\d+ characters, at most 100/);
  });

  it.each(EACH)('%s: "АNZ" with a Cyrillic А is refused, not published as another lender', async (slug) => {
    const data = structuredClone(newest[slug].data) as any[];
    data[0].name = `\u0410${data[0].name.slice(1)}`;
    const reason = await expectRefused(
      slug,
      await collectPage(slug, livePage(slug, undefined, data)),
      'a name the service cannot keep',
    );
    expect(reason).toContain('mixes Latin letters with Cyrillic or Greek ones');
  });

  it.each(EACH)('%s: a name with no Latin letter or digit makes no id, and is refused', async (slug) => {
    const data = structuredClone(newest[slug].data) as any[];
    data[0].name = 'Банк';
    const reason = await expectRefused(
      slug,
      await collectPage(slug, livePage(slug, undefined, data)),
      'a name the service cannot keep',
    );
    expect(reason).toContain('makes no id');
  });

  it(`${CARDS}: $149 in the interest-free column is no 149 days: an unreadable cell`, async () => {
    const data = structuredClone(newest[CARDS].data) as any[];
    const plan = data.flatMap((e) => e.plans).find((p: any) => p.interestFreeDays !== null);
    plan.interestFreeDays = 149; // no other cell reads 149
    const page = livePage(CARDS, undefined, data).replace('>149<', '>$149<');
    expect(page).toContain('>$149<');
    const result = await collectPage(CARDS, page);
    expect(result.unreadable).toEqual([expect.stringContaining('interest-free days: "$149"')]);
  });

  it(`${TERMED}: full-width digits and a trailing p.a. read as the number they spell`, async () => {
    const data = newest[TERMED].data as any[];
    const [rate] = itemsOf(data[0]).flatMap((item: any) => item.rates);
    const written = (rate.rate as number).toFixed(2);
    const page = livePage(TERMED, ($) => {
      const cell = rowsOf($, 0)
        .toArray()
        .flatMap((tr) => $(tr).children('td').toArray())
        .find((td) => $(td).text().trim() === written)!;
      $(cell).text(`${written.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)))}% p.a.`);
    });
    expect(page).toMatch(/[\uff10-\uff19]+\.[\uff10-\uff19]+% p\.a\./);
    const result = await collectPage(TERMED, page);
    expect(result.unreadable).toEqual([]);
    expect(result.outcome).toBe('unchanged');
  });
});
