import type { APIRoute } from 'astro';
import text from '@generated/openapi.json?raw';

// Served by the function rather than as a file: a static file named `json` has no type.
export const prerender = false;
export const GET: APIRoute = () =>
  new Response(text, { headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' } });
