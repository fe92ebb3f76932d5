import type { APIRoute } from 'astro';
import { BUILT_CHANGES } from '../../build/changes.ts';
import { atomFeed } from '../../changes/feeds.ts';
import { ATOM_TYPE } from '../../changes/urls.ts';
import { siteUrl } from '../../site.ts';
import { websubHub } from '../../lib/websub.ts';

// Every dataset's changes: a static file written at build time, served by the CDN.
export const prerender = true;
export const GET: APIRoute = () =>
  new Response(
    atomFeed(
      { kind: 'all' },
      BUILT_CHANGES.map((b) => b.changes),
      siteUrl(),
      websubHub(),
    ),
    { headers: { 'content-type': ATOM_TYPE } },
  );
