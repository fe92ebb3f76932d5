/**
 * Lenders' websites, read from the links of the page's name cells. Most name cells link to the
 * source site's own directory, which is no lender's website; a campaign logo links to the
 * lender's site with tracking parameters, which are removed so a campaign that changes is not a
 * website that changes. What is not a plain http(s) address off the source site is not kept.
 */
import type { Entity } from '../datasets.ts';
import { Website } from '../schemas/links.ts';
import type { NameLink } from './tables.ts';

/** The source site: a link to it (or to the host the page came from) names no website. */
const SOURCE_SITE = 'interest.co.nz';

/** Query parameters that track a visit rather than address a page: campaign tags and click ids. */
const TRACKING = /^(?:utm_.+|gclid|gbraid|wbraid|dclid|fbclid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|igshid)$/i;

/** The website a name cell's link names, tracking parameters removed; undefined when it names none. */
export function websiteOf(href: string, pageUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, pageUrl);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  if (host === new URL(pageUrl).hostname || host === SOURCE_SITE || host.endsWith(`.${SOURCE_SITE}`)) return undefined;
  for (const key of [...url.searchParams.keys()]) if (TRACKING.test(key)) url.searchParams.delete(key);
  if (url.searchParams.size === 0) url.search = '';
  return Website.safeParse(url.href).success ? url.href : undefined;
}

/**
 * Per entity id of `data`, the website its name links to: the first on the page, where an
 * institution is listed in several sections. `listed` are the entities as the page lists them
 * (their names are the names the links were read under).
 */
export function entityWebsites(
  links: readonly NameLink[],
  listed: readonly Entity[],
  data: readonly Entity[],
  pageUrl: string,
): Record<string, string> {
  const kept = new Set(data.map((e) => e.id));
  const idOf = new Map(listed.filter((e) => kept.has(e.id)).map((e) => [e.name, e.id]));
  const websites: Record<string, string> = {};
  for (const { entity, href } of links) {
    const id = idOf.get(entity);
    const website = id === undefined || id in websites ? undefined : websiteOf(href, pageUrl);
    if (id !== undefined && website !== undefined) websites[id] = website;
  }
  return websites;
}
