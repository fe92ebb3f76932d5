/**
 * Adding a dataset touches only what it must: no source or test file names a dataset outside the
 * kinds of file CONTRIBUTING.md ("Adding a dataset") lists. Everything else reads the dataset
 * table, so it follows a new entry without an edit. A dataset is named by its slug (also as
 * `_`-joined in MCP tool names), its title, its label or its type, in any case.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { ROOT } from './support/constants.ts';

/** Where a dataset may be named, each kind with the paths it covers (a path ending in `/` is a folder). */
const ALLOWED: readonly { kind: string; paths: readonly string[] }[] = [
  // The table entry: the dataset table, and its explorer facts keyed by slug beside it.
  { kind: 'table entry', paths: ['src/datasets.ts', 'src/explorer/definitions.ts'] },
  // The zod schema of its entities and items.
  { kind: 'schema', paths: ['src/schemas/rates.ts'] },
  // The page layout the collector recognises, and the parser reading it.
  { kind: 'parser', paths: ['src/collect/page-layout.ts', 'src/collect/parsers/'] },
  // Test data: dated snapshots, source pages, the page renderer.
  { kind: 'fixtures', paths: ['test/fixtures/'] },
  // The benchmarks' and the load test's request mixes: fixed, named requests, so that figures
  // compare across changes (a new dataset joins a mix when someone wants it measured).
  { kind: 'request mixes', paths: ['scripts/bench-ab.ts', 'scripts/load.ts'] },
  // Its docs page is written from the table (/docs/reference/<slug>); the prose under content/ is
  // exempt, as are README.md and CONTRIBUTING.md, and none of them is scanned.
];

/**
 * Files that still name a dataset, owned by other changes in progress when this test was written.
 * Each must still name one (the test fails once it no longer does, so the list only shrinks): take
 * the names from the table there, then delete the line here.
 */
const PENDING: readonly string[] = ['test/attack-edge.test.ts', 'test/way-out.test.ts'];

/** The scanned trees: every source, script and test file (snapshots/ and content/ are data and prose). */
const SCANNED = ['src', 'scripts', 'test'];

const allowed = (path: string) =>
  ALLOWED.some((a) => a.paths.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p)));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The names of a dataset, as one case-insensitive pattern. */
const namesOf = (d: (typeof DATASETS)[number]) =>
  new RegExp([d.slug, d.slug.replaceAll('-', '_'), d.title, d.label, d.type].map(escapeRegExp).join('|'), 'i');

describe('datasets are named only in their own kinds of file', () => {
  it('the allowed paths exist', async () => {
    const files = (await Promise.all(SCANNED.map(filesUnder))).flat();
    for (const { kind, paths } of ALLOWED)
      for (const p of paths)
        expect(
          files.some((f) => f === p || (p.endsWith('/') && f.startsWith(p))),
          `${kind}: ${p}`,
        ).toBe(true);
  });

  it('the scan finds each dataset where it is named: in its table entry and in its explorer facts', async () => {
    for (const file of ['src/datasets.ts', 'src/explorer/definitions.ts']) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const d of DATASETS) expect(namesOf(d).test(text), `${d.slug} in ${file}`).toBe(true);
    }
    for (const d of DATASETS) expect(namesOf(d).test(`GET /api/v1/${d.slug.toUpperCase()}`), d.slug).toBe(true);
  });

  it.each(PENDING)('%s, pending, still names a dataset (else delete it from PENDING)', async (file) => {
    const text = await readFile(join(ROOT, file), 'utf8');
    expect(DATASETS.some((d) => namesOf(d).test(text))).toBe(true);
  });

  it.each(DATASETS.map((d) => [d.slug, d] as const))('%s: no file outside them names it', async (_, dataset) => {
    const names = namesOf(dataset);
    const files = (await Promise.all(SCANNED.map(filesUnder)))
      .flat()
      .filter((f) => !allowed(f) && !PENDING.includes(f));
    const naming: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8');
      const at = text.split('\n').findIndex((line) => names.test(line));
      if (at >= 0) naming.push(`${file}:${at + 1}`);
    }
    expect(naming, `files naming ${dataset.slug} (read it from DATASETS instead)`).toEqual([]);
  });

  it('CONTRIBUTING.md’s checklist names paths that exist, each of the kinds above, and a placeholder where one is new', async () => {
    const text = await readFile(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
    const section = text.slice(text.indexOf('## Adding a dataset'));
    // Repository paths (a site address begins with `/`).
    const paths = [...section.matchAll(/`([\w.<>-][\w.<>/-]*\/[\w.<>/-]*)`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) {
      // A path with a placeholder is a new file: the folder it goes in exists.
      const known = path.includes('<') ? dirname(path.slice(0, path.indexOf('<'))) : path;
      expect(existsSync(join(ROOT, known)), path).toBe(true);
    }
    for (const { paths: kind } of ALLOWED)
      for (const p of kind) expect(section.includes(p.replace(/\/$/, '')) || section.includes(p), p).toBe(true);
  });
});
