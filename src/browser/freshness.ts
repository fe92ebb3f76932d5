/**
 * The rates pages are built once and served until the next change: the page says at build time
 * when each dataset last changed (New Zealand time), and this adds what no build can know. Beside
 * each date, how old the rates are in words ("20 months old", from the clock of health, else the
 * browser's), when a day or more. Then, from the same origin's health (GET /api/v1/health,
 * /docs/deploying), when each dataset was last checked: "today" only of data checked within
 * health's freshness window (not `stale`). Without JavaScript the built sentence stays, with no
 * age rather than a wrong one; when health cannot be read, the date and its age.
 *
 * On the home page it says "every hour" of the collection only where health says a collector
 * runs here and has checked every dataset within the window; the built sentence claims no cadence.
 */
import { STALE_AFTER } from '../lib/stale-after.ts';
import { age, elapsed, nzTime, parseHealthTime, timeAgo } from '../lib/time-words.ts';

interface DatasetHealth {
  lastUpdated: string | null;
  lastChecked: string | null;
  stale: boolean | null;
  lastChanged: string | null;
}
interface Health {
  collection?: { status?: string };
  datasets?: Record<string, DatasetHealth>;
  timestamp?: string;
}

function element(tag: string, text: string, attributes: Record<string, string> = {}): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

const time = (date: Date) => element('time', nzTime(date), { datetime: date.toISOString() });

interface Verdict {
  state: 'fresh' | 'stale' | 'uncollected' | 'unknown';
  /** What health says of the dataset, as words and times, starting with the state in <strong>. */
  parts: (Node | string)[];
}

function verdict(health: DatasetHealth, collection: string | undefined, now: Date): Verdict {
  if (health.lastChecked === null) {
    return collection === 'unavailable'
      ? {
          state: 'unknown',
          parts: [element('strong', 'freshness unknown'), ' (the collection status could not be read)'],
        }
      : { state: 'uncollected', parts: [element('strong', 'not being collected here')] };
  }
  const checked = parseHealthTime(health.lastChecked);
  return health.stale
    ? {
        state: 'stale',
        parts: [
          element('strong', 'stale'),
          ' since ',
          time(checked),
          ` (not checked for ${elapsed(checked, now) ?? `more than ${STALE_AFTER.words}`})`,
        ],
      }
    : { state: 'fresh', parts: [element('strong', 'up to date today'), `: checked ${timeAgo(checked, now)}`] };
}

/** The words' first letter in capitals, for a verdict that opens a sentence. */
function capitalised(parts: (Node | string)[]): (Node | string)[] {
  const first = parts[0];
  if (first instanceof HTMLElement && first.textContent)
    first.textContent = first.textContent[0]!.toUpperCase() + first.textContent.slice(1);
  return parts;
}

/** Health's note when a newer change is collected than the one this deployment (and page) shows. */
function pending(health: DatasetHealth): (Node | string)[] {
  if (
    !health.lastChanged ||
    !health.lastUpdated ||
    parseHealthTime(health.lastChanged) <= parseHealthTime(health.lastUpdated)
  )
    return [];
  return [' (a newer change, collected ', time(parseHealthTime(health.lastChanged)), ', is not shown yet)'];
}

/** Each dataset the page dates: its item, and the built <time> of its last change. */
interface Dated {
  item: HTMLElement;
  changed: HTMLTimeElement;
}

/**
 * One dataset per item: its verdict, then when it last changed (the built <time>, kept). Where every
 * dataset of a list has the same verdict (one collector checks them all), it is said once, before
 * the list, and each item keeps its own date.
 */
function describe(root: HTMLElement, dated: Dated[], health: Health, now: Date): void {
  const items = dated.flatMap(({ item, changed }) => {
    const record = health.datasets?.[item.dataset.dataset!];
    return record ? [{ item, record, changed, verdict: verdict(record, health.collection?.status, now) }] : [];
  });
  const words = (v: Verdict) =>
    `${v.state}:${v.parts.map((p) => (typeof p === 'string' ? p : p.textContent)).join('')}`;
  const shared = items.length > 1 && items.every((i) => words(i.verdict) === words(items[0]!.verdict));
  if (shared) {
    const lead = element('p', '', { class: 'freshness-lead', 'data-state': items[0]!.verdict.state });
    lead.append(
      ...capitalised(items[0]!.verdict.parts),
      items[0]!.verdict.state === 'uncollected' ? ': each dataset is as it last changed.' : '.',
    );
    root.before(lead);
  }
  for (const { item, record, changed, verdict: v } of items) {
    const name = item.dataset.name;
    const said = shared
      ? [' last changed ', changed]
      : [...(name ? [': ', ...v.parts] : capitalised(v.parts)), ' · last changed ', changed];
    item.replaceChildren(...(name ? [element('span', name, { class: 'name' })] : []), ...said, ...pending(record));
    item.dataset.state = v.state;
  }
}

/** Beside each date of a last change, how old the rates are at `now` ("20 months old"), when a day or more. */
function addAges(dated: Dated[], now: Date): void {
  for (const { changed } of dated) {
    const old = age(new Date(changed.dateTime), now);
    if (old) changed.after(element('span', ` (${old})`, { class: 'age' }));
  }
}

async function readHealth(url: string): Promise<Health | undefined> {
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
    return (await response.json()) as Health;
  } catch {
    return undefined; // offline or no health here: the built sentence stands
  }
}

/** Health's clock where there is one (the reader's may be wrong), else the reader's. */
const clock = (health: Health | undefined) => new Date(Date.parse(health?.timestamp ?? '') || Date.now());

async function fill(root: HTMLElement): Promise<void> {
  const dated = [...root.querySelectorAll<HTMLElement>('[data-dataset]')].flatMap((item) => {
    const changed = item.querySelector('time');
    return changed ? [{ item, changed }] : [];
  });
  const health = await readHealth(root.dataset.health!);
  const now = clock(health);
  if (health) describe(root, dated, health, now);
  addAges(dated, now);
  if (health) root.dataset.filled = '';
}

/**
 * The home page's cadence: "every hour (last checked 12 minutes ago)" where a collector reports
 * here and every dataset was checked within health's freshness window; nothing otherwise.
 */
async function cadence(root: HTMLElement): Promise<void> {
  const health = await readHealth(root.dataset.health!);
  if (!health) return;
  const records = Object.values(health.datasets ?? {});
  const checked = records.map((r) => (r.lastChecked === null ? undefined : parseHealthTime(r.lastChecked)));
  const running =
    health.collection?.status === 'ok' &&
    records.length > 0 &&
    records.every((r) => r.stale === false) &&
    checked.every((c) => c !== undefined);
  if (running) {
    const oldest = new Date(Math.min(...checked.map((c) => c!.getTime())));
    root.textContent = ` every hour (last checked ${timeAgo(oldest, clock(health))})`;
  }
  root.dataset.state = running ? 'fresh' : 'not-running';
  root.dataset.filled = '';
}

const root = document.querySelector<HTMLElement>('[data-health]');
if (root) void (root.hasAttribute('data-cadence') ? cadence(root) : fill(root));
