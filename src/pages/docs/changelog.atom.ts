import type { APIRoute } from 'astro';
import changelog from '../../../CHANGELOG.md?raw';
import { changelogFeed } from '../../docs/changelog.ts';
import { ATOM_TYPE } from '../../changes/urls.ts';
import { siteUrl } from '../../site.ts';
import { websubHub } from '../../lib/websub.ts';

// The changelog's releases: a static file written at build time from CHANGELOG.md.
export const prerender = true;
export const GET: APIRoute = () =>
  new Response(changelogFeed(changelog, siteUrl(), websubHub()), { headers: { 'content-type': ATOM_TYPE } });
