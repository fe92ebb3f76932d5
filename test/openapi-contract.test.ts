/**
 * One promise: the stability page's closed and open objects are the document's. Every object of
 * the rate answers and the error body is closed (`additionalProperties: false`), every object of
 * the other answers open, and the page names every path with a JSON answer once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { ROOT } from './support/constants.ts';
import { documentOverHistory } from './support/openapi.ts';

let doc: any;
beforeAll(async () => {
  ({ doc } = await documentOverHistory());
}, 120_000);

const METHODS = ['get', 'post', 'delete', 'options'] as const;
const operations = () =>
  Object.entries(doc.paths).flatMap(([template, item]: [string, any]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ template, method, op: item[method] })),
  );

/** The objects of a schema (dereferenced), each with where it is; a record's value counts, the record itself is a map. */
function objectsOf(schema: any, path = ''): { path: string; additionalProperties: unknown }[] {
  if (!schema || typeof schema !== 'object') return [];
  const here = schema.properties ? [{ path: path || '(top)', additionalProperties: schema.additionalProperties }] : [];
  const inner = [
    ...Object.entries(schema.properties ?? {}).flatMap(([name, s]) => objectsOf(s, `${path}.${name}`)),
    ...objectsOf(schema.items, `${path}[]`),
    ...(schema.additionalProperties && typeof schema.additionalProperties === 'object' && !schema.properties
      ? objectsOf(schema.additionalProperties, `${path}{}`)
      : []),
    ...(schema.anyOf ?? schema.oneOf ?? []).flatMap((s: any, i: number) => objectsOf(s, `${path}|${i}`)),
  ];
  return [...here, ...inner];
}

describe('one promise: closed rate answers, and the open objects the stability page names', () => {
  const section = async () => {
    const page = await readFile(join(ROOT, 'content/docs/stability.md'), 'utf8');
    const start = page.indexOf('## Where new fields may appear');
    return page.slice(start, page.indexOf('\n## ', start + 1));
  };
  /** The page's `/api…` paths, `<dataset>` and `<id>` made each dataset's, as the document writes them. */
  const pathsIn = (text: string) =>
    [...text.matchAll(/`(\/api[^`]*)`/g)].flatMap(([, path]) =>
      path!.includes('<dataset>')
        ? DATASETS.map((d) => path!.replace('<dataset>', d.slug).replace('<id>', `{${d.entity.param}}`))
        : [path!],
    );
  const jsonSuccesses = () =>
    operations().flatMap(({ template, method, op }) =>
      Object.entries(op.responses)
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([, r]: [string, any]) => Object.entries(r.content ?? {}))
        .filter(([type]) => type.endsWith('json'))
        .map(([, media]: [string, any]) => ({ template, method, schema: media.schema })),
    );

  it('names every path with a JSON answer once, closed or open', async () => {
    const text = await section();
    const [closedText, openText] = text.split('Every object of the other answers is open');
    const closed = pathsIn(closedText!);
    const open = pathsIn(openText!);
    const answered = [...new Set(jsonSuccesses().map((s) => s.template))];
    expect([...closed, ...open].sort()).toEqual(answered.sort());
    expect(closed.filter((p) => open.includes(p))).toEqual([]);
  });

  it('the document closes every object of the rate answers and of the error body, and closes none of the others', async () => {
    const text = await section();
    const closed = new Set(pathsIn(text.split('Every object of the other answers is open')[0]!));
    for (const { template, method, schema } of jsonSuccesses()) {
      const objects = objectsOf(schema);
      expect(objects.length, template).toBeGreaterThan(0);
      if (closed.has(template))
        expect(
          objects.filter((o) => o.additionalProperties !== false).map((o) => o.path),
          `${method} ${template}`,
        ).toEqual([]);
      else
        expect(
          objects.filter((o) => o.additionalProperties === false).map((o) => o.path),
          `${method} ${template}`,
        ).toEqual([]);
    }
    expect(objectsOf(doc.components.schemas.Error).map((o) => o.additionalProperties)).toEqual([false]);
    // The page's words for the two marks are the document's.
    expect(text).toContain('`additionalProperties: false`');
    expect(text).toContain('`additionalProperties: {}`');
    expect(objectsOf(doc.components.schemas.Health)[0]!.additionalProperties).toEqual({});
  });
});
