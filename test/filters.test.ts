/**
 * A filter declares which endpoints take it and whether its values are whole numbers: a filter
 * for the list alone is a parameter of the list (REST, OpenAPI, the MCP list tool) and of nothing
 * else, and MCP takes a JSON number for a whole-number filter because the filter says so, not
 * because of how its pattern is written.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DATASETS, filtersOf, type Dataset, type ItemFilter } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { EXPLORER } from '../src/explorer/definitions.ts';
import { restToolsOf } from '../src/mcp/rest-tools.ts';
import { readArguments } from '../src/mcp/tool.ts';

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
    expect(endpoints.detail.query.safeParse({ minimumRate: '5' }).success).toBe(false);
    expect(endpoints.list.query.safeParse({ minimumRate: '5' }).success).toBe(true);
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
