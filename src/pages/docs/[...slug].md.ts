import type { APIRoute, GetStaticPaths } from 'astro';
import { DOC_PAGES } from '../../generated.ts';

// Every docs page as raw Markdown at <page>.md (the overview is /docs.md, beside this folder).
export const getStaticPaths: GetStaticPaths = () =>
  DOC_PAGES.filter((page) => page.slug).map((page) => ({
    params: { slug: page.slug },
    props: { markdown: page.markdown },
  }));

export const GET: APIRoute = ({ props }) =>
  new Response(props.markdown as string, { headers: { 'content-type': 'text/markdown; charset=utf-8' } });
