import type { APIRoute } from 'astro';
import text from '@generated/llms.txt?raw';

export const GET: APIRoute = () => new Response(text, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
