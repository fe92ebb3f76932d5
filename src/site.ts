/**
 * The public address of the site: links in llms.txt, the OpenAPI `servers`, curl examples.
 * SITE_URL when set; on Vercel its production domain; else the local `npm start` address.
 */
export function siteUrl(env: Record<string, string | undefined> = process.env): string {
  const url = env.SITE_URL ?? (env.VERCEL_PROJECT_PRODUCTION_URL ? `https://${env.VERCEL_PROJECT_PRODUCTION_URL}` : 'http://127.0.0.1:8787');
  return url.replace(/\/+$/, '');
}
