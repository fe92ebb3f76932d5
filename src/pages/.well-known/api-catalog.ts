import type { APIRoute } from 'astro';
import { API_CATALOG_TYPE, apiCatalog } from '../../registry/api-catalog.ts';
import { siteUrl } from '../../site.ts';

/**
 * The API catalog (src/registry/api-catalog.ts), a file of the build: its links are absolute, and
 * the site's address is known only when building. The file has no extension, so its type comes
 * from src/server/page-requests.ts on npm start and from vercel.json on Vercel.
 */
export const prerender = true;

export const GET: APIRoute = () =>
  new Response(`${JSON.stringify(apiCatalog(siteUrl()), null, 2)}\n`, {
    headers: { 'content-type': API_CATALOG_TYPE },
  });
