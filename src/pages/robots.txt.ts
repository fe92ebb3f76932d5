import type { APIRoute } from 'astro';
import { siteUrl } from '../site.ts';

/**
 * Every page may be crawled; the site map lists them. A file of the build rather than of public/:
 * the Sitemap line must be an absolute URL, and the site's address is known only when building.
 */
export const prerender = true;

export const GET: APIRoute = () =>
  new Response(`User-agent: *\nAllow: /\n\nSitemap: ${siteUrl()}/sitemap.xml\n`, {
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
