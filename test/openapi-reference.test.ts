/**
 * The static API reference's reading of an OpenAPI document (src/openapi/static-reference.ts): types,
 * constraints, nested fields, grouping and the escaping of descriptions. The page built from the
 * real document is tested in Chromium by test/site.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  constraintsOf,
  fieldsOf,
  inlineHtml,
  staticReference,
  typeOf,
  type OpenApiDocument,
} from '../src/openapi/static-reference.ts';

describe('the static API reference', () => {
  it('writes types as short expressions', () => {
    expect(typeOf({ type: 'string', format: 'date-time' })).toBe('string (date-time)');
    expect(typeOf({ type: ['integer', 'null'] })).toBe('integer | null');
    expect(typeOf({ type: 'array', items: { $ref: '#/components/schemas/Error' } })).toBe('array of Error');
    expect(typeOf({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] })).toBe(
      'string | number | null',
    );
    expect(typeOf(undefined)).toBe('any');
  });

  it('names what a value must be beyond its type', () => {
    expect(constraintsOf({ type: 'string', pattern: '^\\d+$', minLength: 1 })).toEqual([
      'pattern ^\\d+$',
      'at least 1 characters',
    ]);
    expect(constraintsOf({ enum: ['SomeRates'] })).toEqual(['always "SomeRates"']);
    expect(constraintsOf({ enum: [6, 12], default: 6 })).toEqual(['one of 6, 12', 'default 6']);
    expect(constraintsOf({ type: 'number', minimum: 0, maximum: 40 })).toEqual(['≥ 0', '≤ 40']);
  });

  it('lists nested fields by path, arrays marked [], required as the schema says', () => {
    const fields = fieldsOf({
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id'],
            properties: {
              id: { type: 'string', description: 'Id.' },
              note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            },
          },
        },
        error: { $ref: '#/components/schemas/Error' },
      },
    });
    expect(fields.map((f) => [f.path, f.type, f.required])).toEqual([
      ['data', 'array of object', true],
      ['data[].id', 'string', true],
      ['data[].note', 'string | null', false],
      ['error', 'Error', false],
    ]);
    expect(fields.find((f) => f.path === 'error')?.ref).toBe('Error');
  });

  it('escapes descriptions, keeps code spans and links the docs paths they cite', () => {
    expect(inlineHtml('Institution id (institution:<slug>) & more')).toBe(
      'Institution id (institution:&lt;slug&gt;) &amp; more',
    );
    expect(inlineHtml('a `x<y>` b')).toBe('a <code>x&lt;y&gt;</code> b');
    expect(inlineHtml('limits (/docs/ai#limits).')).toBe('limits (<a href="/docs/ai#limits">/docs/ai#limits</a>).');
    expect(inlineHtml('`/docs/errors` stays code')).toBe('<code>/docs/errors</code> stays code');
  });

  it('groups operations by tag in the document order, with an example request from the first 200 example', () => {
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      tags: [{ name: 'B', description: 'Bee' }, { name: 'A' }],
      paths: {
        '/a': { get: { operationId: 'getA', tags: ['A'], responses: { 200: { description: 'ok' } } } },
        '/b': {
          get: {
            operationId: 'getB',
            tags: ['B'],
            responses: {
              200: {
                description: 'ok',
                content: { 'application/json': { examples: { example: { summary: 'GET /b?x=1', value: { b: 1 } } } } },
              },
            },
          },
          post: { operationId: 'postB', tags: ['B'], responses: { 202: { description: 'accepted' } } },
        },
      },
    };
    const reference = staticReference(document);
    expect(reference.operationCount).toBe(3);
    expect(reference.tags.map((t) => [t.name, t.anchor, t.operations.map((o) => o.id)])).toEqual([
      ['B', 'tag-b', ['getB', 'postB']],
      ['A', 'tag-a', ['getA']],
    ]);
    const getB = reference.tags[0]!.operations[0]!;
    expect(getB.exampleRequest).toBe('/b?x=1');
    expect(getB.responses[0]!.bodies[0]!.examples).toEqual([
      { title: 'GET /b?x=1', description: '', json: '{\n  "b": 1\n}' },
    ]);
    expect(reference.tags[0]!.operations[1]!.exampleRequest).toBeUndefined();
  });

  it('shows a response the operation names by reference (the refusals and preflights every path shares) as the component it names', () => {
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/a': {
          options: {
            operationId: 'preflightA',
            responses: {
              204: { $ref: '#/components/responses/Preflight' },
              default: { $ref: '#/components/responses/Refused' },
            },
          },
        },
      },
      components: {
        schemas: { Error: { type: 'object', properties: { code: { type: 'integer' } } } },
        responses: {
          Preflight: { description: 'The CORS preflight.' },
          Refused: {
            description: 'Refused before any endpoint.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
    };
    const [op] = staticReference(document).tags[0]!.operations;
    expect(op!.responses.map((r) => [r.status, r.description, r.bodies.map((b) => b.ref)])).toEqual([
      ['204', 'The CORS preflight.', []],
      ['default', 'Refused before any endpoint.', ['Error']],
    ]);
  });

  it('lists each response’s headers by the name it is sent with, linked to the shared header, and says of each schema whether it is open or closed', () => {
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/a': {
          get: {
            operationId: 'getA',
            responses: {
              200: {
                description: 'ok',
                headers: {
                  'Cache-Control': { $ref: '#/components/headers/CacheControlCached' },
                  'X-Own': { description: 'Inline.', schema: { type: 'string' } },
                },
              },
              304: { $ref: '#/components/responses/NotModified' },
              400: { description: 'bad' },
            },
          },
        },
        '/b': {
          get: {
            operationId: 'getB',
            responses: {
              500: {
                description: 'fault',
                headers: { 'cache-control': { $ref: '#/components/headers/CacheControlCached' } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Closed: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
          Open: { type: 'object', additionalProperties: {}, properties: { a: { type: 'string' } } },
          Word: { type: 'string', enum: ['x'] },
        },
        responses: {
          NotModified: { description: 'Not modified.', headers: { ETag: { $ref: '#/components/headers/ETag' } } },
        },
        headers: {
          CacheControlCached: { description: 'Kept a minute.', schema: { type: 'string' } },
          ETag: { schema: { type: 'string', description: 'The version.' } },
          Unused: { description: 'Never sent.', schema: { type: 'integer' } },
        },
      },
    };
    const reference = staticReference(document);
    const [a, b] = reference.tags[0]!.operations;
    expect(a!.responses.map((r) => [r.status, r.headers])).toEqual([
      ['200', [{ name: 'Cache-Control', anchor: 'header-CacheControlCached' }, { name: 'X-Own' }]],
      ['304', [{ name: 'ETag', anchor: 'header-ETag' }]],
      ['400', []],
    ]);
    expect(b!.responses[0]!.headers).toEqual([{ name: 'cache-control', anchor: 'header-CacheControlCached' }]);
    expect(reference.headers).toEqual([
      {
        key: 'CacheControlCached',
        anchor: 'header-CacheControlCached',
        names: ['Cache-Control', 'cache-control'],
        type: 'string',
        description: 'Kept a minute.',
      },
      { key: 'ETag', anchor: 'header-ETag', names: ['ETag'], type: 'string', description: 'The version.' },
      { key: 'Unused', anchor: 'header-Unused', names: [], type: 'integer', description: 'Never sent.' },
    ]);
    expect(reference.schemas.map((x) => [x.name, x.fieldsPolicy])).toEqual([
      ['Closed', 'closed'],
      ['Open', 'open'],
      ['Word', null],
    ]);
  });
});
