import type { APIRoute } from 'astro';
import text from '@generated/openapi.json?raw';
import { preflightAnswer, READ_ONLY_CORS } from '../../http/cors.ts';
import { ApiError, errorAnswer } from '../../api/responses.ts';
import type { Answer } from '../../http/answer.ts';
import { prepare, respond } from '../../http/way-out.ts';
import { responseOf } from '../../service.ts';
import { siteUrl } from '../../site.ts';

// Served by the function rather than as a file: a static file named `json` has no type. Readable
// from any origin like the API, and answered by the API's way out (src/http/way-out.ts): a
// preflight gets 204, any other method but GET and HEAD the documented 405.
export const prerender = false;

const DOCUMENT: Answer = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: text,
  cache: 'data',
};
const METHOD_NOT_ALLOWED = errorAnswer(
  new ApiError('method_not_allowed', 'Method not allowed', 'The OpenAPI document is read-only: use GET.', {
    headers: { allow: 'GET, HEAD, OPTIONS' },
  }),
  siteUrl(),
);

async function answer(request: Request, answer: Answer): Promise<Response> {
  const head = { method: request.method, header: (name: string) => request.headers.get(name) ?? undefined };
  return responseOf(await respond(prepare(answer, { coding: false }), head));
}

export const GET: APIRoute = ({ request }) => answer(request, DOCUMENT);
export const HEAD: APIRoute = ({ request }) => answer(request, DOCUMENT);
export const OPTIONS: APIRoute = ({ request }) =>
  answer(request, preflightAnswer(READ_ONLY_CORS, request.headers.get('access-control-request-headers') ?? undefined));
export const ALL: APIRoute = ({ request }) => answer(request, METHOD_NOT_ALLOWED);
