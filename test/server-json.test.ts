/**
 * server.json, the entry for MCP registries: valid against the registry's published schema
 * (vendored, test/fixtures/mcp-registry), the file as `npm run build:server-json` writes it, and
 * its remote the MCP endpoint this service answers.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { MCP_PATH } from '../src/endpoints.ts';
import { registryName, SERVER_SCHEMA, serverJson } from '../src/registry/server-json.ts';
import { PLACEHOLDER_PRODUCTION_URL } from '../src/site.ts';
import { ROOT } from './support/constants.ts';

/** The registry's current schema, vendored (test/fixtures/mcp-registry/README.md says from where). */
const CURRENT_SCHEMA = 'server.schema.2025-12-11.json';

const fixture = async (name: string) =>
  JSON.parse(await readFile(join(ROOT, 'test', 'fixtures', 'mcp-registry', name), 'utf8')) as Record<string, unknown>;

async function validator() {
  const schema = await fixture(CURRENT_SCHEMA);
  // strict: false — the schema carries OpenAPI's `example` and `discriminator`, which draft-07 ignores.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

describe('server.json', () => {
  it('the validator holds the registry’s own examples: the valid one passes, the invalid one fails', async () => {
    const validate = await validator();
    expect(validate(await fixture('with-remote.json')), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(await fixture('bad-name-pattern.json'))).toBe(false);
    // A rule 2025-12-11 has and 2025-09-29 had not: an icon's type is one of those listed.
    const withGifIcon = {
      ...(await fixture('with-remote.json')),
      icons: [{ src: 'https://example.com/i.gif', mimeType: 'image/gif' }],
    };
    expect(validate(withGifIcon)).toBe(false);
  });

  it('is valid against the registry’s schema, and names the schema it was checked against', async () => {
    const committed = JSON.parse(await readFile(join(ROOT, 'server.json'), 'utf8'));
    const validate = await validator();
    expect(validate(committed), JSON.stringify(validate.errors)).toBe(true);
    expect(committed.$schema).toBe(SERVER_SCHEMA);
    expect((await fixture(CURRENT_SCHEMA)).$id).toBe(SERVER_SCHEMA);
  });

  it('is the file npm run build:server-json writes: the placeholder production address, the package version', async () => {
    const committed = await readFile(join(ROOT, 'server.json'), 'utf8');
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(committed, 'server.json is stale: run npm run build:server-json and commit it').toBe(
      `${JSON.stringify(serverJson(PLACEHOLDER_PRODUCTION_URL, version), null, 2)}\n`,
    );
  });

  it('describes one remote: Streamable HTTP at the site’s MCP endpoint', () => {
    const entry = serverJson('https://rates.example.nz', '1.2.3');
    expect(entry.remotes).toEqual([{ type: 'streamable-http', url: `https://rates.example.nz${MCP_PATH}` }]);
    expect(entry.name).toBe('nz.example.rates/nz-lending-rates');
    expect(registryName(PLACEHOLDER_PRODUCTION_URL)).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  });
});
