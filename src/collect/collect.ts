/**
 * One collection run: for each dataset, fetch its page, parse, normalize, validate with the
 * served schema, guard, save by the snapshot rules, and record the status health reads.
 * A dataset that fails leaves its newest snapshot untouched; the others still proceed.
 */
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { DATASETS, type Dataset, type DatasetSlug, type Entity, type Snapshot } from '../datasets.ts';
import { normalizeDataset } from '../snapshots/normalize.ts';
import { linksPath, saveLinks } from '../snapshots/links.ts';
import { describeIssues } from '../snapshots/tree.ts';
import { EMPTY_STATUS, type StatusStore } from '../status/status-store.ts';
import { DEFAULT_FETCH, fetchPage, type FetchOptions } from './fetch-page.ts';
import { GUARD_LIMITS, rateValues, refusalReason, unreadableRefusal } from './guards.ts';
import { identify } from './identity.ts';
import { nameRefusal } from './names.ts';
import { PAGE_PARSERS } from './parsers/index.ts';
import { entityWebsites } from './links.ts';
import { PageRefusal } from './tables.ts';
import { describeChanges, type DatasetChanges } from './summary.ts';
import { saveIfChanged, snapshotAnchors, type WindowSnapshot, type WriteOutcome } from './write-rules.ts';
import { cleanText } from '../lib/clean-text.ts';

export interface CollectOptions {
  baseUrl: string;
  snapshotsDir: string;
  status: StatusStore;
  datasets?: readonly DatasetSlug[];
  now?: () => Date;
  fetch?: FetchOptions;
  /** Refuse a collection with fewer than this share of an anchor's institutions or rates (the newest snapshot, and the newest a day and a week old). */
  minRatio?: number;
  /** Refuse a rate more than this many percentage points from the newest snapshot, the newest at least 24 hours old or the newest at least seven days old; the fee and period limits follow in proportion. */
  maxRateMove?: number;
  log?: (line: string) => void;
}

export type CollectOutcome = WriteOutcome | 'failed';

export interface DatasetResult {
  dataset: Dataset;
  outcome: CollectOutcome;
  /** Why it failed or was refused. */
  reason?: string;
  /** The page was read but not trusted (a guard, the schema or the page reader said no), rather than not read at all. */
  refused?: boolean;
  /** The rule a refusal broke, as its reason names it (the run log counts refusals by it). */
  rule?: string;
  file?: string;
  institutions?: number;
  rates?: number;
  changes?: DatasetChanges;
  /** Non-empty cells the parser could not read (each a warning; past MAX_UNREADABLE_SHARE, a refusal). */
  unreadable?: string[];
  /** The entities whose website is new or moved, recorded in the links file (no snapshot is written for them). */
  websites?: string[];
  /** The links file could not be read or written (the snapshot outcome above still stands). */
  linksError?: string;
  /** The status store could not be written (the snapshot outcome above still stands). */
  statusError?: string;
  ms: number;
}

/** A refusal: its reason says `refused (<rule>): evidence`, or it is given the rule it broke. */
class Refused extends Error {
  constructor(
    message: string,
    readonly rule = /^refused \((.+?)\): /.exec(message)?.[1],
  ) {
    super(message);
  }
}

/** The ages of the anchors besides the newest snapshot: a day and a week (guards.ts). */
const DAY_MS = 24 * 3600_000;
const WEEK_MS = 7 * DAY_MS;

/** Unreadable cells printed per dataset; the rest are counted. */
const UNREADABLE_SHOWN = 10;

/** A page the fetch (a page cut short, a charset) or the reader refuses: a refusal naming its rule. */
function asRefused(error: unknown): never {
  if (error instanceof PageRefusal) throw new Refused(`refused (${error.rule}): ${error.evidence}`);
  throw error;
}

/** What `read` returns, a PageRefusal it throws made a refusal of the run. */
function asRefusal<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    return asRefused(error);
  }
}

/** The page read by its dataset's parser. */
const readPage = (dataset: Dataset, html: string) => asRefusal(() => PAGE_PARSERS[dataset.slug](html));

/** The page's offers under the ids their content gives them (identity.ts). */
const identifyOffers = (dataset: Dataset, listed: readonly Entity[], previous?: Snapshot) =>
  asRefusal(() => identify(dataset, listed, previous));

async function collectOne(
  dataset: Dataset,
  options: Required<Omit<CollectOptions, 'datasets'>>,
): Promise<DatasetResult> {
  const started = performance.now();
  const now = options.now();
  // Whatever a line quotes from the page, it reaches the Actions log clean and bounded.
  const log = (line: string) => options.log(cleanText(`${dataset.slug}: ${line}`));
  const result: DatasetResult = { dataset, outcome: 'failed', ms: 0 };
  /**
   * When the data the tree now holds as newest was collected: what a deployment of this tree
   * must serve. Usually the last change; after a rolled-back snapshot, the restored one's time,
   * so health's collected-against-deployed comparison follows the rollback.
   */
  let newestCollectedAt: string | null = null;
  try {
    const url = new URL(dataset.sourcePath, options.baseUrl).href;
    const html = await fetchPage(url, { ...options.fetch, onRetry: log }).catch(asRefused);
    const parsed = readPage(dataset, html);
    result.unreadable = parsed.cells.unreadable;
    for (const cell of parsed.cells.unreadable.slice(0, UNREADABLE_SHOWN)) log(`warning: unreadable cell ${cell}`);
    if (parsed.cells.unreadable.length > UNREADABLE_SHOWN)
      log(`warning: … and ${parsed.cells.unreadable.length - UNREADABLE_SHOWN} more unreadable cells`);
    const unreadable = unreadableRefusal(parsed.cells);
    if (unreadable) throw new Refused(unreadable);
    // Said as soon as the page is read, before any snapshot is: the datasets' lines keep the order their pages came in.
    result.institutions = new Set(parsed.data.map((e) => e.id)).size;
    result.rates = rateValues(parsed.data).length;
    log(
      `fetched ${(html.length / 1024).toFixed(0)} KiB, ${parsed.tableCount} table(s), ${result.institutions} ${dataset.entity.kind}s, ${result.rates} rates`,
    );

    let previous: Snapshot | undefined;
    let day: WindowSnapshot | undefined;
    let week: WindowSnapshot | undefined;
    try {
      ({
        newest: previous,
        windows: [day, week],
      } = await snapshotAnchors(options.snapshotsDir, dataset, now, [DAY_MS, WEEK_MS]));
    } catch (error) {
      // A snapshot we cannot read must not be silently replaced, nor a page judged without it: stop and say so.
      throw new Refused(
        `the newest snapshot is unreadable (${(error as Error).message})`,
        'the newest snapshot is unreadable',
      );
    }
    const data = normalizeDataset(dataset, identifyOffers(dataset, parsed.data, previous));
    const names = nameRefusal(dataset, data);
    if (names) throw new Refused(names);
    // The schema the build validates every snapshot with: what it would refuse is refused here.
    const candidate = { type: dataset.type, data, lastUpdated: now.toISOString() };
    const valid = dataset.schemas.snapshot.safeParse(candidate);
    if (!valid.success) {
      throw new Refused(
        `refused (does not fit the schema): ${describeIssues(valid.error.issues, candidate).join('; ')}`,
      );
    }
    const reason = refusalReason({
      tableCount: parsed.tableCount,
      data,
      listed: parsed.data,
      previous,
      day,
      week,
      minRatio: options.minRatio,
      maxRateMove: options.maxRateMove,
    });
    if (reason) throw new Refused(reason);

    const saved = await saveIfChanged(options.snapshotsDir, dataset, data, now, previous);
    result.outcome = saved.outcome;
    newestCollectedAt = saved.outcome === 'unchanged' ? (previous?.lastUpdated ?? null) : now.toISOString();
    if (saved.file) {
      result.file = relative(options.snapshotsDir, saved.file);
      result.changes = describeChanges(dataset, previous?.data, data);
    }
    try {
      // Beside the snapshot, never in it: a website that moved is not a rate that moved.
      const moved = await saveLinks(
        options.snapshotsDir,
        dataset,
        entityWebsites(parsed.links, parsed.data, data, url),
      );
      if (moved.length > 0) {
        result.websites = moved;
        log(
          `websites recorded in ${relative(options.snapshotsDir, linksPath(options.snapshotsDir, dataset))}: ${moved.join(', ')}`,
        );
      }
    } catch (error) {
      // The rates stand; the links file is said to be unwritable, loudly, and tried again next run.
      result.linksError = cleanText((error as Error).message);
      log(`warning: the websites were not recorded: ${result.linksError}`);
    }
  } catch (error) {
    result.outcome = 'failed';
    // The one place a reason is made: clean and bounded before stdout, the status store, the run log, /status, health or the failure issue.
    result.reason = cleanText((error as Error).message);
    if (error instanceof Refused) {
      result.refused = true;
      if (error.rule) result.rule = cleanText(error.rule);
    }
  }

  try {
    const status = (await options.status.read(dataset.slug)) ?? EMPTY_STATUS;
    const at = now.toISOString();
    await options.status.write(
      dataset.slug,
      result.outcome === 'failed'
        ? { ...status, lastError: result.reason ?? 'unknown error', lastErrorAt: at }
        : { ...status, lastChecked: at, lastChanged: newestCollectedAt },
    );
  } catch (error) {
    result.statusError = (error as Error).message;
  }
  result.ms = Math.round(performance.now() - started);
  return result;
}

/** Temporary files a killed run left behind (writes are temp file + rename), removed before a run. */
async function removeLeftovers(dir: string, dataset: Dataset): Promise<void> {
  const names = await readdir(join(dir, dataset.slug)).catch(() => [] as string[]);
  await Promise.all(
    names.filter((n) => n.endsWith('.tmp')).map((n) => rm(join(dir, dataset.slug, n), { force: true })),
  );
}

export async function collect(options: CollectOptions): Promise<DatasetResult[]> {
  const resolved = {
    now: () => new Date(),
    fetch: DEFAULT_FETCH,
    minRatio: GUARD_LIMITS.minRatio,
    maxRateMove: GUARD_LIMITS.maxRateMove,
    log: () => {},
    ...options,
  };
  const chosen = DATASETS.filter((d) => !options.datasets || options.datasets.includes(d.slug));
  await Promise.all(chosen.map((d) => removeLeftovers(options.snapshotsDir, d)));
  // Datasets are independent: fetch them side by side, report in table order.
  return Promise.all(chosen.map((dataset) => collectOne(dataset, resolved)));
}
