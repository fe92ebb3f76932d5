/**
 * The rooms of src/ stand on floors, and imports run down or sideways, never in a circle
 * (CONTRIBUTING.md, "How the rooms depend on each other"). An import up a floor is allowed only
 * with a reason: the comment right above it starts `// Up a floor:`, and there are at most MAX_UPWARD.
 * Type-only and dynamic imports count as imports.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/constants.ts';

/** The floors, lowest first: a path ending in `/` is a folder, the longest match wins. */
const FLOORS: readonly (readonly string[])[] = [
  // The foundation: helpers, the zod schemas, the API's path shapes, the site URL.
  ['src/lib/', 'src/schemas/', 'src/paths.ts', 'src/site.ts', 'src/types/', 'src/env.d.ts'],
  // The HTTP rules every answer leaves through.
  ['src/http/'],
  // The table of datasets and the endpoints it declares.
  ['src/datasets.ts', 'src/endpoints.ts'],
  // The data: snapshots, the served store, the collection status, change log, explorer, collector.
  ['src/snapshots/', 'src/store/', 'src/status/', 'src/changes/', 'src/explorer/', 'src/collect/'],
  // The REST core.
  ['src/api/'],
  // MCP, and the service that puts it and the REST core behind one way out.
  ['src/mcp/', 'src/service.ts'],
  // What the build makes: docs, OpenAPI, the registry entry, examples, generated data, the site map.
  [
    'src/docs/',
    'src/openapi/',
    'src/registry/',
    'src/examples.ts',
    'src/build/',
    'src/generated.ts',
    'src/site-map.ts',
  ],
  // The edges: the servers, and the site's pages, layouts, components and browser scripts.
  ['src/server/', 'src/components/', 'src/layouts/', 'src/pages/', 'src/browser/'],
];
const MAX_UPWARD = 5;

function floorOf(path: string): number {
  let floor = -1;
  let longest = -1;
  FLOORS.forEach((paths, i) => {
    for (const p of paths)
      if ((p.endsWith('/') ? path.startsWith(p) : path === p) && p.length > longest) [floor, longest] = [i, p.length];
  });
  return floor;
}

interface Import {
  from: string;
  to: string;
  /** The `//` comment lines right above the import statement, joined. */
  before: string;
}

async function importsOfSrc(): Promise<{ files: string[]; imports: Import[] }> {
  const entries = await readdir(join(ROOT, 'src'), { withFileTypes: true, recursive: true });
  const files = entries
    .filter((e) => e.isFile() && /\.(ts|astro|mjs)$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
  const imports: Import[] = [];
  for (const from of files) {
    const text = await readFile(join(ROOT, from), 'utf8');
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(/\bfrom\s+['"](\.[^'"]+)['"]|\bimport\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
        const to = relative(ROOT, resolve(dirname(join(ROOT, from)), (m[1] ?? m[2])!));
        // A statement that spans lines: the line before its first line.
        let start = i;
        while (start > 0 && !/^\s*(import|export)\b/.test(lines[start]!)) start--;
        let top = start;
        while (top > 0 && /^\s*\/\//.test(lines[top - 1]!)) top--;
        if (to.startsWith('src/')) imports.push({ from, to, before: lines.slice(top, start).join('\n') });
      }
    });
  }
  return { files, imports };
}

/** The strongly connected components of more than one file (Tarjan). */
function circles(files: readonly string[], imports: readonly Import[]): string[][] {
  const edges = new Map(files.map((f) => [f, imports.filter((i) => i.from === f).map((i) => i.to)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

describe('the import graph of src/', () => {
  it('has no circle, type-only imports included', async () => {
    const { files, imports } = await importsOfSrc();
    expect(imports.length).toBeGreaterThan(300);
    expect(circles(files, imports)).toEqual([]);
  });

  it('puts every file on a floor', async () => {
    const { files } = await importsOfSrc();
    expect(files.filter((f) => floorOf(f) < 0)).toEqual([]);
  });

  it(`runs up a floor at most ${MAX_UPWARD} times, each with its reason in the comment above`, async () => {
    const { imports } = await importsOfSrc();
    const upward = imports.filter((i) => floorOf(i.to) > floorOf(i.from));
    expect(upward.length).toBeLessThanOrEqual(MAX_UPWARD);
    for (const i of upward) expect(i.before, `${i.from} → ${i.to}`).toMatch(/^\s*\/\/ Up a floor: \S/);
  });

  it('exports no value that no other file reads (a dead export)', async () => {
    const trees = await Promise.all(
      ['src', 'scripts', 'test', 'bench'].map(async (dir) =>
        (await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true }))
          .filter((e) => e.isFile() && /\.(ts|astro|mjs)$/.test(e.name))
          .map((e) => relative(ROOT, join(e.parentPath, e.name))),
      ),
    );
    const texts = new Map(
      await Promise.all(trees.flat().map(async (f) => [f, await readFile(join(ROOT, f), 'utf8')] as const)),
    );
    const dead: string[] = [];
    for (const [file, text] of texts) {
      if (!file.startsWith('src/') || file.startsWith('src/pages/') || !file.endsWith('.ts')) continue;
      for (const [, name] of text.matchAll(/^export (?:async )?(?:const|function\*?|class|let) ([A-Za-z_$][\w$]*)/gm)) {
        const word = new RegExp(`\\b${name!.replace('$', '\\$')}\\b`);
        if (![...texts].some(([other, t]) => other !== file && word.test(t))) dead.push(`${file}: ${name}`);
      }
    }
    expect(dead).toEqual([]);
  });

  it('finds a circle and an upward import when there is one', () => {
    const made: Import[] = [
      { from: 'src/api/a.ts', to: 'src/api/b.ts', before: '' },
      { from: 'src/api/b.ts', to: 'src/api/a.ts', before: '' },
    ];
    expect(circles(['src/api/a.ts', 'src/api/b.ts'], made)).toEqual([['src/api/a.ts', 'src/api/b.ts']]);
    expect(floorOf('src/http/x.ts')).toBeLessThan(floorOf('src/api/x.ts'));
  });
});
