import type { APIRoute } from 'astro';
import { DOC_PAGES } from '../generated.ts';

export const GET: APIRoute = () =>
  new Response(DOC_PAGES.find((page) => page.slug === '')!.markdown, {
    headers: { 'content-type': 'text/markdown; charset=utf-8' },
  });
