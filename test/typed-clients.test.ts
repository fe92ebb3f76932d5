/**
 * The typed-client examples of /docs/typescript work as shown: the site built and served as
 * `npm start` does, types generated from its /openapi/json with the openapi-typescript CLI, the
 * TypeScript example (examples/typescript/rates.ts) type-checked in strict mode against them and
 * run with Node, the Python example (examples/python/rates.py) run with python3 when there is one,
 * and the page showing both files exactly as they are. The generated types also accept a real
 * answer of every endpoint and reject a field the API does not have.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { INCLUDED_FILES } from '../src/docs/pages.ts';
import { endpointsOf, exampleListRequest } from '../src/endpoints.ts';
import { MortgageInstitution } from '../src/schemas/rates.ts';
import { PLACEHOLDER_PRODUCTION_URL } from '../src/site.ts';
import { ROOT } from './support/constants.ts';
import { datasetOfSchema } from './support/datasets.ts';
import { historyDir, newestDates, tempDir } from './support/history.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';

const run = promisify(execFile);
const TS_EXAMPLE = resolve(ROOT, INCLUDED_FILES.typescriptExample);
const PY_EXAMPLE = resolve(ROOT, INCLUDED_FILES.pythonExample);
const EXAMPLES_TSCONFIG = resolve(ROOT, 'examples/typescript/tsconfig.json');
const TSC = resolve(ROOT, 'node_modules/typescript/bin/tsc');
const PYTHON = spawnSync('python3', ['--version']).status === 0;

let site: ProductionSite;
/** A folder under .builds (so packages resolve from the repository's node_modules) holding the generated api.d.ts. */
let dir: string;

beforeAll(async () => {
  site = await buildAndServe({
    name: 'typed-clients',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-status-'),
  });
  dir = await mkdtemp(join(ROOT, '.builds', 'typed-clients-types-'));
  await run(
    process.execPath,
    [
      resolve(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      `${site.url}/openapi/json`,
      '-o',
      join(dir, 'api.d.ts'),
    ],
    { cwd: ROOT },
  );
}, 180_000);
afterAll(async () => {
  await site?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const get = (path: string) => fetch(`${site.url}${path}`);
/** tsc's complaints ('' when it has none). */
const tsc = (args: string[]) =>
  run(process.execPath, [TSC, ...args], { cwd: ROOT }).then(
    () => '',
    (e) => `${e.stdout}${e.stderr}`,
  );
/**
 * Type-checks `file` with the examples' tsconfig and strict on, `./api.d.ts` resolving to the
 * generated types: the file's folder and the types' folder are one folder to the compiler.
 */
async function typeCheck(file: string): Promise<string> {
  const config = join(dir, `tsconfig-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(
    config,
    JSON.stringify({
      extends: EXAMPLES_TSCONFIG,
      files: [file],
      compilerOptions: { strict: true, noEmit: true, rootDirs: [resolve(file, '..'), dir] },
    }),
  );
  return tsc(['-p', config]);
}

/** The dataset the examples read (mortgages), its list and its example institution's detail. */
const EXAMPLE_DATASET = datasetOfSchema(MortgageInstitution);
const LIST = endpointsOf(EXAMPLE_DATASET).list.path;
const detailOf = (id: string) => `${LIST}/${id}`;

/** A mortgage list or detail answer, as the examples read it. */
type ExampleAnswer = { data: MortgageInstitution[]; lastUpdated: string };

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What both examples must print, from the server's own answers. */
async function expectedOutput() {
  const asb: ExampleAnswer = await (await get(detailOf(EXAMPLE_DATASET.exampleEntityId))).json();
  const oneYear: ExampleAnswer = await (await get(`${LIST}?termInMonths=12`)).json();
  const unknown = await get(detailOf('institution:no-such-bank'));
  expect(unknown.status).toBe(404);
  const error = await unknown.json();
  expect(error.error).toBe('institution_not_found');
  const rows = asb.data.flatMap((i) => i.products.flatMap((p) => p.rates.map((r) => ({ product: p.name, ...r }))));
  const all = oneYear.data.flatMap((i) =>
    i.products.flatMap((p) => p.rates.map((r) => `${r.rate.toFixed(2)} %  ${i.name}, ${p.name}`)),
  );
  const lowest = oneYear.data
    .flatMap((i) => i.products.flatMap((p) => p.rates.map((r) => r.rate)))
    .sort((a, b) => a - b)
    .slice(0, 5)
    .map((rate) => rate.toFixed(2));
  return { asb, oneYear, rows, all, lowest, error };
}

/** Checks an example's output against the server's answers. */
async function checkOutput(stdout: string) {
  const { asb, oneYear, rows, all, lowest, error } = await expectedOutput();
  expect(rows.length).toBeGreaterThan(5);
  expect(stdout).toContain(`${asb.data[0]!.name} ${EXAMPLE_DATASET.label}`);
  // Every rate of the lender, on a line of its own: product, term, rate.
  for (const row of rows)
    expect(stdout).toMatch(
      new RegExp(`^\\s+${literal(row.product)}\\s+${literal(row.term)}\\s+${literal(row.rate.toFixed(2))} %$`, 'm'),
    );
  // The five lowest 1-year fixed rates, in order, each with a lender and product that has it.
  const section = stdout.split(`Lowest 1-year fixed rates (changed ${oneYear.lastUpdated})\n`)[1];
  expect(section, stdout).toBeDefined();
  const lines = section!
    .split('\n')
    .slice(0, 5)
    .map((line) => line.trim());
  expect(lines.map((line) => line.split(' ')[0])).toEqual(lowest);
  for (const line of lines) expect(all).toContain(line);
  // The documented 404 body, read from the error.
  expect(stdout).toContain(`Unknown institution: 404 institution_not_found: ${error.message} — ${error.hint}`);
}

describe('the TypeScript example', () => {
  it('type-checks in strict mode against types generated from the served /openapi/json', async () => {
    expect(await typeCheck(TS_EXAMPLE)).toBe('');
  }, 60_000);

  it('fails to type-check when it reads a field the answer lacks, passes a query value of the wrong type or asks a path the API lacks', async () => {
    const source = await readFile(TS_EXAMPLE, 'utf8');
    const broken: [string, string, RegExp][] = [
      ['rate.rate.toFixed', 'rate.ratePercent.toFixed', /Property 'ratePercent' does not exist/],
      ["termInMonths: '12'", 'termInMonths: 12', /Type 'number' is not assignable to type 'string'/],
      [`client.GET('${LIST}',`, `client.GET('${LIST}x',`, new RegExp(`'"${LIST}x"'`)],
    ];
    for (const [from, to, complaint] of broken) {
      expect(source, from).toContain(from);
      const file = join(dir, `broken-${broken.findIndex((b) => b[0] === from)}.ts`);
      await writeFile(file, source.replace(from, to));
      expect(await typeCheck(file), to).toMatch(complaint);
    }
  }, 120_000);

  it('run with Node against the server, prints the real rates and the documented error body', async () => {
    const { stdout, stderr } = await run(process.execPath, [TS_EXAMPLE, site.url], { cwd: ROOT });
    expect(stderr).toBe('');
    await checkOutput(stdout);
  }, 60_000);

  it('asks the production address when given none, and its comment generates the types from there', async () => {
    const source = await readFile(TS_EXAMPLE, 'utf8');
    expect(source).toContain(`?? '${PLACEHOLDER_PRODUCTION_URL}'`);
    expect(source).toContain(`npx openapi-typescript ${PLACEHOLDER_PRODUCTION_URL}/openapi/json -o api.d.ts`);
  });
});

describe('the Python example', () => {
  it.skipIf(!PYTHON)(
    `run with python3 against the server, prints the real rates and the documented error body${PYTHON ? '' : ' (skipped: no python3 on PATH)'}`,
    async () => {
      const { stdout, stderr } = await run('python3', [PY_EXAMPLE, site.url], { cwd: ROOT });
      expect(stderr).toBe('');
      await checkOutput(stdout);
    },
    60_000,
  );

  it('uses the standard library only, and asks the production address when given none', async () => {
    const source = await readFile(PY_EXAMPLE, 'utf8');
    const imports = [...source.matchAll(/^(?:import|from) ([\w.]+)/gm)].map((m) => m[1]);
    expect(imports.sort()).toEqual(['json', 'os', 'sys', 'urllib.error', 'urllib.parse', 'urllib.request']);
    expect(source).toContain(`"${PLACEHOLDER_PRODUCTION_URL}"`);
  });
});

describe('the page', () => {
  it('shows both example files exactly as they are, and the commands with the site address', async () => {
    const response = await get('/docs/typescript.md');
    expect(response.status).toBe(200);
    const markdown = await response.text();
    expect(markdown).toContain('# Use from TypeScript');
    for (const path of Object.values(INCLUDED_FILES))
      expect(markdown, path).toContain((await readFile(resolve(ROOT, path), 'utf8')).trimEnd());
    expect(markdown).toContain(`npx openapi-typescript ${site.url}/openapi/json -o api.d.ts`);
    expect(markdown).toContain(`python3 rates.py ${site.url}`);
    expect((await get('/docs/typescript')).status).toBe(200);
  });

  it('installs only packages the suite runs the example with, at the versions it pins', async () => {
    const markdown = await (await get('/docs/typescript.md')).text();
    const { devDependencies } = JSON.parse(await readFile(resolve(ROOT, 'package.json'), 'utf8'));
    const installed = [...markdown.matchAll(/^npm install (?:--save-dev )?(.+)$/gm)].flatMap((m) => m[1]!.split(' '));
    expect(installed.sort()).toEqual(['@types/node', 'openapi-fetch', 'openapi-typescript', 'typescript']);
    for (const name of installed) expect(devDependencies, name).toHaveProperty([name]);
  });
});

describe('the generated types', () => {
  it('accept real responses in a small client, and reject a field the API does not have', async () => {
    const [A] = DATASETS;
    const sample = async (path: string) => JSON.stringify(await (await get(path)).json());
    const client = `import type { paths } from './api';
type Get<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': infer T } } } } } ? T : never;

/** A small typed client over this API. */
export async function getJson<P extends keyof paths>(base: string, path: string): Promise<Get<P>> {
  const response = await fetch(base + path);
  if (!response.ok) throw new Error(String(response.status));
  return (await response.json()) as Get<P>;
}

${(
  await Promise.all(
    DATASETS.map(async (d, i) => {
      const { list: all, detail, timeSeries } = endpointsOf(d);
      return [
        `export const list${i}: Get<'${all.path}'> = ${await sample(exampleListRequest(d))};`,
        `export const detail${i}: Get<'${detail.path}'> = ${await sample(`${all.path}/${d.exampleEntityId}`)};`,
        `export const series${i}: Get<'${timeSeries.path}'> = ${await sample(`${timeSeries.path}?date=${newestDates()[d.slug]}`)};`,
      ].join('\n');
    }),
  )
).join('\n')}
export const health: Get<'/api/v1/health'> = ${await sample('/api/v1/health')};
export const search: Get<'/api/search'> = ${await sample('/api/search?query=termInMonths&limit=2')};
export const firstId: string | undefined = list0.data[0]?.id;
`;
    const check = (file: string) =>
      tsc([
        '--noEmit',
        '--strict',
        '--target',
        'es2022',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
        '--lib',
        'es2022,dom',
        file,
      ]);
    await writeFile(join(dir, 'client.ts'), client);
    expect(await check(join(dir, 'client.ts'))).toBe('');
    await writeFile(
      join(dir, 'client-wrong.ts'),
      client.replace(`"type":"${A!.type}",`, `"type":"${A!.type}","colour":"blue",`),
    );
    expect(await check(join(dir, 'client-wrong.ts'))).toMatch(/'"?colour"?' does not exist/);
  }, 60_000);
});
