/**
 * WEBSUB_HUB_URL (src/lib/websub.ts): set, every feed names the hub — an Atom `rel="hub"` link
 * beside its `rel="self"`, JSON Feed's `hubs` — and its answer a `Link` header naming the hub and
 * the feed, on a real socket: the alert feeds in the API's answer, the static feed files under
 * `npm start` (src/server/page-requests.ts) and on Vercel (the route scripts/build-vercel-api.ts
 * adds, served as Vercel serves a Build Output folder). Unset, every feed and header is as it was:
 * the only difference a hub makes is its link. A value that is not an http(s) URL stops the build
 * in one line. (The hub being told of a change: test/websub-chain.test.ts.)
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAtomFeed } from 'feedsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedTexts } from '../scripts/hourly/feeds.ts';
import { feedHubRoute } from '../src/build/on-vercel.ts';
import { ALL_FEED_URL, csvUrl, datasetFeedUrl } from '../src/changes/urls.ts';
import { changelogFeed, CHANGELOG_FEED } from '../src/docs/changelog.ts';
import { DATASETS } from '../src/datasets.ts';
import { hubFrom } from '../src/lib/websub.ts';
import { AlertsFeed } from '../src/schemas/alerts.ts';
import { DEFAULT_LIMITS } from '../src/server/limits.ts';
import { createNodeServer } from '../src/server/node-server.ts';
import { ROOT, SITE } from './support/constants.ts';
import { coreOver, get, getJson, rawServiceOver } from './support/core.ts';
import { historyDir, tempDir } from './support/history.ts';
import { type Listening, serveService } from './support/http.ts';
import { serveVercelOutput } from './support/vercel-output.ts';

const HUB = 'https://hub.example/websub';
const HUB_LINK = `<link href="${HUB}" rel="hub"/>`;
const linkHeader = (self: string) => `<${HUB}>; rel="hub", <${self}>; rel="self"`;
/** The dataset with fixed mortgage terms, whose alert feed takes termInMonths (as test/alerts-feed.test.ts). */
const termed = DATASETS.find((d) => d.filters.some((f) => f.name === 'termInMonths'))!;
const ALERTS = `/api/v1/${termed.slug}/alerts?termInMonths=12&below=6.7`;
const ALERTS_ATOM = `/feeds/${termed.slug}/alerts.atom?termInMonths=12&below=6.7`;

describe('WEBSUB_HUB_URL', () => {
  it('is an http or https URL, or unset; anything else is refused in one line that does not repeat it', () => {
    expect(hubFrom({})).toBeUndefined();
    expect(hubFrom({ WEBSUB_HUB_URL: '' })).toBeUndefined();
    expect(hubFrom({ WEBSUB_HUB_URL: '  ' })).toBeUndefined();
    expect(hubFrom({ WEBSUB_HUB_URL: 'https://websubhub.com/hub' })).toBe('https://websubhub.com/hub');
    expect(hubFrom({ WEBSUB_HUB_URL: 'http://127.0.0.1:9000/hub' })).toBe('http://127.0.0.1:9000/hub');
    // As the URL parser writes it: nothing a header or an attribute could not carry.
    expect(hubFrom({ WEBSUB_HUB_URL: ' https://Hub.example/a b\n?x=<1> ' })).toBe(
      'https://hub.example/a%20b?x=%3C1%3E',
    );
    for (const bad of ['ftp://hub.example/', 'hub.example/hub', 'javascript:alert(1)', 'https//x'])
      expect(() => hubFrom({ WEBSUB_HUB_URL: bad })).toThrow(
        /^WEBSUB_HUB_URL is not an http\(s\) URL; it names the WebSub hub every feed announces$/,
      );
  });

  it('that is not an http(s) URL stops the build at its first step, in one line', async () => {
    const run = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/build-data.ts'],
      { cwd: ROOT, env: { ...process.env, WEBSUB_HUB_URL: 'ftp://hub.example/', GENERATED_DIR: await tempDir() } },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (e) => ({ code: e.code as number, stderr: e.stderr as string }),
    );
    expect(run).toEqual({
      code: 1,
      stderr: 'build:data: WEBSUB_HUB_URL is not an http(s) URL; it names the WebSub hub every feed announces\n',
    });
  });
});

describe('the static feeds (change feeds, lowest-rate feeds, the changelog’s)', () => {
  let plain: Map<string, string>;
  let hubbed: Map<string, string>;
  beforeAll(async () => {
    [plain, hubbed] = [await feedTexts(historyDir(), SITE), await feedTexts(historyDir(), SITE, HUB)];
    const changelog = await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8');
    plain.set(CHANGELOG_FEED, changelogFeed(changelog, SITE));
    hubbed.set(CHANGELOG_FEED, changelogFeed(changelog, SITE, HUB));
  });

  it('name the hub beside their own address when it is set, and differ from the feeds without it by that link alone', () => {
    expect([...hubbed.keys()]).toEqual([...plain.keys()]);
    expect(hubbed.size).toBeGreaterThan(DATASETS.length * 3);
    for (const [path, text] of hubbed) {
      const links = parseAtomFeed(text).links ?? [];
      const self = links.findIndex((l) => l.rel === 'self');
      expect(links[self]?.href, path).toBe(`${SITE}${path}`);
      expect(links[self + 1], path).toEqual({ href: HUB, rel: 'hub' });
      expect(
        links.filter((l) => l.rel === 'hub'),
        path,
      ).toHaveLength(1);
      expect(text.replace(`\n  ${HUB_LINK}`, ''), path).toBe(plain.get(path));
    }
  });

  it('name no hub when none is set', () => {
    for (const [path, text] of plain) {
      expect(text, path).not.toContain('rel="hub"');
      expect(
        parseAtomFeed(text).links?.some((l) => l.rel === 'hub'),
        path,
      ).toBe(false);
    }
  });
});

describe('the alert feeds, computed per request', () => {
  let withHub: Listening;
  let without: Listening;
  beforeAll(async () => {
    withHub = await serveService(await rawServiceOver(historyDir(), { websubHub: HUB }));
    without = await serveService(await rawServiceOver(historyDir()));
  }, 60_000);
  afterAll(async () => {
    await withHub?.close();
    await without?.close();
  });

  it('JSON Feed: `hubs` names the hub and the answer’s Link header the hub and feed_url, on a real socket', async () => {
    const response = await fetch(`${withHub.url}${ALERTS}`);
    expect(response.status).toBe(200);
    const feed = AlertsFeed.parse(await response.json());
    expect(feed.hubs).toEqual([{ type: 'WebSub', url: HUB }]);
    expect(response.headers.get('link')).toBe(linkHeader(feed.feed_url));
    // A revalidation keeps the Link header: it is the representation's, not its content's.
    const again = await fetch(`${withHub.url}${ALERTS}`, {
      headers: { 'if-none-match': response.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('link')).toBe(linkHeader(feed.feed_url));
  });

  it('Atom: a rel="hub" link beside rel="self", and the Link header naming that self', async () => {
    const response = await fetch(`${withHub.url}${ALERTS_ATOM}`);
    expect(response.status).toBe(200);
    const links = parseAtomFeed(await response.text()).links ?? [];
    const self = links.findIndex((l) => l.rel === 'self');
    expect(links[self + 1]).toEqual({ href: HUB, rel: 'hub' });
    expect(response.headers.get('link')).toBe(linkHeader(links[self]!.href!));
  });

  it('without a hub: no `hubs`, no hub link, no Link header; the feeds otherwise the same', async () => {
    const json = await fetch(`${without.url}${ALERTS}`);
    expect(json.headers.get('link')).toBeNull();
    const text = await json.text();
    expect(Object.keys(JSON.parse(text))).not.toContain('hubs');
    const hubText = await (await fetch(`${withHub.url}${ALERTS}`)).text();
    expect(text).toBe(hubText.replace(`,"hubs":[{"type":"WebSub","url":"${HUB}"}]`, ''));
    expect(text).not.toBe(hubText);
    const atom = await fetch(`${without.url}${ALERTS_ATOM}`);
    expect(atom.headers.get('link')).toBeNull();
    const hubAtom = await (await fetch(`${withHub.url}${ALERTS_ATOM}`)).text();
    expect(await atom.text()).toBe(hubAtom.replace(`\n  ${HUB_LINK}`, ''));
  });

  it('in process too: the core answers the same headers and feed', async () => {
    const core = await coreOver(historyDir(), { websubHub: HUB });
    const { response, body } = await getJson(core, ALERTS);
    expect(body.hubs).toEqual([{ type: 'WebSub', url: HUB }]);
    expect(response.headers.get('link')).toBe(linkHeader(body.feed_url));
    const bare = await get(await coreOver(historyDir()), ALERTS);
    expect(bare.headers.get('link')).toBeNull();
  });
});

/** `npm start`'s server (src/server/node-server.ts) on a real socket, pages answered by a stand-in for Astro's handler. */
async function startServer(websubHub: string | undefined) {
  const server = createNodeServer({
    api: (_req, res) => void res.writeHead(404).end(),
    pages: async (_req, res) => void res.end('<feed/>'),
    limits: DEFAULT_LIMITS,
    site: SITE,
    websubHub,
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const FEED_FILES = [ALL_FEED_URL, datasetFeedUrl(termed), CHANGELOG_FEED];

describe('npm start: the static feed files', () => {
  it('are answered with the Link header naming the hub and the file itself when a hub is set', async () => {
    const server = await startServer(HUB);
    try {
      for (const path of FEED_FILES) {
        const response = await fetch(`${server.url}${path}?any=query`);
        expect(response.headers.get('content-type'), path).toBe('application/atom+xml; charset=utf-8');
        expect(response.headers.get('link'), path).toBe(linkHeader(`${SITE}${path}`));
      }
      for (const path of ['/rates', csvUrl(termed, 'latest'), '/docs/changelog', '/rates/x%0Ay.atom'])
        expect((await fetch(`${server.url}${path}`)).headers.get('link'), path).toBeNull();
    } finally {
      server.close();
    }
  });

  it('carry no Link header when no hub is set', async () => {
    const server = await startServer(undefined);
    try {
      for (const path of FEED_FILES) expect((await fetch(`${server.url}${path}`)).headers.get('link'), path).toBeNull();
    } finally {
      server.close();
    }
  });
});

describe('Vercel: the static feed files', () => {
  it('get the Link header from the route the build adds, the path filled in by Vercel’s routing', async () => {
    const output = await tempDir('rates-vercel-websub-');
    const files = [...FEED_FILES, '/rates/index.html'];
    for (const path of files) {
      const file = join(output, 'static', path);
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, path.endsWith('.atom') ? '<feed/>' : '<html></html>');
    }
    await mkdir(join(output, 'functions'));
    const route = feedHubRoute(HUB, SITE);
    const config = { version: 3, routes: [route, { handle: 'filesystem' }] };
    await writeFile(join(output, 'config.json'), JSON.stringify(config));
    const deployment = await serveVercelOutput(output, { SITE_URL: SITE });
    try {
      for (const path of FEED_FILES) {
        const response = await fetch(`${deployment.url}${path}`);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('link'), path).toBe(linkHeader(`${SITE}${path}`));
      }
      expect((await fetch(`${deployment.url}/rates/`)).headers.get('link')).toBeNull();
      // The API's feeds answer their own Link header (above), never the route's.
      expect(new RegExp(route.src, 'i').test(`/feeds/${termed.slug}/alerts.atom`)).toBe(false);
      expect(deployment.problems).toEqual([]);
    } finally {
      await deployment.stop();
    }
  });
});
