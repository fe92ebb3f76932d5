/**
 * The lowest rate a person can get, on the built pages: a loan's "From" and "To" are one offer
 * ranked where it starts, overdrafts are no loan, a lender that lends to one group has every offer
 * set apart (and its page says why), cards are compared as people compare them (general cards,
 * with their fee, interest-free days and transfer period; store cards and rate-less cards apart),
 * and on a phone the rates fill the first screen: at least three, each with its lender and
 * product, on the hub and on every listing and comparison page.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dataset, DATASETS } from '../src/datasets.ts';
import { EXPLORER, type ExplorerDefinition, loanRanges, type Offer } from '../src/explorer/definitions.ts';
import { RESTRICTIONS } from '../src/explorer/restrictions.ts';
import { CreditCardIssuer, LoanInstitution, MortgageInstitution } from '../src/schemas/rates.ts';
import { chromiumForTests } from './support/chromium.ts';
import { datasetOfSchema, datasetsOfSchema } from './support/datasets.ts';
import { historyDir, newestSnapshots, type SnapshotFile, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

let site: ProductionSite;
let newest: Record<string, SnapshotFile>;
const browser = chromiumForTests();

beforeAll(async () => {
  newest = await newestSnapshots();
  site = await buildAndServe({
    name: 'explorer-offers',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
}, 240_000);
afterAll(() => site?.stop());

const html = async (path: string) =>
  cheerio.load(await readFile(join(site.buildDir, 'client', path, 'index.html'), 'utf8'));
const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;
const words = (text: string) => text.replace(/\s+/g, ' ').trim();
const LOANS = datasetsOfSchema(LoanInstitution);
const TERMED = datasetOfSchema(MortgageInstitution);
const CARDS = datasetOfSchema(CreditCardIssuer);
const ruleLabel = (key: string) => RESTRICTIONS.find((r) => r.key === key)!.label;
/** A measure's comparison page, and the first card of a dataset page for a measure. */
const comparisonPath = (dataset: Dataset, key: string) =>
  `rates/${definitionOf(dataset).path}/${definitionOf(dataset).measures.find((m) => m.key === key)!.slug}`;
const card = ($: cheerio.CheerioAPI, key: string) => $(`.best-card:has(.value[data-measure="${key}"])`).first();

describe('loans as ranges', () => {
  it.each(LOANS.map((d) => [d.slug, d] as const))(
    '%s: each lowest is where an open range starts, "from" with the range beside it, and no overdraft',
    async (_, dataset) => {
      const $ = await html(`rates/${definitionOf(dataset).path}`);
      for (const key of definitionOf(dataset).compared) {
        const value = card($, key).find('.value');
        const first = card($, key).find('.who li').first();
        if (first.find('.range').length > 0) {
          expect(words(value.text())).toMatch(/^from \d+\.\d{2} %$/);
          const [from] = words(first.find('.range').text()).split('–');
          expect(Number(from!.replace(/^from /, ''))).toBe(Number(value.attr('data-value')));
        }
        expect(words(card($, key).find('.who').text())).not.toMatch(/overdraft/i);
      }
    },
  );

  it('a loan whose range is 8.99–17.75 % ranks at 8.99 %, not at the top of its range', () => {
    // Every ranged loan product of the newest snapshots: its one offer is worth where the range starts.
    const ranged = LOANS.flatMap((d) =>
      newest[d.slug]!.data.flatMap((entity: any) =>
        entity.products.flatMap((product: any) =>
          loanRanges(product)
            .filter((r) => r.from && r.to)
            .map((r) => ({ dataset: d, entity, product, from: r.from!.rate, to: r.to!.rate })),
        ),
      ),
    );
    expect(ranged.length).toBeGreaterThan(20);
    for (const { dataset, entity, product, from } of ranged) {
      const offers = definitionOf(dataset).offers(product, entity);
      expect(offers.map((o) => o.value)).toContain(from);
      expect(offers.filter((o) => o.range?.to !== undefined && o.range.to !== null).length).toBeGreaterThan(0);
    }
  });

  it.each(LOANS.map((d) => [d.slug, d] as const))(
    '%s: an institution page shows one row per offer, a range in one row',
    async (_, dataset) => {
      const ranged = newest[dataset.slug]!.data.find((e: any) =>
        e.products.some((p: any) => loanRanges(p).some((r) => r.from && r.to)),
      );
      const $ = await html(`rates/${definitionOf(dataset).path}/${ranged.id.slice(ranged.id.indexOf(':') + 1)}`);
      const offers = ranged.products.flatMap((p: any) => definitionOf(dataset).offers(p, ranged));
      expect($('table.rate-table tbody tr')).toHaveLength(offers.length);
      expect(offers.length).toBeLessThan(ranged.products.flatMap((p: any) => p.rates).length);
      expect(words($('table.rate-table').text())).toMatch(/\d+\.\d{2}–\d+\.\d{2}/);
    },
  );

  it('a loan given by its “To” alone reads “up to” on the comparison pages, one with a “From” reads “from”, a single rate neither', async () => {
    let upTo = 0;
    for (const dataset of LOANS) {
      const offers = new Map<string, Offer>(
        newest[dataset.slug]!.data.flatMap((e: any) =>
          e.products.flatMap((p: any) =>
            definitionOf(dataset)
              .offers(p, e)
              .map((o) => [o.id, o] as const),
          ),
        ),
      );
      for (const key of definitionOf(dataset).compared) {
        const $ = await html(comparisonPath(dataset, key));
        for (const td of $('table.compare-table td.rate[data-id]').toArray()) {
          const offer = offers.get($(td).attr('data-id')!.split(' ')[0]!)!;
          const lead = !offer.range ? '' : offer.range.from === null ? 'up to ' : 'from ';
          expect(words($(td).text()), offer.id).toBe(`${lead}${offer.value.toFixed(2)}`);
          if (lead === 'up to ') upTo++;
        }
      }
    }
    // First CU's "Up to 18.00 %" among them.
    expect(upTo).toBeGreaterThan(0);
  });

  it('overdrafts are set apart as no loan, where they beat the lowest loan', async () => {
    const label = ruleLabel('revolving-credit');
    const apart = LOANS.flatMap((d) =>
      newest[d.slug]!.data.flatMap((e: any) =>
        e.products.filter((p: any) => /overdraft/i.test(p.name)).map((p: any) => ({ d, e, p })),
      ),
    );
    expect(apart.length).toBeGreaterThan(0);
    for (const { d, e, p } of apart)
      for (const offer of definitionOf(d).offers(p, e)) expect(offer.restricted).toContain(label);
  });
});

describe("a lender's own eligibility", () => {
  const lenderRules = RESTRICTIONS.filter((r) => r.field === 'entity' && r.key !== 'store-card');

  it('each lender the table names has a page saying whom it lends to, and why, with what the maintainers find unclear left to the docs', async () => {
    let pages = 0;
    for (const dataset of [...LOANS, TERMED])
      for (const entity of newest[dataset.slug]!.data as any[]) {
        const rule = lenderRules.find((r) => r.pattern.test(entity.name));
        if (!rule || !(definitionOf(dataset).restrictions as readonly string[]).includes(rule.key)) continue;
        const $ = await html(`rates/${definitionOf(dataset).path}/${entity.id.slice(entity.id.indexOf(':') + 1)}`);
        const note = words($('.lender-rule').text());
        expect(note, entity.name).toContain(`${entity.name} lends only to ${rule.label}.`);
        expect(note).toContain(rule.why);
        // The maintainers' open question is the docs' table's (/docs/concepts), not the public page's.
        if ('unclear' in rule && rule.unclear) expect(note).not.toContain(rule.unclear);
        expect(note).not.toContain('What is unclear');
        // Every offer of it is set apart, so none is marked best.
        expect($('table.rate-table td.best'), entity.name).toHaveLength(0);
        pages++;
      }
    expect(pages).toBeGreaterThanOrEqual(3);
  });

  it.each(LOANS.map((d) => [d.slug, d] as const))(
    '%s: no lender that lends to one group is a lowest open offer',
    async (_, dataset) => {
      const $ = await html(`rates/${definitionOf(dataset).path}`);
      const named = $('.best-card .who li a')
        .map((_, a) => $(a).text())
        .get();
      for (const rule of lenderRules) for (const name of named) expect(rule.pattern.test(name), name).toBe(false);
    },
  );
});

describe('cards as people compare them', () => {
  it('the lowest purchase rate is a general card’s, with its fee and interest-free days; store cards are set apart', async () => {
    const $ = await html(`rates/${definitionOf(CARDS).path}`);
    const purchase = card($, 'purchase');
    const storeIssuers = RESTRICTIONS.find((r) => r.key === 'store-card')!;
    for (const a of purchase.find('.who li a').toArray()) expect(storeIssuers.pattern.test($(a).text())).toBe(false);
    for (const li of purchase.find('.who li').toArray())
      expect(words($(li).find('.details').text())).toMatch(
        /(\$[\d,]+ a year|annual fee not listed)( · \d+ days interest-free)?/,
      );
    // A store card cheaper than the lowest general card is set apart under it, labelled.
    const apart = purchase.find('.restricted-offers li[data-restricted]').toArray();
    expect(apart.some((li) => $(li).attr('data-restricted')!.includes(ruleLabel('store-card')))).toBe(true);
  });

  it('a balance-transfer offer shows how long it lasts, on the card and on its comparison page', async () => {
    const $ = await html(`rates/${definitionOf(CARDS).path}`);
    expect(words(card($, 'transfer').find('.who li .details').first().text())).toMatch(/^for [\w ]+ ·/);
    const $compare = await html(comparisonPath(CARDS, 'transfer'));
    const first = $compare('table.compare-table tbody tr').first();
    expect(words(first.find('.details').first().text())).toMatch(/^for [\w ]+ ·/);
  });

  it('cards with no rate at all are listed apart from the rate table', async () => {
    const none = (newest[CARDS.slug]!.data as any[]).flatMap((e) =>
      e.plans
        .filter((p: any) => p.purchaseRate === null && p.cashAdvanceRate === null && p.balanceTransferRate === null)
        .map((p: any) => p.name),
    );
    expect(none.length).toBeGreaterThan(3);
    const $ = await html(`rates/${definitionOf(CARDS).path}`);
    const table = $('table.rate-table tbody tr > td:first-child, table.rate-table tbody tr > th + td')
      .map((_, td) => words($(td).text()))
      .get();
    for (const name of none) expect(table, name).not.toContain(name);
    const listed = words($('.without-rate').text());
    for (const name of none) expect(listed, name).toContain(name);
  });
});

describe('rates on a phone’s first screen', () => {
  /** The hub, every dataset's page, and each of its comparison pages. */
  const PAGES = [
    '/rates',
    ...DATASETS.flatMap((d) => [
      `/rates/${definitionOf(d).path}`,
      ...definitionOf(d).compared.map((key) => `/${comparisonPath(d, key)}`),
    ]),
  ];

  it.each(PAGES)(
    '%s: at 390×844, at least three rates, each with its lender and product, inside the first screen',
    async (path) => {
      const page = await browser().newPage({ viewport: { width: 390, height: 844 } });
      try {
        await page.goto(`${site.url}${path}`, { waitUntil: 'load' });
        const seen = await page.evaluate(`(() => {
        const h = window.innerHeight;
        function inside(el) { if (!el) return false; const b = el.getBoundingClientRect(); return b.height > 0 && b.top >= 0 && b.bottom <= h; }
        const cards = [...document.querySelectorAll('.best-card')].filter((c) =>
          inside(c.querySelector('.value')) && inside(c.querySelector('.who li a')) && inside(c.querySelector('.who li .product')));
        const next = [...document.querySelectorAll('.best-card .next li')].filter((li) =>
          inside(li.querySelector('.next-rate')) && inside(li.querySelector('a')) && inside(li.querySelector('.product')));
        const rows = [...document.querySelectorAll('.compare-table tbody tr')].filter((tr) =>
          inside(tr.querySelector('td.rate')) && inside(tr.querySelector('th a')) && inside(tr.querySelector('.product')));
        return { rates: cards.length + next.length + rows.length, sideways: document.documentElement.scrollWidth > window.innerWidth };
      })()`);
        expect(seen).toEqual({ rates: expect.any(Number), sideways: false });
        expect((seen as { rates: number }).rates).toBeGreaterThanOrEqual(3);
      } finally {
        await page.close();
      }
    },
  );
});
