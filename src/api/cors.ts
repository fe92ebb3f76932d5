/** CORS for /api/v1: every origin may read; browsers may cache a preflight for 600 s (spec §4.9). */
export const CORS_MAX_AGE = '600';

export function withCors(response: Response): Response {
  response.headers.set('access-control-allow-origin', '*');
  response.headers.set('access-control-expose-headers', 'x-request-id, etag');
  return response;
}

export function preflight(request: Request, allow: readonly string[]): Response {
  const headers = new Headers({
    'access-control-allow-origin': '*',
    'access-control-allow-methods': allow.join(', '),
    'access-control-max-age': CORS_MAX_AGE,
    vary: 'access-control-request-headers',
  });
  const requested = request.headers.get('access-control-request-headers');
  headers.set('access-control-allow-headers', requested ?? 'content-type, x-request-id');
  return new Response(null, { status: 204, headers });
}
