/**
 * The static Atom feed beside each comparison page (/rates/<path>/<measure>/lowest.atom), as the
 * build writes it, over the test history: its entries are where the lowest open rate
 * GET /api/v1/<dataset>/lowest answers stood in the first snapshot and each change of it from one
 * snapshot date to the next (the API core asked over each date's snapshot alone), newest first, at
 * most 100, so that no feed is empty; it is valid Atom; its entry ids do not change when a
 * snapshot is added; the docs' example title is one it writes. Served as Atom by npm start and on
 * Vercel: test/changes-site.test.ts, over its production build.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAtomFeed } from 'feedsmith';
import { beforeAll, describe, expect, it } from 'vitest';
import { lowestChangesAtom } from '../src/api/alerts.ts';
import type { Handler } from '../src/api/app.ts';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { EXPLORER, type ExplorerDefinition } from '../src/explorer/definitions.ts';
import { datasetViews, type DatasetView } from '../src/explorer/pages.ts';
import { TERMS_OF_USE } from '../src/schemas/common.ts';
import { nzTime } from '../src/lib/time-words.ts';
import { compileSnapshotTree } from '../src/store/compile.ts';
import { coreOver, getJson } from './support/core.ts';
import { ROOT, SITE } from './support/constants.ts';
import { historyDir, tempDir } from './support/history.ts';

/** The dataset with fixed mortgage terms, and its 1-year term: the feed the docs show. */
const termed = DATASETS.find((d) => d.filters.some((f) => f.name === 'termInMonths'))!;
const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;
const oneYear = definitionOf(termed).measures.find((m) => m.key === '12')!;
const feedPath = `/rates/${definitionOf(termed).path}/${oneYear.slug}/lowest.atom`;
const pagePath = `/rates/${definitionOf(termed).path}/${oneYear.slug}`;

let views: DatasetView[];
/** The API core over the whole test history. */
let core: Handler;
const viewOf = (dataset: Dataset) => views.find((v) => v.dataset === dataset)!;
const text = (t: unknown) => (typeof t === 'string' ? t : (t as { value: string }).value);
const parse = (xml: string) => parseAtomFeed(xml);

/** /lowest's 1-year entry on each snapshot date, oldest first: the API core over that date's snapshot alone. */
let lowestByDate: { date: string; lowest?: { rate: number; offers: { institutionName: string }[] } }[];

beforeAll(async () => {
  views = datasetViews(await compileSnapshotTree(historyDir()));
  core = await coreOver(historyDir());
  const files = (await readdir(join(historyDir(), termed.slug))).filter((f) => f.endsWith('.json')).sort();
  lowestByDate = [];
  for (const file of files) {
    const tree = await tempDir('rates-one-snapshot-');
    await mkdir(join(tree, termed.slug));
    await copyFile(join(historyDir(), termed.slug, file), join(tree, termed.slug, file));
    const { body } = await getJson(await coreOver(tree), `/api/v1/${termed.slug}/lowest?termInMonths=12`);
    lowestByDate.push({
      date: file.slice(0, 10),
      lowest: body.data.find((m: { measure: string }) => m.measure === '12'),
    });
  }
}, 120_000);

describe('the lowest 1-year fixed rate feed', () => {
  it('has an entry for each change of the lowest open rate /lowest answers from one snapshot date to the next, newest first', () => {
    // The first snapshot's lowest is an entry too (nothing before it), then each change.
    const expected = [
      { now: lowestByDate[0]!, before: undefined },
      ...lowestByDate
        .slice(1)
        .map((now, i) => ({ now, before: lowestByDate[i] }))
        .filter(({ now, before }) => now.lowest?.rate !== before?.lowest?.rate),
    ]
      .reverse()
      .slice(0, 100);
    expect(expected.length).toBeGreaterThan(10);
    const view = viewOf(termed);
    const feed = parse(lowestChangesAtom(termed, view.snapshots, '12', SITE));
    const entries = feed.entries ?? [];
    expect(entries.map((e) => e.id!.slice(e.id!.lastIndexOf('/') + 1))).toEqual(expected.map((c) => c.now.date));
    const percent = (rate: number) => `${rate} %`;
    for (const [i, entry] of entries.entries()) {
      const { now, before } = expected[i]!;
      const where = `entry of ${now.date}`;
      expect(entry.id, where).toBe(`tag:rates.example,2024:${termed.slug}/lowest/12/${now.date}`);
      const title = text(entry.title);
      if (!before)
        expect(title, where).toBe(
          `Lowest 1-year fixed mortgage rate is ${percent(now.lowest!.rate)} in the first snapshot`,
        );
      if (now.lowest && before?.lowest)
        expect(title, where).toBe(
          `Lowest 1-year fixed mortgage rate moved ${now.lowest.rate < before.lowest.rate ? 'down' : 'up'} to ${percent(now.lowest.rate)}`,
        );
      const content = text(entry.content);
      if (!before) expect(content, where).toContain('Before: not recorded (the first snapshot).');
      for (const [label, lowest] of [
        ['Now', now.lowest],
        ...(before ? [['Before', before.lowest] as const] : []),
      ] as const) {
        expect(content, where).toContain(`${label}: ${lowest ? `${percent(lowest.rate)} from ` : ''}`);
        for (const offer of lowest?.offers ?? []) expect(content, where).toContain(offer.institutionName);
      }
      const snapshot = view.snapshots.find((s) => s.date === now.date)!;
      // The snapshot by when it was collected, in New Zealand time as the pages say it, not by its UTC date.
      expect(content, where).toContain(
        `Snapshot collected ${nzTime(new Date(snapshot.lastUpdated))}. Compare every lender: ${SITE}${pagePath}`,
      );
      expect(content, where).not.toContain(now.date);
      expect(entry.links?.[0]?.href, where).toBe(`${SITE}${pagePath}`);
      expect(entry.updated, where).toBe(new Date(snapshot.lastUpdated).toISOString());
    }
  });

  it('is an Atom feed: its title, its page and its own address, the terms of use, updated when its newest entry was', () => {
    const feed = parse(lowestChangesAtom(termed, viewOf(termed).snapshots, '12', SITE));
    expect(text(feed.title)).toBe('Lowest 1-year fixed mortgage rate');
    expect(feed.id).toBe(`tag:rates.example,2024:${termed.slug}/lowest/12`);
    expect(feed.links?.map((l) => [l.rel, l.href])).toEqual([
      ['alternate', `${SITE}${pagePath}`],
      ['self', `${SITE}${feedPath}`],
    ]);
    expect(text(feed.rights)).toBe(TERMS_OF_USE);
    expect(feed.updated).toBe(feed.entries?.[0]?.updated);
  });

  it('keeps its entry ids when a snapshot is added: the feed of the history one snapshot shorter has the same entries, less the newest', () => {
    const { snapshots } = viewOf(termed);
    const entries = (xml: string) =>
      (parse(xml).entries ?? []).map((e) => ({
        id: e.id,
        title: text(e.title),
        content: text(e.content),
        updated: e.updated,
      }));
    const now = entries(lowestChangesAtom(termed, snapshots, '12', SITE));
    const before = entries(lowestChangesAtom(termed, snapshots.slice(0, -1), '12', SITE));
    const newest = snapshots.at(-1)!.date;
    expect(now.filter((e) => !e.id!.endsWith(`/${newest}`))).toEqual(
      before.slice(0, now.filter((e) => !e.id!.endsWith(`/${newest}`)).length),
    );
  });

  it('the notifications page gives its address and an entry title as the feed writes it', async () => {
    const markdown = await readFile(join(ROOT, 'content/docs/notifications.md'), 'utf8');
    // Its own section, from its heading to the next.
    const page = markdown
      .slice(markdown.indexOf('## The lowest rate of one measure'))
      .split(/^## /m)[1]!
      .replace(/\s+/g, ' ');
    expect(page).toContain(`\`{{site}}${feedPath}\``);
    const [, title] = /titled like `(Lowest [^`]+)`/.exec(page) ?? [];
    const titles = (parse(lowestChangesAtom(termed, viewOf(termed).snapshots, '12', SITE)).entries ?? []).map((e) =>
      text(e.title),
    );
    expect(titles).toContain(title);
  });
});

describe.each(DATASETS.map((d) => [d.slug, d] as const))('%s', (_, dataset) => {
  it('every compared measure has a feed, none empty, whose newest entry is the lowest /lowest answers now', async () => {
    const definition = definitionOf(dataset);
    const view = viewOf(dataset);
    const { body: lowest } = await getJson(core, `/api/v1/${dataset.slug}/lowest`);
    for (const key of definition.compared) {
      const feed = parse(lowestChangesAtom(dataset, view.snapshots, key, SITE));
      const newest = feed.entries?.[0];
      // A new subscriber reads the rate now, whether or not it ever changed.
      expect(newest, key).toBeDefined();
      if (!newest) continue;
      const rate = lowest.data.find((m: { measure: string }) => m.measure === key)?.rate;
      expect(text(newest.content), key).toMatch(
        new RegExp(`^Now: ${rate === undefined ? 'no offer' : `${String(rate).replace('.', '\\.')} %`}`, 'm'),
      );
    }
  });
});
