import type { APIRoute } from 'astro';
import indexText from '@generated/search-index.json?raw';
import { createSearchHandler } from '../../docs/search.ts';

export const prerender = false;
const handle = createSearchHandler(async () => indexText);
export const ALL: APIRoute = ({ request }) => handle(request);
