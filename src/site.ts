/**
 * The public address of the site, the one origin of every absolute URL the service writes: links
 * in llms.txt, the OpenAPI `servers`, curl examples, `documentationUrl` in error bodies, MCP texts.
 * SITE_URL when set; on Vercel its production domain; else the local `npm start` address. Never
 * taken from a request: on Vercel the request may name an internal host, and a cached answer
 * built from one caller's Host would be served to everyone.
 */
export function siteUrl(env: Record<string, string | undefined> = process.env): string {
  const url =
    env.SITE_URL ||
    (env.VERCEL_PROJECT_PRODUCTION_URL
      ? `https://${env.VERCEL_PROJECT_PRODUCTION_URL}`
      : `http://127.0.0.1:${env.PORT || 8787}`);
  return url.replace(/\/+$/, '');
}

/**
 * The production address until the project has a domain of its own: Vercel's default for a
 * project named as package.json names it. What is published about the service (server.json)
 * uses it; set SITE_URL when building that file to publish another.
 */
export const PLACEHOLDER_PRODUCTION_URL = siteUrl({ VERCEL_PROJECT_PRODUCTION_URL: 'nz-rates-service.vercel.app' });
