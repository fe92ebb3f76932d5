/**
 * /api under `astro dev` only (astro.config.mjs injects this route there): `npm start` and the
 * Vercel function send /api to the API listener (api-listener.ts) before Astro ever sees it. The
 * same service answers here, through the same way out, with request ids stamped as the outermost
 * layer does.
 */
import type { APIRoute } from 'astro';
import { withRequestIds } from '../http/request-id.ts';
import { serviceWith } from './runtime.ts';

const service = withRequestIds(serviceWith(false));

export const prerender = false;
export const ALL: APIRoute = ({ request }) => service(request);
