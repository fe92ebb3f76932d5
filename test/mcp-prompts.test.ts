/**
 * The MCP prompts over a real socket, in every protocol version, by raw requests and by the
 * official client: the tasks people bring (compare lenders for a term, check a quote, what changed
 * this week, fix or float), each argument named as the tools name it, each message naming the
 * tools to call with those arguments; a missing or wrong argument and an unknown prompt -32602.
 * The quote, break-even and change-log tools the messages name are not called here.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { rawServiceOver } from './support/core.ts';
import { NOW } from './support/constants.ts';
import { FILTERS, toolNamesOf } from './support/datasets.ts';
import { type Listening, serveService } from './support/http.ts';
import { historyDir } from './support/history.ts';
import { MODERN, modern, postMcp, sendMcp, VERSIONS } from './support/mcp.ts';

let server: Listening;
beforeAll(async () => {
  server = await serveService(await rawServiceOver(historyDir(), { mcp: { now: () => NOW } }));
});
afterAll(() => server?.close());

function rpc(version: string, method: string, params: Record<string, unknown> = {}) {
  if (version === MODERN) return sendMcp(server.url, modern(method, params));
  return postMcp(server.url, { jsonrpc: '2.0', id: 1, method, params }, { 'mcp-protocol-version': version });
}

/** A prompt's one message's text, or the JSON-RPC error. */
async function get(version: string, name: string, args?: Record<string, unknown>) {
  const { status, json } = await rpc(version, 'prompts/get', { name, ...(args ? { arguments: args } : {}) });
  expect(status).toBe(200);
  if (json.error) return { error: json.error as { code: number; message: string } };
  const { messages, description, ...rest } = json.result;
  expect(messages).toHaveLength(1);
  expect(messages[0].role).toBe('user');
  expect(messages[0].content.type).toBe('text');
  expect(description.length).toBeGreaterThan(20);
  if (version === MODERN) expect(rest).toMatchObject({ resultType: 'complete', _meta: expect.any(Object) });
  else expect(rest).toEqual({});
  return { text: messages[0].content.text as string };
}

/** A prompt's message text, which must be no error. */
async function message(version: string, name: string, args?: Record<string, unknown>): Promise<string> {
  const { text, error } = (await get(version, name, args)) as { text?: string; error?: unknown };
  expect(error).toBeUndefined();
  return text!;
}

/** The dataset whose filters include the term (found by that filter, as the prompts find it). */
const TERMED = FILTERS.find(({ filter }) => filter.name === 'termInMonths')!.dataset;
const UNTERMED = DATASETS.find((d) => !d.filters.some((f) => f.name === 'termInMonths'))!;
const ISSUERS = DATASETS.find((d) => d.entity.param === 'issuerId')!;
const underscored = (d: Dataset) => d.slug.replaceAll('-', '_');
/** How a message names a call: the tool, then its arguments as JSON. */
const calls = (tool: string, args: Record<string, string>) => `${tool} with ${JSON.stringify(args)}`;
const daysBefore = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString().slice(0, 10);

describe.each(VERSIONS)('at %s', (version) => {
  it('prompts/list: the four tasks, each argument named, described and marked required or not', async () => {
    const { json } = await rpc(version, 'prompts/list');
    const { prompts } = json.result;
    expect(prompts.map((p: { name: string }) => p.name)).toEqual([
      'compare_lenders_for_term',
      'check_quote',
      'what_changed_this_week',
      'fix_or_float',
    ]);
    const args = Object.fromEntries(
      prompts.map((p: { name: string; arguments: { name: string; required: boolean }[] }) => [
        p.name,
        p.arguments.map((a) => `${a.name}${a.required ? '!' : ''}`),
      ]),
    );
    expect(args).toEqual({
      compare_lenders_for_term: ['termInMonths!', 'dataset'],
      check_quote: ['dataset!', 'rate!', 'termInMonths', 'institutionId', 'issuerId'],
      what_changed_this_week: ['dataset', 'institutionId', 'issuerId'],
      fix_or_float: ['institutionId', 'dataset'],
    });
    for (const prompt of prompts) {
      expect(prompt.title.length, prompt.name).toBeGreaterThan(5);
      for (const a of prompt.arguments) expect(a.description.length, `${prompt.name} ${a.name}`).toBeGreaterThan(15);
    }
    if (version === MODERN) expect(json.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
  });

  it('compare_lenders_for_term: the lowest-rates and list tools of the dataset with terms, with the term', async () => {
    const text = await message(version, 'compare_lenders_for_term', { termInMonths: '18' });
    const names = toolNamesOf(TERMED);
    expect(text).toContain(calls(names.lowest, { termInMonths: '18' }));
    expect(text).toContain(calls(names.list, { termInMonths: '18' }));
    expect(text).toContain('an 18-month fixed term');
    expect(await message(version, 'compare_lenders_for_term', { termInMonths: '12', dataset: TERMED.slug })).toContain(
      calls(names.list, { termInMonths: '12' }),
    );
  });

  it.each(DATASETS.map((d) => [d.slug, d] as const))(
    'check_quote of %s: its quote tool with the rate, and the lender’s own rates when named',
    async (_, d) => {
      const quote = `check_${underscored(d)}_quote`;
      expect(await message(version, 'check_quote', { dataset: d.slug, rate: '5.49' })).toContain(
        calls(quote, { rate: '5.49' }),
      );
      const { param } = d.entity;
      const text = await message(version, 'check_quote', {
        dataset: d.slug,
        rate: '19.95',
        [param]: d.exampleEntityId,
      });
      expect(text).toContain(calls(quote, { rate: '19.95', [param]: d.exampleEntityId }));
      expect(text).toContain(calls(toolNamesOf(d).detail, { [param]: d.exampleEntityId }));
    },
  );

  it('check_quote with a term: the term passed to the quote tool', async () => {
    const text = await message(version, 'check_quote', { dataset: TERMED.slug, rate: '4.99', termInMonths: '24' });
    expect(text).toContain(calls(`check_${underscored(TERMED)}_quote`, { rate: '4.99', termInMonths: '24' }));
  });

  it('what_changed_this_week: each dataset’s change log from six days before today; one dataset, or one lender, when named', async () => {
    const since = daysBefore(6);
    const text = await message(version, 'what_changed_this_week');
    for (const d of DATASETS) expect(text).toContain(calls(`get_${underscored(d)}_changes`, { since }));
    expect(text).toContain(`from ${since} to ${NOW.toISOString().slice(0, 10)}`);
    const one = await message(version, 'what_changed_this_week', { dataset: UNTERMED.slug });
    expect(DATASETS.filter((d) => one.includes(`get_${underscored(d)}_changes`))).toEqual([UNTERMED]);
    const lender = await message(version, 'what_changed_this_week', { issuerId: ISSUERS.exampleEntityId });
    expect(lender).toContain(
      calls(`get_${underscored(ISSUERS)}_changes`, { since, issuerId: ISSUERS.exampleEntityId }),
    );
    expect(DATASETS.filter((d) => lender.includes(`get_${underscored(d)}_changes`))).toEqual(
      DATASETS.filter((d) => d.entity.param === 'issuerId'),
    );
  });

  it('fix_or_float: the lowest rates, the break-even and the change log of the dataset with terms; the lender’s rates when named', async () => {
    const base = underscored(TERMED);
    const text = await message(version, 'fix_or_float');
    expect(text).toContain(calls(toolNamesOf(TERMED).lowest, {}));
    expect(text).toContain(calls(`get_${base}_break_even`, {}));
    expect(text).toContain(calls(`get_${base}_changes`, { since: daysBefore(29) }));
    const { param } = TERMED.entity;
    const one = await message(version, 'fix_or_float', { [param]: TERMED.exampleEntityId });
    expect(one).toContain(calls(`get_${base}_break_even`, { [param]: TERMED.exampleEntityId }));
    expect(one).toContain(calls(toolNamesOf(TERMED).detail, { [param]: TERMED.exampleEntityId }));
  });

  it.each([
    ['a missing required argument', 'compare_lenders_for_term', {}, /termInMonths is required, such as "12"/],
    ['a missing required argument', 'check_quote', { dataset: TERMED.slug }, /rate is required/],
    ['no arguments at all', 'check_quote', undefined, /dataset is required.*rate is required/],
    [
      'a term not in digits',
      'compare_lenders_for_term',
      { termInMonths: 'twelve' },
      /termInMonths must be a whole number/,
    ],
    [
      'a rate not a decimal number',
      'check_quote',
      { dataset: TERMED.slug, rate: '5,49' },
      /rate must be a rate in percent/,
    ],
    ['a number, not a string', 'compare_lenders_for_term', { termInMonths: 12 }, /termInMonths must be a string/],
    ['an argument it does not take', 'what_changed_this_week', { colour: 'blue' }, /does not take "colour"/],
    ['an unknown dataset', 'check_quote', { dataset: 'nope-rates', rate: '5' }, /dataset must be one of/],
    [
      'a dataset without terms for a term prompt',
      'compare_lenders_for_term',
      { termInMonths: '12', dataset: UNTERMED.slug },
      /dataset must be one of/,
    ],
    [
      'a term the dataset does not take',
      'check_quote',
      { dataset: UNTERMED.slug, rate: '5', termInMonths: '12' },
      /has no terms: leave out termInMonths/,
    ],
    [
      'the other kind of id',
      'check_quote',
      { dataset: ISSUERS.slug, rate: '5', institutionId: 'institution:anz' },
      /give issuerId, not institutionId/,
    ],
    ['arguments not an object', 'check_quote', ['5'], /arguments must be an object/],
  ] as const)('%s (%s): -32602 naming the prompt’s arguments', async (_, name, args, message) => {
    const { error } = await get(version, name, args as Record<string, unknown> | undefined);
    expect(error?.code).toBe(-32602);
    expect(error?.message).toMatch(message);
    expect(error?.message).toMatch(new RegExp(`${name} takes `));
  });

  it('an unknown prompt, or none named: -32602', async () => {
    const unknown = await get(version, 'get_rich_quick');
    expect(unknown.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/no prompt named "get_rich_quick".*check_quote/),
    });
    const { json } = await rpc(version, 'prompts/get', {});
    expect(json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/needs params\.name/) });
  });

  it('the official client lists and gets them', async () => {
    const client =
      version === MODERN
        ? new Client({ name: 'rates-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
        : new Client({ name: 'rates-test', version: '1.0.0' }, { supportedProtocolVersions: [version] });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/v1/mcp`)));
    try {
      expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('fix_or_float');
      const { messages } = await client.getPrompt({
        name: 'compare_lenders_for_term',
        arguments: { termInMonths: '6' },
      });
      expect(messages[0]!.content).toMatchObject({
        type: 'text',
        text: expect.stringContaining(calls(toolNamesOf(TERMED).lowest, { termInMonths: '6' })),
      });
      await expect(client.getPrompt({ name: 'compare_lenders_for_term', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await client.close();
    }
  });
});

describe('the tools the prompts name', () => {
  it('are tools the server lists, for every prompt and every dataset it may name', async () => {
    const { PROMPTS } = await import('../src/mcp/prompts.ts');
    const { TOOLS } = await import('../src/mcp/tool-table.ts');
    const listed = new Set(TOOLS.map((t) => t.name));
    let named = 0;
    for (const prompt of PROMPTS) {
      for (const dataset of [undefined, ...prompt.datasets]) {
        const args = Object.fromEntries(prompt.arguments.map((a) => [a.name, a.example]));
        if (dataset) args.dataset = dataset.slug;
        const text = prompt.text(args, dataset ?? prompt.defaultDataset, '2025-03-05');
        for (const [name] of text.matchAll(/\b(?:list|get|check)_[a-z0-9_]+/g)) {
          named++;
          expect(listed.has(name), `${prompt.name} (${dataset?.slug ?? 'default'}) names ${name}`).toBe(true);
        }
      }
    }
    expect(named).toBeGreaterThan(PROMPTS.length);
  });
});
