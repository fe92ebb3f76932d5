/**
 * npm run build:server-json — write `server.json` (the MCP registry entry, src/registry/server-json.ts)
 * at the repository root, for SITE_URL when set, else the placeholder production address
 * (src/site.ts). Commit the result; test/server-json.test.ts fails when it is stale.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { readFile, writeFile } from 'node:fs/promises';
import { serverJson } from '../src/registry/server-json.ts';
import { PLACEHOLDER_PRODUCTION_URL, siteUrl } from '../src/site.ts';

const site = process.env.SITE_URL ? siteUrl() : PLACEHOLDER_PRODUCTION_URL;
const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
await writeFile('server.json', `${JSON.stringify(serverJson(site, version), null, 2)}\n`);
console.log(`server.json: ${site}`);
