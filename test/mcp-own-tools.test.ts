/**
 * A tool of its own kind (src/mcp/tool.ts `call`), as a newcomer adds one to OWN_TOOLS: listed
 * after the twins, its result as text and structuredContent, a REST error it meets as an error
 * result, an argument problem named, and a failure as -32603 with nothing of it in the answer.
 * The table here holds two such tools beside the real ones.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Listening, serveService } from './support/http.ts';
import { modern, sendMcp } from './support/mcp.ts';

vi.mock('../src/mcp/tool-table.ts', async () => {
  const { z } = await import('zod');
  const { DATASETS } = await import('../src/datasets.ts');
  const { endpointsOf, entityIdParam } = await import('../src/endpoints.ts');
  const { restToolsOf } = await import('../src/mcp/rest-tools.ts');
  const { defineTool } = await import('../src/mcp/tool.ts');
  const dataset = DATASETS[0];
  const own = [
    defineTool({
      name: 'name_of_lender',
      title: 'Name of a lender',
      description: `The name of one ${dataset.entity.kind}.`,
      input: z.strictObject({ id: entityIdParam(dataset) }),
      output: z.object({ name: z.string() }),
      example: { id: dataset.exampleEntityId },
      async call(args, { json }) {
        const body = (await json(`${endpointsOf(dataset).list.path}/${encodeURIComponent(args.id!)}`)) as {
          data: { name: string }[];
        };
        return { name: body.data[0]!.name };
      },
    }),
    defineTool({
      name: 'always_fails',
      title: 'Always fails',
      description: 'Throws.',
      input: z.strictObject({}),
      output: z.object({}),
      example: {},
      async call() {
        throw new Error('secret detail');
      },
    }),
  ];
  const TOOLS = [...DATASETS.flatMap((d) => restToolsOf(d)), ...own];
  return { OWN_TOOLS: own, TOOLS, TOOL_BY_NAME: new Map(TOOLS.map((t) => [t.name, t])) };
});

const { DATASETS } = await import('../src/datasets.ts');
const { rawServiceOver } = await import('./support/core.ts');
const { historyDir } = await import('./support/history.ts');

let server: Listening;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir()));
});
afterAll(() => server.close());

const call = async (name: string, args: Record<string, unknown>) =>
  (await sendMcp(server.url, modern('tools/call', { name, arguments: args }))).json;

describe('a tool of its own kind', () => {
  it('is listed after the twins, with its schemas', async () => {
    const { result } = (await sendMcp(server.url, modern('tools/list'))).json;
    const names = result.tools.map((t: { name: string }) => t.name);
    expect(names.slice(-2)).toEqual(['name_of_lender', 'always_fails']);
    const tool = result.tools.find((t: { name: string }) => t.name === 'name_of_lender');
    expect(tool.inputSchema.required).toEqual(['id']);
    expect(tool.outputSchema.properties.name.type).toBe('string');
  });

  it('answers with its own result, as text and structuredContent', async () => {
    const { result } = await call('name_of_lender', { id: DATASETS[0].exampleEntityId });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.name).toMatch(/\S/);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  });

  it('a REST error it meets is its error result, in the documented body', async () => {
    const { result } = await call('name_of_lender', { id: `${DATASETS[0].entity.prefix}:nobody` });
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text).error).toBe(`${DATASETS[0].entity.kind}_not_found`);
  });

  it('a missing argument is named, with the example', async () => {
    const { result } = await call('name_of_lender', {});
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text).hint).toContain(
      `id is required such as "${DATASETS[0].exampleEntityId}"`,
    );
  });

  it('a failure is -32603, and nothing of it reaches the caller', async () => {
    const answer = await call('always_fails', {});
    expect(answer.error.code).toBe(-32603);
    expect(JSON.stringify(answer)).not.toContain('secret detail');
  });
});
