/**
 * `GET /api/v1/<dataset>/alerts?termInMonths=12&below=6` (loans and cards: `measure=`; a lender:
 * `institutionId` / `issuerId`): a JSON Feed 1.1 of the moments the best open rate of one measure
 * (the lowest of a rate paid, followed `below` a threshold; the highest of a rate earned, `above`
 * it: src/explorer/best.ts) crossed the threshold or moved past it (src/explorer/alerts.ts), newest first, each linking
 * the measure's comparison page. Worked out once per URL from the whole history and kept; its
 * ETag is the history's version and the URL's selection, like every data answer.
 */
import { generateAtomFeed, generateJsonFeed } from 'feedsmith';
import { z } from 'zod';
import { canonicalEntityId, type Dataset, type Entity, filtersOf } from '../datasets.ts';
import { datasetOperationId, entityIdParam, endpointsOf } from '../endpoints.ts';
import { changeKeys } from '../changes/schema.ts';
import { ATOM_TYPE, datasetPageUrl } from '../changes/urls.ts';
import { type AlertEvent, alertEvents, type LowestChange, lowestChanges, type Threshold } from '../explorer/alerts.ts';
import { EXPLORER, type ExplorerDefinition } from '../explorer/definitions.ts';
import { type BestRate, bestRateOf, bestRatesOf } from '../explorer/best.ts';
import { snapshotsOf, type SnapshotObjects } from '../explorer/history.ts';
import { comparisonUrl, lowestFeedUrl } from '../explorer/pages.ts';
import { ALERTS_FEED_FILE, ALERTS_SEGMENT, API_PREFIX, FEEDS_PREFIX } from '../paths.ts';
import { MeasureParam, RateParam } from '../schemas/params.ts';
import { TERMS_OF_USE } from '../schemas/common.ts';
import { nzTime } from '../lib/time-words.ts';
import { hubLinkHeader, jsonFeedHubs } from '../lib/websub.ts';
import type { Answer } from '../http/answer.ts';
import { cachedHeadAfterRead } from './bodies.ts';
import { withData, type RequestContext } from './context.ts';
import { ApiError } from './responses.ts';

const JSON_FEED_TYPE = 'application/feed+json; charset=utf-8';
/** The most items a feed holds, newest first. */
const FEED_ITEMS = 100;
/** The year in the tag URIs' authority (RFC 4151), as in the change feeds. */
const TAG_YEAR = '2024';

export interface AlertsEndpoint {
  kind: 'alerts';
  dataset: Dataset;
  path: string;
  query: z.ZodObject;
  ignoredQuery: readonly string[];
}

const definitionOf = (dataset: Dataset) => EXPLORER[dataset.slug] as ExplorerDefinition;
const measureKeys = (dataset: Dataset) => definitionOf(dataset).measures.map((m) => m.key);

const ENDPOINTS = new Map<string, AlertsEndpoint>();

/** What a threshold parameter does for a dataset: follow its best rate past it, or nothing, when its best is at the other end. */
function sideWords(dataset: Dataset, side: BestRate['side']): string {
  const rate = bestRatesOf(definitionOf(dataset)).find((r) => r.side === side);
  if (rate)
    return `Alert while the ${rate.word} open rate is ${side} this rate, in percent a year${bestRatesOf(definitionOf(dataset)).length > 1 ? ` (a measure whose best is the ${rate.word})` : ''}.`;
  const [other] = bestRatesOf(definitionOf(dataset));
  return `Not for ${dataset.label}: their best is the ${other!.word}, followed with \`${other!.side}\`; \`${side}\` is a 400.`;
}

export function alertsEndpointOf(dataset: Dataset): AlertsEndpoint {
  let endpoint = ENDPOINTS.get(dataset.slug);
  if (!endpoint) {
    const filters = Object.fromEntries(
      filtersOf(dataset, 'lowest').map((f) => [
        f.name,
        f.schema.describe(f.asMeasure?.alerts ?? f.description).optional(),
      ]),
    );
    endpoint = {
      kind: 'alerts',
      dataset,
      path: `${API_PREFIX}/${dataset.slug}/${ALERTS_SEGMENT}`,
      query: z.strictObject({
        ...filters,
        measure: MeasureParam.describe(
          `The measure, as GET ${endpointsOf(dataset).lowest.path} names it in \`measure\`: ${measureKeys(dataset).join(', ')}.`,
        ).optional(),
        below: RateParam.describe(sideWords(dataset, 'below')).optional(),
        above: RateParam.describe(sideWords(dataset, 'above')).optional(),
        [dataset.entity.param]: entityIdParam(dataset).optional(),
      }),
      ignoredQuery: [],
    };
    ENDPOINTS.set(dataset.slug, endpoint);
  }
  return endpoint;
}

/** The alerts feed's OpenAPI operationId (`getFooRatesAlerts`). */
export const alertsOperationId = (dataset: Dataset) => datasetOperationId(dataset, 'Alerts');

/** The selection of a measure as /lowest's query names it (`termInMonths=12`), else `measure=<key>`. */
const measureQuery = (dataset: Dataset, key: string) => {
  const definition = definitionOf(dataset);
  return definition.measureQuery?.(definition.measures.find((m) => m.key === key)!) ?? `measure=${key}`;
};

/**
 * The requests the OpenAPI document shows (answered by the real core at build time): the first
 * measure /lowest answers, below the whole percent above its rate now (so the feed has items), and
 * the 400s.
 */
export function alertsExampleRequests(
  dataset: Dataset,
  lowest: readonly { measure: string; rate: number }[],
): string[] {
  const { path } = alertsEndpointOf(dataset);
  const first = lowest.find((m) => definitionOf(dataset).compared.includes(m.measure)) ?? lowest[0];
  const measure = first ? measureQuery(dataset, first.measure) : `measure=${measureKeys(dataset)[0]}`;
  const rate = bestRateOf(definitionOf(dataset), first?.measure ?? measureKeys(dataset)[0]);
  // A threshold past the rate now on its best side, so that the feed has items.
  const past = first ? (rate.paid ? Math.floor(first.rate) + 1 : Math.max(0, Math.ceil(first.rate) - 1)) : 6;
  const wrong = rate.side === 'below' ? 'above' : 'below';
  return [
    ...(first ? [`${path}?${measure}&${rate.side}=${past}`] : []),
    `${path}?${measure}&${rate.side}=six`,
    `${path}?${rate.side}=6`,
    `${path}?${measure}&${wrong}=6`,
  ];
}

/** The first compared measure of a dataset as /lowest's query names it: what the docs' examples follow. */
export const exampleMeasureQuery = (dataset: Dataset) => {
  const definition = definitionOf(dataset);
  const term = filtersOf(dataset, 'lowest').find((f) => f.name === 'termInMonths');
  return term
    ? `termInMonths=${term.example}`
    : measureQuery(dataset, definition.compared[0] ?? definition.measures[0]!.key);
};

const invalid = (hint: string) => new ApiError('invalid_request', 'Invalid request parameters', hint);

/**
 * The threshold, on the side the measure's best rate is followed from (src/explorer/best.ts): `below`
 * for a rate paid, `above` for a rate earned. Read before the measure is checked, so the measure
 * named may be unknown: then the dataset's own best decides.
 */
function thresholdOf(dataset: Dataset, query: Record<string, string | undefined>): Threshold {
  const { below, above } = query;
  if (below !== undefined && above !== undefined) throw invalid('Give one threshold, below or above, not both.');
  const definition = definitionOf(dataset);
  const named = query.measure ?? (query.termInMonths === undefined ? undefined : String(Number(query.termInMonths)));
  const rate = bestRateOf(definition, named);
  const given = below !== undefined ? 'below' : above !== undefined ? 'above' : undefined;
  const value = below ?? above;
  if (given === undefined || value === undefined)
    throw invalid(`Give a threshold: ${rate.side}=<rate in percent>, such as 6 or 5.25.`);
  if (given !== rate.side)
    throw invalid(
      `${given} applies only to a rate ${given === 'below' ? 'paid' : 'earned'}; ${dataset.label} are rates ${rate.paid ? 'paid' : 'earned'}, ` +
        `where the best is the ${rate.word}: use ${rate.side}, such as ${rate.side}=6.`,
    );
  return { side: given, value: Number(value) };
}

/**
 * The measure a query names, as /lowest names it (`measure=12`, `measure=secured`), or a fixed term
 * by `termInMonths`; a 400 naming every measure when it names none or an unknown one. The alerts
 * feeds and the quote check (src/api/quote.ts) read it.
 */
export function measureOf(dataset: Dataset, query: Record<string, string | undefined>): string {
  const keys = measureKeys(dataset);
  const term = query.termInMonths === undefined ? undefined : String(Number(query.termInMonths));
  if (term !== undefined && query.measure !== undefined && term !== query.measure)
    throw invalid(`termInMonths ${term} and measure ${query.measure} name different measures: give one.`);
  const key = query.measure ?? term;
  if (key === undefined || !keys.includes(key))
    throw invalid(
      `${key === undefined ? 'Name a measure' : `${dataset.title} have no measure ${JSON.stringify(key)}`}: ` +
        `give measure= one of ${keys.join(', ')}` +
        `${filtersOf(dataset, 'lowest').some((f) => f.name === 'termInMonths') ? ' (a fixed term can also be termInMonths=12)' : ''}.`,
    );
  return key;
}

const percent = (rate: number) => `${rate} %`;

/** The feed's own address (JSON Feed, or Atom at /feeds), its parameters in one order whatever the request's. */
function alertsUrl(dataset: Dataset, measure: string, threshold: Threshold, id: string | undefined, atom: boolean) {
  const query = new URLSearchParams({ measure, [threshold.side]: String(threshold.value) });
  if (id !== undefined) query.set(dataset.entity.param, id);
  const path = atom ? `${FEEDS_PREFIX}/${dataset.slug}/${ALERTS_FEED_FILE}` : alertsEndpointOf(dataset).path;
  return `${path}?${query.toString().replaceAll('%3A', ':')}`;
}

/** The offers making a lowest, as the items name them: "<lender> (<product>), …". */
function whoOf(dataset: Dataset, lowest: LowestChange['to']) {
  const names = changeKeys(dataset);
  return lowest
    ? lowest.offers
        .map(
          (o: Record<string, unknown>) => `${String(o[names.entityName])} (${String(o[names.itemName] || 'unnamed')})`,
        )
        .join(', ')
    : '';
}

/** An item of a feed of the lowest rate: its title, the lowest now and before, the snapshot and the page. */
function changeItem(dataset: Dataset, id: string, title: string, url: string, change: LowestChange) {
  const { from, to } = change;
  const text = [
    `${title}.`,
    to ? `Now: ${percent(to.rate)} from ${whoOf(dataset, to)}.` : 'Now: no offer open to anyone.',
    from
      ? `Before: ${percent(from.rate)} from ${whoOf(dataset, from)}.`
      : change.first
        ? 'Before: not recorded (the first snapshot).'
        : 'Before: none.',
    `Snapshot collected ${nzTime(new Date(change.lastUpdated))}. Compare every lender: ${url}`,
  ].join('\n');
  return { id, url, title, content_text: text, date_published: new Date(change.lastUpdated) };
}

type FeedItem = ReturnType<typeof changeItem>;

function itemOf(
  dataset: Dataset,
  site: string,
  measure: string,
  threshold: Threshold,
  idBase: string,
  event: AlertEvent,
): FeedItem {
  const definition = definitionOf(dataset);
  const m = definition.measures.find((x) => x.key === measure)!;
  const noun = definition.valueNoun(m);
  const { Word } = bestRateOf(definition, measure);
  const line = `${threshold.side} ${percent(threshold.value)}`;
  const { from, to } = event;
  const title =
    event.kind === 'crossed-in'
      ? `${Word} ${noun} is ${line}: ${percent(to!.rate)}`
      : event.kind === 'crossed-out'
        ? `${Word} ${noun} is no longer ${line}: ${to ? percent(to.rate) : 'none offered'}`
        : `${Word} ${noun} moved ${to!.rate < from!.rate ? 'down' : 'up'} to ${percent(to!.rate)}, still ${line}`;
  const url = `${site}${definition.compared.includes(measure) ? comparisonUrl(definition, m, { type: 'all', restricted: false }) : datasetPageUrl(dataset)}`;
  return changeItem(dataset, `${idBase}/${event.date}`, title, url, event);
}

/**
 * An Atom feed of these items, newest first. `updated` is from the data, never the clock: the newest item's, else `latest`.
 * `hub`: the WebSub hub it names beside its own address (src/lib/websub.ts), none when unset.
 */
function atomOf(
  site: string,
  about: { id: string; title: string; description: string; page: string; self: string; json?: string; hub?: string },
  items: readonly FeedItem[],
  latest: string,
): string {
  return generateAtomFeed({
    id: about.id,
    title: { value: about.title, type: 'text' },
    subtitle: { value: about.description, type: 'text' },
    updated: items[0]?.date_published ?? new Date(latest),
    authors: [{ name: 'NZ Rates API', uri: `${site}/` }],
    links: [
      { href: about.page, rel: 'alternate', type: 'text/html' },
      { href: about.self, rel: 'self', type: 'application/atom+xml' },
      ...(about.hub ? [{ href: about.hub, rel: 'hub' }] : []),
      ...(about.json ? [{ href: about.json, rel: 'alternate', type: 'application/feed+json' }] : []),
    ],
    rights: { value: TERMS_OF_USE, type: 'text' },
    entries: items.map((item) => ({
      id: item.id,
      title: { value: item.title, type: 'text' },
      updated: item.date_published,
      links: [{ href: item.url, rel: 'alternate', type: 'text/html' }],
      content: { value: item.content_text, type: 'text' },
    })),
  });
}

/**
 * The static Atom feed of a compared measure (its comparison page's, written at build time from
 * the whole history): an entry for where the measure's lowest open rate stood in the first
 * snapshot and one each time it changed between two snapshots (src/explorer/alerts.ts
 * lowestChanges, the rate /lowest answers), newest first, so that even a feed with no change has
 * the rate now. An entry's id is the measure and the snapshot date, so a rebuild repeats none.
 * `hub`: the WebSub hub the feed names, none when unset.
 */
export function lowestChangesAtom(
  dataset: Dataset,
  snapshots: readonly { date: string; lastUpdated: string; data: readonly Entity[] }[],
  measure: string,
  site: string,
  hub?: string,
): string {
  const definition = definitionOf(dataset);
  const m = definition.measures.find((x) => x.key === measure)!;
  const noun = definition.valueNoun(m);
  const { word, Word } = bestRateOf(definition, measure);
  const page = `${site}${comparisonUrl(definition, m, { type: 'all', restricted: false })}`;
  const idBase = `tag:${new URL(site).hostname},${TAG_YEAR}:${dataset.slug}/lowest/${measure}`;
  const items = lowestChanges(dataset, snapshots, measure)
    .reverse()
    .slice(0, FEED_ITEMS)
    .map((change) => {
      const { from, to } = change;
      const title = !to
        ? `${Word} ${noun}: none offered`
        : change.first
          ? `${Word} ${noun} is ${percent(to.rate)} in the first snapshot`
          : !from
            ? `${Word} ${noun} is ${percent(to.rate)}`
            : `${Word} ${noun} moved ${to.rate < from.rate ? 'down' : 'up'} to ${percent(to.rate)}`;
      return changeItem(dataset, `${idBase}/${change.date}`, title, page, change);
    });
  const about = {
    id: idBase,
    title: `${Word} ${noun}`,
    description: `Each time the ${word} ${noun} open to anyone moves, with the lenders that offer it.`,
    page,
    self: `${site}${lowestFeedUrl(definition, m)}`,
    hub,
  };
  return atomOf(site, about, items, snapshots.at(-1)!.lastUpdated);
}

/** The snapshots of the whole history, oldest first, reading each year once. */
async function everySnapshot(dataset: Dataset, archive: Awaited<ReturnType<RequestContext['store']['history']>>) {
  const all: SnapshotObjects[] = [];
  for (let s = 0; s < archive.size; ) {
    const { part, local } = await archive.locate(s);
    all.push(...snapshotsOf(dataset, part.compiled).slice(local));
    s += part.size - local;
  }
  return all;
}

export async function getAlerts(
  endpoint: AlertsEndpoint,
  query: Record<string, string | undefined>,
  ctx: RequestContext,
  site: string,
  atom: boolean,
  hub?: string,
): Promise<Answer> {
  const { dataset } = endpoint;
  const threshold = thresholdOf(dataset, query);
  const measure = measureOf(dataset, query);
  const rawId = query[dataset.entity.param];
  const id = rawId === undefined ? undefined : canonicalEntityId(rawId, dataset.entity);
  const archive = withData(dataset, await ctx.store.history(dataset.slug));
  if (id !== undefined && !archive.dates.some((_, s) => archive.lists(s, id)))
    throw new ApiError(
      dataset.entity.notFound,
      `${dataset.entity.label} not found`,
      `No ${dataset.entity.kind} with that id was ever listed. ${dataset.entity.label} ids look like ${dataset.entity.prefix}:<slug>; ` +
        `GET ${endpointsOf(dataset).list.path} lists every ${dataset.entity.kind} with its id.`,
    );
  const selection = `${measure}/${threshold.side}=${threshold.value}${id === undefined ? '' : `/${id}`}`;
  const key = `alerts${atom ? '.atom' : ''}/${selection}`;
  const ready = await cachedHeadAfterRead(archive, key, async () => {
    const snapshots = await everySnapshot(dataset, archive);
    // The filters /lowest takes select measures (termInMonths keeps one term), which `measure` names
    // here already: the lowest of one measure is the same with them or without, so one lender alone is kept.
    const keep = (data: readonly Entity[]) => (id === undefined ? data : data.filter((e) => e.id.toLowerCase() === id));
    const events = alertEvents(dataset, snapshots, measure, threshold, keep).reverse().slice(0, FEED_ITEMS);
    const idBase = `tag:${new URL(site).hostname},${TAG_YEAR}:${dataset.slug}/alerts/${selection}`;
    const definition = definitionOf(dataset);
    const noun = definition.valueNoun(definition.measures.find((m) => m.key === measure)!);
    const { word, Word } = bestRateOf(definition, measure);
    const about = {
      title: `${Word} ${noun} ${threshold.side} ${percent(threshold.value)}`,
      page: `${site}${datasetPageUrl(dataset)}`,
      description: `Each time the ${word} ${noun} open to anyone crosses ${percent(threshold.value)}, either way, and each move while it is ${threshold.side} it.`,
      json: `${site}${alertsUrl(dataset, measure, threshold, id, false)}`,
      atom: `${site}${alertsUrl(dataset, measure, threshold, id, true)}`,
    };
    const items = events.map((event) => itemOf(dataset, site, measure, threshold, idBase, event));
    if (atom)
      return atomOf(
        site,
        {
          id: idBase,
          title: about.title,
          description: about.description,
          page: about.page,
          self: about.atom,
          json: about.json,
          hub,
        },
        items,
        archive.lastUpdated(archive.latest),
      );
    const feed = generateJsonFeed({
      title: about.title,
      home_page_url: about.page,
      feed_url: about.json,
      description: `${about.description} ${TERMS_OF_USE}`,
      ...(hub ? { hubs: jsonFeedHubs(hub) } : {}),
      authors: [{ name: 'NZ Rates API', url: `${site}/` }],
      items,
    }) as { items?: unknown[] };
    // JSON Feed 1.1 requires `items`, an empty array for a feed with none; feedsmith leaves an empty one out.
    return JSON.stringify({ ...feed, items: feed.items ?? [] });
  });
  const type = atom ? ATOM_TYPE : JSON_FEED_TYPE;
  const headers: Record<string, string> = { 'content-type': type, etag: ready.etag };
  // WebSub discovery from the answer alone: the hub, and the feed's own address (the topic a subscriber names).
  if (hub) headers.link = hubLinkHeader(hub, `${site}${alertsUrl(dataset, measure, threshold, id, atom)}`);
  return { status: 200, headers, body: ready.head, cache: 'data' };
}
