/**
 * Lenders' websites, read by the collector from the links of the name cells over a real local
 * server: the link as the source page writes a campaign logo's (the recorded hrefs of
 * test/fixtures/real-pages, tracking parameters and all) is kept without its tracking parameters
 * in `snapshots/<dataset>/links.json`; a link to the source's own directory names no website; a
 * run whose only difference is a link writes no snapshot; no rate object carries a link; and the
 * registry serves the website, while no rate answer's ETag moves for it.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lenderRows } from '../src/build/lenders.ts';
import { collect } from '../src/collect/collect.ts';
import { websiteOf } from '../src/collect/links.ts';
import { summaryMarkdown } from '../src/collect/summary.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { datasetViews } from '../src/explorer/pages.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { CompileError, compileSnapshotTree } from '../src/store/compile.ts';
import { coreOver, get } from './support/core.ts';
import { newestDates, newestSnapshots, type SnapshotFile, tempDir, treeOfNewest } from './support/history.ts';
import { serveSourcePages, startSourceServer, type SourceServer } from './support/source-server.ts';

const FAST = { timeoutMs: 400, retries: 2, retryDelayMs: 5 };
const PAGE = 'https://www.interest.co.nz/borrowing';

/** Name-cell links as the real page writes them (test/fixtures/real-pages/saving-call-account-2020-07-17.html). */
const RECORDED = {
  heartland:
    'https://www.heartland.co.nz/savings-and-deposits/savings-account?utm_source=interest_nz&utm_medium=logo&utm_campaign=Deposits-savings&utm_content=interest.nz-call-account-page&utm_term=logo',
  tsb: 'https://www.tsbbank.co.nz?utm_source=interest.co.nz&utm_medium=oncall_logo&utm_campaign=interest.co.nz',
  rabobank:
    'https://www.rabobank.co.nz/interest-rates/?utm_source=interest.co.nz&utm_medium=logo&utm_campaign=savingsaccount&utm_term=saving_call-account',
  forsythBarr: 'http://www.forbar.co.nz',
  anzDirectory: 'https://www.interest.co.nz/directory#anz',
  craigsDirectory: 'http://www.interest.co.nz/directory1.asp#craigs',
  firefightersDirectory: 'https://www.interest.co.nz/directory/',
};

describe('a website from a name cell’s link', () => {
  it('keeps a lender’s own address without its tracking parameters', () => {
    expect(websiteOf(RECORDED.heartland, PAGE)).toBe(
      'https://www.heartland.co.nz/savings-and-deposits/savings-account',
    );
    expect(websiteOf(RECORDED.tsb, PAGE)).toBe('https://www.tsbbank.co.nz/');
    expect(websiteOf(RECORDED.rabobank, PAGE)).toBe('https://www.rabobank.co.nz/interest-rates/');
    expect(websiteOf(RECORDED.forsythBarr, PAGE)).toBe('http://www.forbar.co.nz/');
    // Parameters that address a page stay; only tracking goes.
    expect(websiteOf('https://www.example.co.nz/loans?product=home&gclid=abc&fbclid=x', PAGE)).toBe(
      'https://www.example.co.nz/loans?product=home',
    );
  });

  it('finds none in a link to the source site’s own directory, a relative link, or what is not a web address', () => {
    for (const href of [RECORDED.anzDirectory, RECORDED.craigsDirectory, RECORDED.firefightersDirectory, '/lender/3'])
      expect(websiteOf(href, PAGE), href).toBeUndefined();
    for (const href of [
      'javascript:alert(1)',
      'mailto:loans@example.co.nz',
      'https://user:secret@example.co.nz/',
      'http://[::1',
      'https://10.0.0.1/',
    ])
      expect(websiteOf(href, PAGE), href).toBeUndefined();
    expect(websiteOf(`https://www.example.co.nz/${'a'.repeat(2_100)}`, PAGE)).toBeUndefined();
  });
});

describe('the collector records websites beside the snapshots, never in them', () => {
  let server: SourceServer;
  let newest: Record<DatasetSlug, SnapshotFile>;
  let snapshots: string;
  let status: FileStatusStore;
  const A = DATASETS[0];
  const NEWEST = newestDates();
  /** The first and second entity of A's newest snapshot: one links to its website, one to the directory. */
  const named = () => newest[A.slug].data.slice(0, 2) as { id: string; name: string }[];

  const run = (at: string) =>
    collect({
      baseUrl: server.url,
      snapshotsDir: snapshots,
      status,
      datasets: [A.slug],
      now: () => new Date(at),
      fetch: FAST,
    });
  const serve = (links: Record<string, string>) => serveSourcePages(server, (slug) => newest[slug].data, { links });
  const files = async () => (await readdir(join(snapshots, A.slug))).sort();
  const linksFile = async () => readFile(join(snapshots, A.slug, 'links.json'), 'utf8');

  beforeAll(async () => {
    server = await startSourceServer();
    newest = await newestSnapshots();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    snapshots = await treeOfNewest();
    status = new FileStatusStore(await tempDir('rates-status-'));
  });

  it('writes links.json with the website, tracking removed, and no snapshot when no rate moved', async () => {
    const [first, second] = named();
    serve({ [first!.name]: RECORDED.heartland, [second!.name]: RECORDED.anzDirectory });
    const [result] = await run('2026-11-28T03:00:00.000Z');
    expect(result!.outcome).toBe('unchanged');
    expect(result!.websites).toEqual([first!.id]);
    expect(await files()).toEqual([`${NEWEST[A.slug]}.json`, 'links.json']);
    expect(await linksFile()).toBe(
      `{\n  "websites": {\n    "${first!.id}": "https://www.heartland.co.nz/savings-and-deposits/savings-account"\n  }\n}\n`,
    );
  });

  it('a link that moves rewrites links.json alone; the same links again write nothing', async () => {
    const [first] = named();
    serve({ [first!.name]: RECORDED.heartland });
    await run('2026-11-28T03:00:00.000Z');
    const before = await readFile(join(snapshots, A.slug, `${NEWEST[A.slug]}.json`), 'utf8');

    // Another campaign of the same lender: only its tracking differs, so nothing is new.
    serve({ [first!.name]: RECORDED.heartland.replace('utm_campaign=Deposits-savings', 'utm_campaign=Spring') });
    const [same] = await run('2026-11-28T04:00:00.000Z');
    expect(same!.websites).toBeUndefined();

    serve({ [first!.name]: RECORDED.tsb });
    const [moved] = await run('2026-11-28T05:00:00.000Z');
    expect(moved!.outcome).toBe('unchanged');
    expect(moved!.websites).toEqual([first!.id]);
    expect(JSON.parse(await linksFile()).websites).toEqual({ [first!.id]: 'https://www.tsbbank.co.nz/' });
    expect(await files()).toEqual([`${NEWEST[A.slug]}.json`, 'links.json']);
    expect(await readFile(join(snapshots, A.slug, `${NEWEST[A.slug]}.json`), 'utf8')).toBe(before);

    // A page that no longer links the lender off the site keeps the website last recorded.
    serve({});
    const [unlinked] = await run('2026-11-28T06:00:00.000Z');
    expect(unlinked!.websites).toBeUndefined();
    expect(JSON.parse(await linksFile()).websites).toEqual({ [first!.id]: 'https://www.tsbbank.co.nz/' });
  });

  it('a snapshot written with a website holds no link; a refused page records none', async () => {
    const [first] = named();
    serve({ [first!.name]: RECORDED.rabobank });
    snapshots = await tempDir('rates-empty-');
    const [written] = await run('2026-11-28T03:00:00.000Z');
    expect(written!.outcome).toBe('written');
    const snapshot = await readFile(join(snapshots, A.slug, '2026-11-28.json'), 'utf8');
    expect(snapshot).not.toMatch(/rabobank\.co\.nz|https?:/);
    expect(JSON.parse(await linksFile()).websites).toEqual({
      [first!.id]: 'https://www.rabobank.co.nz/interest-rates/',
    });

    snapshots = await treeOfNewest();
    server.serve(A.sourcePath, { page: '<html><head><title>Just a moment...</title></head><body></body></html>' });
    const [refused] = await run('2026-11-28T04:00:00.000Z');
    expect(refused!.outcome).toBe('failed');
    expect(await files()).toEqual([`${NEWEST[A.slug]}.json`]);
  });

  it('a links.json that cannot be read is said, and the rates still stand', async () => {
    const [first] = named();
    await writeFile(join(snapshots, A.slug, 'links.json'), '{"websites": {"institution:x": "javascript:1"}}\n');
    serve({ [first!.name]: RECORDED.heartland });
    const [result] = await run('2026-11-28T03:00:00.000Z');
    expect(result!.outcome).toBe('unchanged');
    expect(result!.linksError).toMatch(/links\.json/);
    // The build refuses it too, naming the file, rather than serving a website it cannot trust.
    const error = await compileSnapshotTree(snapshots).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompileError);
    expect((error as Error).message).toMatch(new RegExp(`${A.slug}/links\\.json`));
  });

  it('the registry serves the website; no rate answer changes for it', async () => {
    const [first, second] = named();
    const answers = async () => {
      const core = await coreOver(snapshots);
      const registry = await get(core, '/api/v1/institutions');
      const list = await get(core, `/api/v1/${A.slug}`);
      return {
        registry: { etag: registry.headers.get('etag'), body: await registry.json() },
        list: { etag: list.headers.get('etag'), text: await list.text() },
      };
    };
    const before = await answers();
    serve({ [first!.name]: RECORDED.heartland });
    await run('2026-11-28T03:00:00.000Z');
    const after = await answers();

    const byId = (body: any) => new Map((body.data as any[]).map((i) => [i.id, i]));
    expect(byId(before.registry.body).get(first!.id).website).toBeNull();
    expect(byId(after.registry.body).get(first!.id).website).toBe(
      'https://www.heartland.co.nz/savings-and-deposits/savings-account',
    );
    expect(byId(after.registry.body).get(second!.id).website).toBeNull();
    expect(after.registry.etag).not.toBe(before.registry.etag);
    // The rate objects carry no link, and their answer is the same, ETag and all.
    expect(after.list.etag).toBe(before.list.etag);
    expect(after.list.text.replace(/"timestamp":"[^"]+"/, '')).toBe(
      before.list.text.replace(/"timestamp":"[^"]+"/, ''),
    );
    expect(after.list.text).not.toMatch(/heartland\.co\.nz/);
    // The lenders page's rows, made by the build from the same tree, say the same.
    const rows = lenderRows(datasetViews(await compileSnapshotTree(snapshots)));
    expect(rows.find((r) => r.id === first!.id)?.website).toBe(
      'https://www.heartland.co.nz/savings-and-deposits/savings-account',
    );
    expect(rows.filter((r) => r.website !== null)).toHaveLength(1);
  });

  it('a run that moved only websites says so in its commit subject', () => {
    const text = summaryMarkdown([], '2026-11-28', [{ dataset: A, ids: ['institution:heartland'] }]);
    expect(text.split('\n')[0]).toBe(`Lender websites 2026-11-28: ${A.label} (1); no rate moved`);
    expect(text).toContain(`- ${A.title}: institution:heartland`);
    expect(text).not.toMatch(/^Rates /);
  });
});
