import type { APIRoute } from 'astro';
import { siteMapXml } from '../site-map.ts';
import { siteUrl } from '../site.ts';

/** Every page of the site (src/site-map.ts), with absolute URLs; robots.txt points here. */
export const prerender = true;

export const GET: APIRoute = () =>
  new Response(siteMapXml(siteUrl()), { headers: { 'content-type': 'application/xml; charset=utf-8' } });
