/**
 * What makes a page the dataset's rates page (src/collect/page-identity.ts): several features
 * together, so a widget elsewhere never refuses a real page and a neighbour page never passes for
 * it. Each page is the newest snapshot in the live page's markup (test/fixtures/real-style-page.ts),
 * bent by cheerio, served over a real socket.
 */
import type * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { LoanInstitution } from '../src/schemas/rates.ts';
import { datasetsOfSchema, EACH } from './support/datasets.ts';
import { collectBench } from './support/collect-bench.ts';

const bench = collectBench();
const { collectPage, livePage } = bench;

const _datasetOf = (slug: DatasetSlug) => DATASETS.find((d) => d.slug === slug)!;
/** The two loan datasets: one layout, told apart by their titles' words alone. */
const [LOAN_A, LOAN_B] = datasetsOfSchema(LoanInstitution) as [(typeof DATASETS)[number], (typeof DATASETS)[number]];

/** A refusal by the page reader, under its own rule (the run log counts it so). */
async function expectRefused(slug: DatasetSlug, result: Awaited<ReturnType<typeof collectPage>>, rule: string) {
  expect(result.rule).toBe(rule);
  expect(result.reason).toContain(`refused (${rule}): `);
  return bench.expectRefused(slug, result, rule);
}

async function expectRead(result: Awaited<ReturnType<typeof collectPage>>) {
  expect(result.reason).toBeUndefined();
  expect(result.outcome).toBe('unchanged');
}

/** Title and heading both say `words`. */
const titled = (words: string) => ($: cheerio.CheerioAPI) => {
  $('title').text(`${words} | interest.co.nz`);
  $('h1').text(words);
};

describe('a real page is read whatever one feature says', () => {
  it.each(EACH)('%s: a captcha widget and a challenge form in its footer do not refuse it', async (slug) => {
    const page = livePage(slug, ($) => {
      $('body').append(
        '<footer><form id="challenge-form" action="/newsletter"><div class="g-recaptcha" data-sitekey="x"></div></form></footer>',
      );
    });
    await expectRead(await collectPage(slug, page));
  });

  it.each(EACH)('%s: a changed title, with its heading, sections and headers, is read', async (slug) => {
    const page = livePage(slug, ($) => void $('title').text('Compare rates today | interest.co.nz'));
    await expectRead(await collectPage(slug, page));
  });

  it.each(EACH)('%s: title and heading that name no page, with its sections and headers, is read', async (slug) => {
    await expectRead(await collectPage(slug, livePage(slug, titled('Compare rates today'))));
  });

  it.each(EACH)(
    '%s: title and heading that name no page, and no section headings, is not the page asked for',
    async (slug) => {
      const page = livePage(slug, ($) => {
        titled('Compare rates today')($);
        $('h2.pane-title').remove();
      });
      const reason = await expectRefused(slug, await collectPage(slug, page), 'not the page asked for');
      expect(reason).toMatch(/(\d+) of \1 rate table\(s\) headed as this page's, 0 under a section heading/);
    },
  );
});

describe('a neighbour page never passes for it', () => {
  it.each([
    [LOAN_B.slug, LOAN_A],
    [LOAN_A.slug, LOAN_B],
  ])('a page titled as both loan pages, served as %s, is not the page asked for', async (slug, neighbour) => {
    const both = `${[LOAN_A, LOAN_B].map((d) => d.title.replace(/ rates$/i, 's')).join(' and ')}`;
    const page = livePage(slug, titled(both));
    expect(page).toMatch(/<title>\w+ loans and \w+ loans \| interest\.co\.nz<\/title>/i);
    const reason = await expectRefused(slug, await collectPage(slug, page), 'not the page asked for');
    expect(reason).toContain(`the title or heading names the ${neighbour.label} page`);
  });

  it.each(EACH)("%s: every other dataset's page served in its place is not the page asked for", async (slug) => {
    for (const other of DATASETS.filter((d) => d.slug !== slug)) {
      const reason = await expectRefused(slug, await collectPage(slug, livePage(other.slug)), 'not the page asked for');
      expect(reason, other.slug).toContain(`names the ${other.label} page`);
    }
  });
});

describe('a block or challenge page is refused as such', () => {
  it.each(EACH)('%s: a challenge page, even one titled as the page, is refused as a challenge', async (slug) => {
    const pages = [
      '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><form id="challenge-form"></form></body></html>',
      livePage(slug, ($) => {
        $('div.panel-pane').remove();
        $('body').append('<div class="g-recaptcha"></div>');
      }),
    ];
    for (const page of pages) {
      const reason = await expectRefused(
        slug,
        await collectPage(slug, page),
        'a block or challenge page, not the rates page',
      );
      expect(reason).toContain('0 of 0 rate table(s) headed as this page');
    }
  });
});
