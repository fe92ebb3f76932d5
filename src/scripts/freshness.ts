/**
 * The rates pages are built once and served until the next change, while the collector checks the
 * source every hour: the page says at build time when each dataset last changed, and this fills in
 * when it was last checked, from the same origin's health (GET /api/v1/health, /docs/deploying).
 * "Today" is said only of data checked within health's freshness window (not `stale`). Without
 * JavaScript, or when health cannot be read, the built sentence stays.
 */
import { parseHealthTime, timeAgo } from '../lib/time-words.ts';

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

const dateTime = new Intl.DateTimeFormat('en-NZ', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'Pacific/Auckland',
});

function element(tag: string, text: string, attributes: Record<string, string> = {}): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

const time = (date: Date) => element('time', dateTime.format(date), { datetime: date.toISOString() });

interface Verdict {
  state: 'fresh' | 'stale' | 'uncollected' | 'unknown';
  /** What health says of the dataset, as words and times, starting with the state in <strong>. */
  parts: (Node | string)[];
}

function verdict(health: DatasetHealth, collection: string | undefined, now: number): Verdict {
  if (health.lastChecked === null) {
    return collection === 'unavailable'
      ? {
          state: 'unknown',
          parts: [element('strong', 'freshness unknown'), ' (the collection status could not be read)'],
        }
      : { state: 'uncollected', parts: [element('strong', 'not being collected here')] };
  }
  const checked = parseHealthTime(health.lastChecked);
  const since = timeAgo(now - checked.getTime());
  return health.stale
    ? {
        state: 'stale',
        parts: [
          element('strong', 'stale'),
          ' since ',
          time(checked),
          ` (not checked for ${since.replace(' ago', '')})`,
        ],
      }
    : { state: 'fresh', parts: [element('strong', 'up to date today'), `: checked ${since}`] };
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

/**
 * One dataset per item: its verdict, then when it last changed (the built <time>, kept). Where every
 * dataset of a list has the same verdict (one collector checks them all), it is said once, before
 * the list, and each item keeps its own date.
 */
function describe(root: HTMLElement, health: Health, now: number): void {
  const items = [...root.querySelectorAll<HTMLElement>('[data-dataset]')].flatMap((item) => {
    const record = health.datasets?.[item.dataset.dataset!];
    const changed = item.querySelector('time');
    return record && changed
      ? [{ item, record, changed, verdict: verdict(record, health.collection?.status, now) }]
      : [];
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

async function fill(root: HTMLElement): Promise<void> {
  let health: Health;
  try {
    const response = await fetch(root.dataset.health!, { headers: { accept: 'application/json' }, cache: 'no-store' });
    health = (await response.json()) as Health;
  } catch {
    return; // offline or no health here: the built sentence stands
  }
  describe(root, health, Date.parse(health.timestamp ?? '') || Date.now());
  root.dataset.filled = '';
}

const root = document.querySelector<HTMLElement>('[data-health]');
if (root) void fill(root);
