/**
 * "The best rate" is declared once (src/explorer/best.ts reads each dataset's `best` and each
 * measure's own): this file turns one lending dataset's declaration to `highest`, as a savings
 * dataset would declare it, before anything reads it, and checks that what ranks, picks and words
 * a best rate follows — `/lowest` picks the highest open rate, the alert feeds take `above` and
 * refuse `below`, the feeds' and the OpenAPI, MCP and reference texts say "highest", and the
 * comparison ranks highest first. Each test file has its own modules, so no other file sees the change.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset, itemsOf } from '../src/datasets.ts';
import { EXPLORER, type ExplorerDefinition, openOffers } from '../src/explorer/definitions.ts';
import { bestRateOf, bestRatesOf, bestWordOf } from '../src/explorer/best.ts';
import { SITE } from './support/constants.ts';
import { coreOver, get, getJson } from './support/core.ts';
import { historyDir } from './support/history.ts';

// A lending dataset whose measures are plans (no term filter): its declaration is turned.
const dataset: Dataset = DATASETS.find((d) => d.entity.kind === 'institution' && d.filters.length === 0)!;
const definition = EXPLORER[dataset.slug] as ExplorerDefinition;
const declared = definition.best;
definition.best = 'highest';

let api: Awaited<ReturnType<typeof coreOver>>;
let pages: typeof import('../src/explorer/pages.ts');
let newest: ReturnType<typeof pages.datasetViews>[number];
beforeAll(async () => {
  api = await coreOver(historyDir());
  pages = await import('../src/explorer/pages.ts');
  const { compileSnapshotTree } = await import('../src/store/compile.ts');
  newest = pages.datasetViews(await compileSnapshotTree(historyDir())).find((v) => v.dataset.slug === dataset.slug)!;
}, 60_000);

/** The highest open offer of each measure in the newest snapshot, worked out here from the offers alone. */
function highestOpen(): Map<string, number> {
  const found = new Map<string, number>();
  for (const entity of newest.latest.data)
    for (const item of itemsOf(entity))
      for (const offer of openOffers(definition, entity, item))
        found.set(offer.key, Math.max(found.get(offer.key) ?? -Infinity, offer.value));
  return found;
}

describe('the best rate, declared once', () => {
  it('a rate paid is best lowest and followed below; a rate earned highest and above; a measure may say its own', () => {
    expect(declared).toBe('lowest');
    const paid = { best: 'lowest' as const, measures: [{ key: 'a' }, { key: 'b', best: 'highest' as const }] };
    expect(bestRateOf(paid, 'a')).toMatchObject({ end: 'lowest', paid: true, side: 'below', word: 'lowest' });
    expect(bestRateOf(paid, 'b')).toMatchObject({ end: 'highest', paid: false, side: 'above', word: 'highest' });
    expect(bestRateOf(paid, 'a').better(4, 5)).toBe(true);
    expect(bestRateOf(paid, 'b').better(4, 5)).toBe(false);
    expect([7, 3, 5].sort(bestRateOf(paid, 'b').order)).toEqual([7, 5, 3]);
    expect(bestRatesOf(paid).map((r) => r.end)).toEqual(['lowest', 'highest']);
    expect(bestWordOf(paid)).toMatch(/^best \(the lowest of a rate paid, the highest of a rate earned\)$/);
    expect(bestWordOf({ best: 'highest', measures: [{ key: 'a' }] })).toBe('highest');
  });

  it('/lowest answers the highest open rate of each measure, where the declaration says highest', async () => {
    const expected = highestOpen();
    expect(expected.size).toBeGreaterThan(0);
    const { response, body } = await getJson(api, `/api/v1/${dataset.slug}/lowest`);
    expect(response.status).toBe(200);
    expect(new Map(body.data.map((m: any) => [m.measure, m.rate]))).toEqual(expected);
    // Restricted offers set apart are those above it.
    for (const m of body.data) for (const r of m.restricted) expect(r.rate).toBeGreaterThan(m.rate);
  });

  it('the comparison ranks the highest first', () => {
    const { comparison } = pages;
    const measure = definition.compared[0]!;
    const rows = comparison(newest, measure, { type: 'all', restricted: false }).rows.filter(
      (r) => r.value !== undefined,
    );
    expect(rows.length).toBeGreaterThan(1);
    const values = rows.map((r) => r.value!);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect(values[0]).toBe(highestOpen().get(measure));
  });

  it('the alert feed follows it above a threshold, refuses below with a hint naming above, and titles it "Highest"', async () => {
    const measure = definition.compared[0]!;
    const path = `/api/v1/${dataset.slug}/alerts`;
    const refused = await getJson(api, `${path}?measure=${measure}&below=6`);
    expect(refused.response.status).toBe(400);
    expect(refused.body.hint).toMatch(/use above, such as above=6/);
    const missing = await getJson(api, `${path}?measure=${measure}`);
    expect(missing.body.hint).toMatch(/above=<rate in percent>/);
    const feed = await getJson(api, `${path}?measure=${measure}&above=1`);
    expect(feed.response.status).toBe(200);
    expect(feed.body.title).toMatch(/^Highest .* above 1 %$/);
    expect(feed.body.items.length).toBeGreaterThan(0);
    for (const item of feed.body.items) expect(item.title).toMatch(/^Highest /);
    const atom = await (await get(api, `/feeds/${dataset.slug}/alerts.atom?measure=${measure}&above=1`)).text();
    expect(atom).toContain('<title type="text">Highest ');
  });

  it('the lowest-rate feed of a measure says "Highest" in its title and entries', async () => {
    const { lowestChangesAtom } = await import('../src/api/alerts.ts');
    const measure = definition.compared[0]!;
    const atom = lowestChangesAtom(dataset, newest.snapshots, measure, SITE);
    const titles = [...atom.matchAll(/<title type="text">([^<]*)<\/title>/g)].map((m) => m[1]!);
    expect(titles.length).toBeGreaterThan(1);
    for (const title of titles) expect(title).toMatch(/^Highest /);
    expect(atom).not.toMatch(/Lowest/);
  });

  it('the OpenAPI document, the MCP tool and the reference page say "highest" and take `above`', async () => {
    const { documentOverHistory } = await import('./support/openapi.ts');
    const { doc, service } = await documentOverHistory();
    const { collectExamples } = await import('../src/examples.ts');
    const examples = await collectExamples(service, SITE);
    const lowest = doc.paths[`/api/v1/${dataset.slug}/lowest`].get;
    expect(lowest.summary).toBe(`Get the highest ${dataset.label}`);
    expect(lowest.description).toMatch(/^The highest /);
    const alerts = doc.paths[`/api/v1/${dataset.slug}/alerts`].get;
    expect(alerts.summary).toMatch(/^Follow the highest /);
    const params = Object.fromEntries(
      alerts.parameters.map((p: any) => [p.name, p.description ?? p.schema?.description]),
    );
    expect(params.above).toMatch(/^Alert while the highest open rate is above this rate/);
    expect(params.below).toMatch(/^Not for /);
    // Every example the document shows for the feed is a real answer: its 200 takes `above`.
    expect(JSON.stringify(alerts.responses['200'])).toMatch(/above=/);

    const { restToolsOf } = await import('../src/mcp/rest-tools.ts');
    const tool = restToolsOf(dataset, ['lowest'])[0]!;
    expect(tool.title).toBe(`Get the highest ${dataset.label}`);
    expect(tool.description).toMatch(/^The highest newest /);
    expect(tool.description).toMatch(/restricted offers above it/);

    // The instructions speak of every dataset: with one rate earned among rates paid, they say what each best is.
    const { instructionsFor } = await import('../src/mcp/instructions.ts');
    expect(instructionsFor()).toContain(
      'get_lowest_<dataset>: the best (the lowest of a rate paid, the highest of a rate earned) newest rates open to anyone',
    );
    expect(instructionsFor(DATASETS.filter((d) => d === dataset))).toMatch(
      /get_lowest_<dataset>: the highest newest rates .*; restricted offers above them/,
    );

    const { referenceMarkdown } = await import('../src/docs/reference.ts');
    const page = referenceMarkdown(dataset, examples, SITE);
    expect(page).toContain('the highest rates open to anyone');
    expect(page).toContain('crosses a threshold (`above`)');
    expect(page).not.toMatch(/lowest (rate|open|rates)/);
    // Institutions a rate is earned from are no lenders.
    expect(page).toContain('credit unions and other institutions');
    expect(page).not.toContain('other lenders');
  }, 60_000);
});
