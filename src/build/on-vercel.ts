import { FEED_FILE_PATTERN, hubLinkHeader } from '../lib/websub.ts';

/**
 * Is this build Vercel's? Vercel sets VERCEL=1 during its builds; ASTRO_ADAPTER=vercel builds
 * its output by hand, and ASTRO_ADAPTER=node forces the Node build there. Read by astro.config.mjs
 * (which adapter) and scripts/build-vercel-api.ts (whether to add the API function).
 */
export function buildsForVercel(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ASTRO_ADAPTER === 'vercel' || (env.VERCEL === '1' && env.ASTRO_ADAPTER !== 'node');
}

/** The function that answers everything under /api on Vercel (scripts/build-vercel-api.ts); routes name it `/_api`. */
export const API_FUNCTION = '_api';
/** Every path under /api and /feeds (the alerts feeds in Atom), /api itself included (src/paths.ts SERVICE_PATH). */
export const API_ROUTE_SOURCE = '^/(?:api|feeds)(?:/.*)?$';

/** The site's feed files on Vercel: their paths outside /api and /feeds (API_ROUTE_SOURCE), the path captured. */
export const FEED_ROUTE_SOURCE = `^(?!/(?:api|feeds)(?:/|$))(${FEED_FILE_PATTERN})$`;

/**
 * The route that gives Vercel's static feed files (src/lib/websub.ts FEED_FILE_PATTERN, outside
 * /api and /feeds, whose answers carry their own) the WebSub `Link` header: the hub and the file's
 * own address, as `npm start` sends them (src/server/page-requests.ts). A `headers` route with
 * `continue`, ahead of `handle: filesystem`, as vercel.json's own headers become; `$1` is the path.
 */
export function feedHubRoute(
  hub: string,
  site: string,
): { src: string; headers: Record<string, string>; continue: true } {
  // `$` in a header value names a capture: a literal one is escaped as in any URL.
  const literal = (url: string) => url.replaceAll('$', '%24');
  return {
    src: FEED_ROUTE_SOURCE,
    headers: { Link: hubLinkHeader(literal(hub), `${literal(site)}$1`) },
    continue: true,
  };
}
