import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATASETS, entityOf } from '../src/datasets.ts';
import { MortgageInstitution, type MortgageRate } from '../src/schemas/rates.ts';
import { normalizeDataset } from '../src/snapshots/normalize.ts';
import { serializeSnapshot } from '../src/snapshots/tree.ts';
import { CompileError, compileSnapshotTree } from '../src/store/compile.ts';
import { datasetOfSchema, EACH } from './support/datasets.ts';
import { tempDir } from './support/history.ts';

/** The data these tests write has the schema of institutions with products of termed rates. */
const mortgage = datasetOfSchema(MortgageInstitution);
const rate = (id: string, value: number, months: number | null): MortgageRate => ({
  id,
  rate: value,
  term: months === null ? 'Variable floating' : months === 12 ? '1 year' : '2 years',
  termInMonths: months,
});

describe('normalizing duplicate sections', () => {
  it('merges an institution listed in two sections and makes repeated ids unique, in source order', () => {
    const data = [
      {
        id: 'institution:kiwibank',
        name: 'Kiwibank',
        products: [
          { id: 'product:kiwibank:special', name: 'Special', rates: [rate('rate:kiwibank:special:1-year', 4.99, 12)] },
        ],
      },
      { id: 'institution:anz', name: 'ANZ', products: [] },
      {
        id: 'institution:kiwibank',
        name: 'Kiwibank',
        products: [
          {
            id: 'product:kiwibank:special',
            name: 'Special LVR < 80%',
            rates: [rate('rate:kiwibank:special:1-year', 4.89, 12), rate('rate:kiwibank:special:2-years', 4.79, 24)],
          },
          {
            id: 'product:kiwibank:standard',
            name: 'Standard',
            rates: [rate('rate:kiwibank:standard:variable-floating', 6.1, null)],
          },
        ],
      },
    ];
    const result = normalizeDataset(mortgage, data) as any[];
    expect(result.map((i) => i.id)).toEqual(['institution:kiwibank', 'institution:anz']);
    expect(result[0].products.map((p: any) => p.id)).toEqual([
      'product:kiwibank:special',
      'product:kiwibank:special-2',
      'product:kiwibank:standard',
    ]);
    expect(result[0].products[1].rates.map((r: any) => r.id)).toEqual([
      'rate:kiwibank:special-2:1-year',
      'rate:kiwibank:special-2:2-years',
    ]);
    expect(result[0].products[1].rates[0].rate).toBe(4.89);
    expect(normalizeDataset(mortgage, data)).toEqual(result); // deterministic
    expect(() =>
      mortgage.schemas.snapshot.parse({ type: mortgage.type, data: result, lastUpdated: '2025-01-01T00:00:00.000Z' }),
    ).not.toThrow();
  });
});

describe('snapshot files', () => {
  it('are written one way: schema key order, 2-space indentation, final newline', () => {
    const text = serializeSnapshot(mortgage, {
      lastUpdated: '2025-01-01T00:00:00.000Z',
      data: [
        {
          products: [
            {
              rates: [{ termInMonths: 12, rate: 5, term: '1 year', id: 'rate:a:b:1-year' }],
              name: 'B',
              id: 'product:a:b',
            },
          ],
          name: 'A',
          id: 'institution:a',
        },
      ],
      type: mortgage.type,
    } as any);
    expect(text).toBe(
      `{\n  "type": "${mortgage.type}",\n  "data": [\n    {\n      "id": "institution:a",\n      "name": "A",\n      "products": [\n        {\n          "id": "product:a:b",\n          "name": "B",\n          "rates": [\n            {\n              "id": "rate:a:b:1-year",\n              "rate": 5,\n              "term": "1 year",\n              "termInMonths": 12\n            }\n          ]\n        }\n      ]\n    }\n  ],\n  "lastUpdated": "2025-01-01T00:00:00.000Z"\n}\n`,
    );
  });
});

describe('the build command', () => {
  it('refuses a corrupt snapshot file: exit 1, the file named, nothing written', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const dir = await tempDir();
    const dataset = DATASETS.at(-1)!;
    const file = join(dir, dataset.slug, '2025-02-24.json');
    await mkdir(join(dir, dataset.slug), { recursive: true });
    await writeFile(file, `{"type": "${dataset.type}", "data": [{"id": "${dataset.exampleEntityId}", "name": "A", "`);
    const generated = join(await tempDir(), 'generated');
    const failed = await promisify(execFile)('npm', ['run', '--silent', 'build:data'], {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, SNAPSHOTS_DIR: dir, GENERATED_DIR: generated },
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(file);
    expect(failed.stderr).toContain('not readable JSON');
    const { existsSync } = await import('node:fs');
    expect(existsSync(generated)).toBe(false);
  });
});

describe('compiling the tree at build time', () => {
  async function treeWith(files: Record<string, string>) {
    const dir = await tempDir();
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    return dir;
  }

  it('compiles an empty tree to an empty history of each dataset', async () => {
    const compiled = await compileSnapshotTree(await tempDir());
    expect(Object.keys(compiled.datasets)).toEqual(DATASETS.map((d) => d.slug));
    expect(Object.values(compiled.datasets).map((d) => d.dates.length)).toEqual(DATASETS.map(() => 0));
  });

  describe.each(EACH)('%s', (slug, dataset) => {
    const good = JSON.stringify({ type: dataset.type, data: [], lastUpdated: '2025-01-02T03:04:05.000Z' });
    const other = DATASETS.find((d) => d.type !== dataset.type);
    const entity = entityOf(dataset, `${dataset.entity.prefix}:a`, 'A', []);

    it('ignores files that are not dated snapshots', async () => {
      const dir = await treeWith({
        [`${slug}/2025-01-02.json`]: good,
        [`${slug}/README.md`]: '#',
        [`${slug}/notes.json`]: '{}',
      });
      expect((await compileSnapshotTree(dir)).datasets[slug]!.dates).toEqual(['2025-01-02']);
    });

    it.each([
      ['corrupt JSON', `{"type": "${dataset.type}", "da`, 'not readable JSON'],
      [
        'an extra field',
        JSON.stringify({ type: dataset.type, data: [], lastUpdated: '2025-01-02T03:04:05.000Z', source: 'x' }),
        'Unrecognized key',
      ],
      ...(other
        ? [
            [
              'the wrong type',
              JSON.stringify({ type: other.type, data: [], lastUpdated: '2025-01-02T03:04:05.000Z' }),
              'type:',
            ],
          ]
        : []),
      [
        'a date that is not the file date',
        JSON.stringify({ type: dataset.type, data: [], lastUpdated: '2025-01-03T03:04:05.000Z' }),
        "file's UTC date",
      ],
      [
        'a duplicate id',
        JSON.stringify({ type: dataset.type, lastUpdated: '2025-01-02T03:04:05.000Z', data: [entity, entity] }),
        `duplicate id "${entity.id}"`,
      ],
    ])('refuses a file with %s, naming it', async (_, content, problem) => {
      const dir = await treeWith({
        [`${slug}/2025-01-01.json`]: good.replace('01-02', '01-01'),
        [`${slug}/2025-01-02.json`]: content!,
      });
      const error = await compileSnapshotTree(dir).catch((e) => e);
      expect(error).toBeInstanceOf(CompileError);
      expect(error.message).toContain(join(dir, slug, '2025-01-02.json'));
      expect(error.message).toContain(problem);
      expect(error.message).not.toContain('2025-01-01.json');
    });
  });
});
