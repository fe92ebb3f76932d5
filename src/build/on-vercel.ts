/**
 * Is this build Vercel's? Vercel sets VERCEL=1 during its builds; ASTRO_ADAPTER=vercel builds
 * its output by hand, and ASTRO_ADAPTER=node forces the Node build there. Read by astro.config.mjs
 * (which adapter) and scripts/build-vercel-api.ts (whether to add the API function).
 */
export function buildsForVercel(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ASTRO_ADAPTER === 'vercel' || (env.VERCEL === '1' && env.ASTRO_ADAPTER !== 'node');
}

/** The function that answers everything under /api on Vercel (scripts/build-vercel-api.ts); routes name it `/_api`. */
export const API_FUNCTION = '_api';
/** Every path under /api and /feeds (the alerts feeds in Atom), /api itself included (src/paths.ts SERVICE_PATH). */
export const API_ROUTE_SOURCE = '^/(?:api|feeds)(?:/.*)?$';
