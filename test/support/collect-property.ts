/**
 * The property every generated page must hold: served over a real socket to collect(), against a
 * fresh copy of the newest snapshot tree, the collector either refuses, leaving the dataset's
 * snapshots byte for byte as they were, or writes exactly what the page says (page-truth.ts):
 * every offer under its lender, item and measure, nothing missing and nothing more, every offer the
 * newest snapshot already held under its old id, and a snapshot tree the site builds from. A page
 * that must be refused is refused; a page that says what the newest snapshot says is collected.
 *
 * Used by test/collect-property.test.ts (fixed seeds, a budget) and scripts/fuzz-collect.ts (as
 * long as asked). Nothing here reads vitest's context: the test history's folder and dates are
 * passed in.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect } from '../../src/collect/collect.ts';
import { reservedSlugProblems } from '../../src/changes/endpoint.ts';
import { DATASETS, type Dataset, type DatasetSlug, type Entity } from '../../src/datasets.ts';
import { comparisonPaths, datasetViews, entityMeasurePaths, entityUrl } from '../../src/explorer/pages.ts';
import { serializeSnapshot } from '../../src/snapshots/tree.ts';
import { FileStatusStore } from '../../src/status/status-store.ts';
import { compileSnapshotTree } from '../../src/store/compile.ts';
import fc from 'fast-check';
import { applyMutations, type MutationSpec, type PageSpec, pageSpecs } from './page-grammar.ts';
import { basePage, type Delivered, deliver, layoutOfDataset, type PageModel } from './page-model.ts';
import { offerKey, offersOfSnapshot, type Truth, truthOf } from './page-truth.ts';

/** A local HTTP server (a raw socket, so a body can come in any charset, cut, with or without its length). */
export interface PageServer {
  url: string;
  serve(path: string, page: Delivered): void;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const routes = new Map<string, Delivered>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk) => {
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const page = routes.get(new URL(head.split(' ')[1] ?? '/', 'http://x').pathname);
      if (!page) return void socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      const length = { length: page.body.length, close: undefined, promised: page.promised }[page.framing];
      const lengthLine = length === undefined ? '' : `Content-Length: ${length}\r\n`;
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: ${page.contentType}\r\n${lengthLine}Connection: close\r\n\r\n`);
      socket.write(page.body);
      // A promise of more than came: the connection drops; otherwise the body ends where the connection does.
      if (page.framing === 'promised') setTimeout(() => socket.destroy(), 20);
      else socket.end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    serve: (path, page) => routes.set(path, page),
    close: () =>
      new Promise((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

interface SnapshotData {
  type: string;
  data: Entity[];
  lastUpdated: string;
}

/** What the property runs in: the test history, each dataset's newest snapshot, a page server and a status store. */
export interface World {
  historyDir: string;
  newestDates: Record<DatasetSlug, string>;
  newest: Record<DatasetSlug, SnapshotData>;
  server: PageServer;
  status: FileStatusStore;
  scratch: string;
}

export async function openWorld(historyDir: string, newestDates: Record<DatasetSlug, string>): Promise<World> {
  const newest = {} as Record<DatasetSlug, SnapshotData>;
  for (const [slug, date] of Object.entries(newestDates) as [DatasetSlug, string][])
    newest[slug] = JSON.parse(await readFile(join(historyDir, slug, `${date}.json`), 'utf8'));
  const scratch = await mkdtemp(join(tmpdir(), 'rates-property-'));
  return {
    historyDir,
    newestDates,
    newest,
    server: await startPageServer(),
    status: new FileStatusStore(join(scratch, 'status')),
    scratch,
  };
}

export async function closeWorld(world: World): Promise<void> {
  await world.server.close();
  await rm(world.scratch, { recursive: true, force: true });
}

/** The dataset of the same layout whose page must never pass for this one's, if any. */
const neighbourOf = (dataset: Dataset) =>
  DATASETS.find((d) => d !== dataset && layoutOfDataset(d) === layoutOfDataset(dataset));

/** The snapshot a page is checked against: the newest, or the lenders of it a shrunk page keeps. */
function baselineOf(world: World, dataset: Dataset, lenders: readonly number[]): SnapshotData {
  const newest = world.newest[dataset.slug];
  if (lenders.length === newest.data.length) return newest;
  return { ...newest, data: lenders.map((i) => newest.data[i]!) };
}

const bases = new Map<string, PageModel>();
/** The page a spec makes: the real-style page of its lenders, mutated in order, with the names of the mutations that applied. */
export function pageOf(world: World, dataset: Dataset, spec: PageSpec): { page: PageModel; applied: string[] } {
  const key = `${dataset.slug}:${spec.lenders.join(',')}`;
  let base = bases.get(key);
  if (!base) {
    const neighbour = neighbourOf(dataset);
    bases.set(
      key,
      (base = basePage(
        dataset,
        baselineOf(world, dataset, spec.lenders).data,
        neighbour && { dataset: neighbour, data: world.newest[neighbour.slug].data },
      )),
    );
  }
  const page = structuredClone(base);
  return { page, applied: applyMutations(page, spec.mutations) };
}

/** A new snapshot tree holding each dataset's newest snapshot, the checked dataset's as its baseline. */
async function freshTree(world: World, dataset: Dataset, baseline: SnapshotData): Promise<string> {
  const dir = await mkdtemp(join(world.scratch, 'tree-'));
  for (const [slug, date] of Object.entries(world.newestDates)) {
    await mkdir(join(dir, slug), { recursive: true });
    await copyFile(join(world.historyDir, slug, `${date}.json`), join(dir, slug, `${date}.json`));
  }
  if (baseline !== world.newest[dataset.slug]) {
    const file = join(dir, dataset.slug, `${world.newestDates[dataset.slug]}.json`);
    await writeFile(file, serializeSnapshot(dataset, baseline as Parameters<typeof serializeSnapshot>[1]));
  }
  return dir;
}

/** A dataset's folder in a tree: each file's name and text. */
async function folderOf(tree: string, dataset: Dataset): Promise<string> {
  const dir = join(tree, dataset.slug);
  const names = (await readdir(dir)).sort();
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
  return JSON.stringify(names.map((n, i) => [n, texts[i]]));
}

/**
 * What the site's build would fail on for a tree: the compiled store, the reserved slugs, the
 * explorer's views (the rates pages' routes) and every route of the rates pages once.
 */
export async function buildProblem(tree: string): Promise<string | undefined> {
  try {
    const store = await compileSnapshotTree(tree);
    const reserved = reservedSlugProblems(store);
    if (reserved.length > 0) return reserved.map((r) => r.problem).join('; ');
    const routes = new Map<string, string>();
    const route = (path: string, what: string) => {
      const other = routes.get(path);
      if (other) throw new Error(`${path} is both ${other} and ${what}`);
      routes.set(path, what);
    };
    for (const view of datasetViews(store)) {
      for (const entity of view.latest.data) route(entityUrl(view.definition, entity.id), `${entity.id}'s page`);
      for (const { entity, measure } of entityMeasurePaths(view))
        route(`${entityUrl(view.definition, entity.id)}/${measure.slug}`, `${entity.id}'s ${measure.key} page`);
      for (const { measure, rest } of comparisonPaths(view))
        route(`${view.url}/${measure.slug}${rest ? `/${rest}` : ''}`, `the ${measure.key} comparison`);
    }
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** What the written data gets wrong against the truth, and the old ids it lost. */
function offerProblems(
  dataset: Dataset,
  truth: Truth,
  written: readonly Entity[],
  baseline: readonly Entity[],
): string[] {
  const layout = layoutOfDataset(dataset);
  const said = new Map(truth.offers.map((o) => [offerKey(o), o.value]));
  const held = offersOfSnapshot(layout, written);
  const got = new Map<string, string[]>();
  for (const offer of held) got.set(offerKey(offer), [...(got.get(offerKey(offer)) ?? []), offer.value]);
  const problems: string[] = [];
  for (const [key, value] of said) {
    const values = got.get(key);
    if (!values) problems.push(`missing: ${key} = ${value}`);
    else if (values.length > 1 || values[0] !== value)
      problems.push(`${key}: the page says ${value}, written ${values.join(' and ')}`);
  }
  for (const [key, values] of got)
    if (!said.has(key)) problems.push(`not on the page: ${key} = ${values.join(' and ')}`);
  const oldIds = new Map(offersOfSnapshot(layout, baseline).map((o) => [`${offerKey(o)} = ${o.value}`, o.id]));
  for (const offer of held) {
    const old = oldIds.get(`${offerKey(offer)} = ${offer.value}`);
    if (old && old !== offer.id)
      problems.push(`unchanged, but under a new id: ${offerKey(offer)}: ${old} became ${offer.id}`);
  }
  const lenderIds = new Map(baseline.map((e) => [e.name, e.id]));
  for (const entity of written) {
    const old = lenderIds.get(entity.name);
    if (old && old !== entity.id) problems.push(`lender "${entity.name}" was ${old}, now ${entity.id}`);
  }
  return problems;
}

export interface Checked {
  dataset: Dataset;
  spec: PageSpec;
  /** The mutations that applied, in order. */
  applied: string[];
  truth: Truth;
  outcome: 'refused' | 'failed' | 'unchanged' | 'written';
  reason?: string;
  /** What the collector got wrong; empty when the property holds. */
  wrong: string[];
}

/** The newest snapshot's date plus a day, at 03:00 UTC: the run the page is collected in. */
const runAt = (date: string) => new Date(Date.parse(`${date}T03:00:00.000Z`) + 86_400_000);

/** Serve one generated page, collect it, and judge the collector by the property. */
export async function checkPage(world: World, dataset: Dataset, spec: PageSpec): Promise<Checked> {
  const { page, applied } = pageOf(world, dataset, spec);
  const truth = truthOf(page);
  const baseline = baselineOf(world, dataset, spec.lenders);
  const tree = await freshTree(world, dataset, baseline);
  try {
    const before = await folderOf(tree, dataset);
    world.server.serve(dataset.sourcePath, deliver(page));
    const [result] = await collect({
      baseUrl: world.server.url,
      snapshotsDir: tree,
      status: world.status,
      datasets: [dataset.slug],
      now: () => runAt(world.newestDates[dataset.slug]),
      fetch: { timeoutMs: 20_000, retries: 0, retryDelayMs: 1 },
    });
    const { outcome, reason, refused, file } = result!;
    const wrong: string[] = [];
    const judged = { dataset, spec, applied, truth, reason, wrong };
    if (outcome === 'failed') {
      if ((await folderOf(tree, dataset)) !== before) wrong.push('the refusal changed the snapshots');
      if (!refused && !truth.fetchMayFail) wrong.push(`it failed without a refusal: ${reason}`);
      if (truth.verdict === 'accept')
        wrong.push(`the page says what the newest snapshot says, yet it was refused: ${reason}`);
      return { ...judged, outcome: refused ? 'refused' : 'failed' };
    }
    if (truth.verdict === 'refuse') {
      wrong.push(`it must be refused (${truth.why.slice(0, 3).join('; ')}), but was ${outcome}`);
      return { ...judged, outcome: outcome === 'unchanged' ? 'unchanged' : 'written' };
    }
    const data: Entity[] =
      outcome === 'unchanged' ? baseline.data : JSON.parse(await readFile(join(tree, file!), 'utf8')).data;
    wrong.push(...offerProblems(dataset, truth, data, baseline.data));
    const build = await buildProblem(tree);
    if (build) wrong.push(`the site would not build: ${build}`);
    return { ...judged, outcome: outcome === 'unchanged' ? 'unchanged' : 'written' };
  } finally {
    await rm(tree, { recursive: true, force: true });
  }
}

/** A failure in words: the page (its lenders and mutations), what it says, what the collector did, what is wrong. */
export function explain(checked: Checked, shown = 8): string {
  const { dataset, spec, applied, truth, outcome, reason, wrong } = checked;
  const more = (list: readonly string[]) =>
    list.slice(0, shown).concat(list.length > shown ? [`… ${list.length - shown} more`] : []);
  return [
    `${dataset.slug}: a page of ${spec.lenders.length} lender(s), mutated by ${applied.length ? applied.map((a) => `"${a}"`).join(', then ') : 'nothing that applied'}`,
    `  the page: ${truth.verdict === 'refuse' ? `must be refused: ${more(truth.why).join('; ')}` : truth.verdict === 'accept' ? 'says what the newest snapshot says' : `says ${truth.offers.length} offers`}`,
    `  the collector: ${outcome}${reason ? ` (${reason})` : ''}`,
    ...more(wrong).map((w) => `  wrong: ${w}`),
  ].join('\n');
}

/** A kept failure (test/fixtures/collect-regressions/*.json): the page's recipe, and a line saying what made it. */
export interface Regression {
  found: string;
  dataset: DatasetSlug;
  /** The ids of the newest snapshot's lenders the page and its baseline keep (all when absent). */
  lenders?: string[];
  mutations: MutationSpec[];
  /** What the collector got wrong when it was found. */
  wrong: string[];
}

export function regressionOf(world: World, checked: Checked, found: string): Regression {
  const { dataset, spec, wrong } = checked;
  const data = world.newest[dataset.slug].data;
  const all = spec.lenders.length === data.length;
  return {
    found,
    dataset: dataset.slug,
    ...(all ? {} : { lenders: spec.lenders.map((i) => data[i]!.id) }),
    mutations: spec.mutations,
    wrong,
  };
}

/** A kept failure's spec, against this world's newest snapshot. */
export function specOf(world: World, regression: Regression): PageSpec {
  const data = world.newest[regression.dataset].data;
  const lenders = regression.lenders
    ? regression.lenders.map((id) => {
        const i = data.findIndex((e) => e.id === id);
        if (i < 0) throw new Error(`${regression.dataset}: the newest snapshot has no ${id}`);
        return i;
      })
    : data.map((_, i) => i);
  return { lenders, mutations: regression.mutations };
}

/**
 * What a run of the property saw: pages generated and how each ended, and how often each mutation
 * applied. Pages fast-check tries while shrinking a failure are not counted: after a failure,
 * nothing is, until `resume`.
 */
export class Tally {
  pages = 0;
  refused = 0;
  failed = 0;
  unchanged = 0;
  written = 0;
  /** Pages the collector got wrong, by how it ended. */
  wrong = { written: 0, refused: 0 };
  readonly mutations = new Map<string, number>();
  private shrinking = false;

  add(checked: Checked): void {
    if (this.shrinking) return;
    this.pages++;
    this[checked.outcome]++;
    for (const name of checked.applied) this.mutations.set(name, (this.mutations.get(name) ?? 0) + 1);
    if (checked.wrong.length === 0) return;
    this.wrong[checked.outcome === 'refused' || checked.outcome === 'failed' ? 'refused' : 'written']++;
    this.shrinking = true;
  }

  resume(): void {
    this.shrinking = false;
  }

  get summary(): string {
    return `${this.pages} pages: ${this.refused} refused, ${this.failed} failed to fetch, ${this.written} written, ${this.unchanged} unchanged; wrong: ${this.wrong.written} written wrong, ${this.wrong.refused} refused or failed wrongly`;
  }
}

/** The property over a dataset's generated pages (only benign ones when asked): a page it gets wrong throws, explained. */
export function collectProperty(world: World, dataset: Dataset, { benign = false, tally = new Tally() } = {}) {
  const lenders = world.newest[dataset.slug].data.length;
  return fc.asyncProperty(pageSpecs(layoutOfDataset(dataset), lenders, { benign }), async (spec) => {
    const checked = await checkPage(world, dataset, spec);
    tally.add(checked);
    if (checked.wrong.length > 0) throw new Error(explain(checked));
  });
}
