/**
 * A filter declares which endpoints take it and whether its values are whole numbers: a filter
 * for the list alone is a parameter of the list (REST, OpenAPI, the MCP list tool) and of nothing
 * else (the REST core refuses it elsewhere with a 400); the MCP instructions and the tool
 * descriptions name it for the list tool alone and say so; and MCP takes a JSON number for a
 * whole-number filter because the filter says so, not because of how its pattern is written.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DATASETS, filtersOf, type Dataset, type ItemFilter } from '../src/datasets.ts';
import { ApiError, errorAnswer } from '../src/api/responses.ts';
import { routeQuery } from '../src/api/routes.ts';
import { endpointsOf, operationName } from '../src/endpoints.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { instructionsFor } from '../src/mcp/instructions.ts';
import { restToolsOf } from '../src/mcp/rest-tools.ts';
import { readArguments } from '../src/mcp/tool.ts';
import { toolTableOf } from '../src/mcp/tool-table.ts';
import { ErrorBody } from '../src/schemas/errors.ts';
import { SITE } from './support/constants.ts';

/**
 * A dataset with one more filter, as a contributor would add it (under a slug of its own, with the
 * base's explorer facts, which a table entry comes with).
 */
function withFilter(base: Dataset, filter: ItemFilter, slug: string): Dataset {
  (EXPLORER as Record<string, unknown>)[slug] = EXPLORER[base.slug];
  return { ...base, slug, filters: [...base.filters, filter] } as unknown as Dataset;
}

const minRate: ItemFilter = {
  name: 'minimumRate',
  schema: z.string().regex(/^[0-9]+(?:\.[0-9]+)?$/),
  description: 'Only rates at or above this percentage.',
  example: '5',
  only: ['list'],
  item: (item) => item,
};

describe.each(DATASETS.map((d) => [d.slug, d] as const))('a filter for one endpoint, added to %s', (slug, base) => {
  const dataset = withFilter(base, minRate, `${slug}-list-filter`);
  const endpoints = endpointsOf(dataset);
  /** The dataset's own filters that take whole numbers. */
  const wholeNumbers = base.filters.filter((f) => f.wholeNumber);

  it('is a parameter of the list only', () => {
    expect(filtersOf(dataset, 'list').map((f) => f.name)).toContain('minimumRate');
    expect(Object.keys(endpoints.list.query.shape)).toContain('minimumRate');
    expect(Object.keys(endpoints.detail.query.shape)).not.toContain('minimumRate');
    expect(Object.keys(endpoints.timeSeries.query.shape)).not.toContain('minimumRate');
    expect(Object.keys(endpoints.lowest.query.shape)).not.toContain('minimumRate');
    expect(Object.keys(endpoints.quote.query.shape)).not.toContain('minimumRate');
    expect(endpoints.detail.query.safeParse({ minimumRate: '5' }).success).toBe(false);
    expect(endpoints.list.query.safeParse({ minimumRate: '5' }).success).toBe(true);
  });

  it('is refused by the REST core everywhere else, with the 400 /docs/errors#invalid_request documents', () => {
    const query = new URLSearchParams({ minimumRate: '5' });
    expect(routeQuery({ kind: 'data', endpoint: endpoints.list }, query)).toEqual({ minimumRate: '5' });
    for (const endpoint of [endpoints.detail, endpoints.timeSeries, endpoints.lowest, endpoints.quote]) {
      let refused: unknown;
      try {
        routeQuery({ kind: 'data', endpoint }, query);
      } catch (error) {
        refused = error;
      }
      expect(refused, endpoint.kind).toBeInstanceOf(ApiError);
      const answer = errorAnswer(refused as ApiError, SITE);
      const body = JSON.parse(answer.body as string);
      expect(answer.status).toBe(400);
      expect(ErrorBody.parse(body)).toEqual(body);
      expect(body).toMatchObject({ error: 'invalid_request', message: 'Invalid request parameters' });
      expect(body.hint).toContain('This endpoint does not use "minimumRate".');
    }
  });

  /** The dataset table with this dataset's entry replaced by the one with the extra filter. */
  const table = DATASETS.map((d) => (d === base ? dataset : d));
  const list = operationName(endpoints.list);

  it('is named in the MCP instructions for the list tool alone, which say so', () => {
    const text = instructionsFor(table);
    expect(text).toContain(
      `Of the ${base.label} tools, only ${list} takes minimumRate ("5"): Only rates at or above this percentage.`,
    );
    expect(text.match(/minimumRate/g)).toHaveLength(1);
    // The dataset's own filters, which every endpoint takes, are still named for all its tools.
    for (const f of base.filters as readonly ItemFilter[])
      if (!f.only) expect(text).toContain(`The ${base.label} tools take ${f.name} ("${f.example}"`);
    // Taken by two of the four: both named, and only they.
    const two = withFilter(base, { ...minRate, only: ['list', 'detail'] }, `${slug}-two-filter`);
    const [twoList, twoDetail] = restToolsOf(two).map((t) => t.name);
    expect(instructionsFor(DATASETS.map((d) => (d === base ? two : d)))).toContain(
      `Of the ${base.label} tools, only ${twoList} and ${twoDetail} take minimumRate ("5"):`,
    );
  });

  it('is named in the tool table for the list tool alone, whose description says so', () => {
    const tools = toolTableOf(table);
    const naming = tools.filter((t) => JSON.stringify([t.description, t.inputSchema]).includes('minimumRate'));
    expect(naming.map((t) => t.name)).toEqual([list]);
    expect(naming[0]!.description).toContain(
      `Optional minimumRate (${list} only): Only rates at or above this percentage.`,
    );
    // A filter every tool takes names no tool as its only one.
    for (const t of tools) expect(t.description).not.toMatch(/Optional (?!minimumRate)\w+ \([^)]* only\)/);
  });

  it('is an argument and a sentence of the MCP list tool only', () => {
    const [list, detail, series, lowest] = restToolsOf(dataset);
    expect(Object.keys(list!.inputSchema.properties ?? {})).toContain('minimumRate');
    expect(list!.description).toContain('minimumRate');
    for (const tool of [detail!, series!, lowest!]) {
      expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain('minimumRate');
      expect(tool.description).not.toContain('minimumRate');
    }
  });

  it('takes a JSON number only where the filter says its values are whole numbers', () => {
    const [list] = restToolsOf(dataset);
    expect([...list!.digits].sort()).toEqual(wholeNumbers.map((f) => f.name).sort());
    for (const filter of wholeNumbers)
      expect(readArguments(list!, { [filter.name]: Number(filter.example) })).toEqual({
        values: { [filter.name]: filter.example },
      });
    expect('problems' in readArguments(list!, { minimumRate: 5 })).toBe(true);
    const whole = withFilter(
      base,
      { ...minRate, name: 'minimumMonths', wholeNumber: true, schema: z.string() },
      `${slug}-whole`,
    );
    const [wholeList] = restToolsOf(whole);
    expect([...wholeList!.digits].sort()).toEqual(['minimumMonths', ...wholeNumbers.map((f) => f.name)].sort());
    expect(readArguments(wholeList!, { minimumMonths: 6 })).toEqual({ values: { minimumMonths: '6' } });
  });
});
