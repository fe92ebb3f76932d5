/**
 * WebSub (W3C, https://www.w3.org/TR/websub/): the hub that pushes the service's feeds to their
 * subscribers, so that a reader is told of a change instead of polling for it. WEBSUB_HUB_URL
 * names it; unset, no feed names a hub and every feed and header is as without WebSub. Set, each
 * Atom and JSON feed names it (an Atom `rel="hub"` link, JSON Feed's `hubs`) and is answered with
 * a `Link` header naming the hub and the feed itself, the two a subscriber needs (WebSub
 * "Discovery"); the hourly job asks the hub to fetch each feed that changed (scripts/hourly/websub.ts).
 */

const HUB_VARIABLE = 'WEBSUB_HUB_URL';

/**
 * The hub's URL in `env`, or undefined when unset (or empty); anything but an http(s) URL is
 * refused. As the URL parser writes it, so that it goes into a header and an XML attribute as it is.
 */
export function hubFrom(env: Record<string, string | undefined>): string | undefined {
  const raw = env[HUB_VARIABLE]?.trim();
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {}
  // The value is not repeated: a private hub's URL may carry its key.
  throw new Error(`${HUB_VARIABLE} is not an http(s) URL; it names the WebSub hub every feed announces`);
}

let read: { hub: string | undefined } | undefined;

/** This deployment's hub, read from the environment once (the first call throws on a bad value, as often as asked). */
export function websubHub(): string | undefined {
  read ??= { hub: hubFrom(process.env) };
  return read.hub;
}

/**
 * The paths of the site's feed files, the `.atom` files the build writes (the change feeds, the
 * lowest-rate feeds, the changelog's), as a regular expression's source without anchors: plain
 * characters only, since the path goes into the `Link` header as it came.
 */
export const FEED_FILE_PATTERN = '/[\\w.~/-]*\\.atom';

/** The `Link` header of a feed's answer: its hub and its own address (WebSub's topic URL). */
export const hubLinkHeader = (hub: string, self: string) => `<${hub}>; rel="hub", <${self}>; rel="self"`;

/** JSON Feed 1.1's `hubs` entry for a WebSub hub. */
export const jsonFeedHubs = (hub: string) => [{ type: 'WebSub', url: hub }];
