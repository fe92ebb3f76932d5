/**
 * `GET /api/v1/<dataset>/quote?rate=6.1&termInMonths=12` (loans and cards: `measure=`; a lender:
 * `institutionId` / `issuerId`): where a rate someone was offered stands among the offers open to
 * anyone of one measure in the newest snapshot, by the explorer's rules (src/explorer/quote.ts),
 * with, for a named lender, that lender's own offers of the measure. The measure is named as the
 * alerts feeds name it (measureOf), the lender found as /lowest finds it (namedEntity). Worked out
 * once per URL and kept, like /lowest; its ETag is the snapshot's version and the normalized query.
 */
import type { Dataset } from '../datasets.ts';
import { type DataEndpoint, endpointsOf } from '../endpoints.ts';
import { bestRateOf } from '../explorer/best.ts';
import { EXPLORER } from '../explorer/definitions.ts';
import { snapshotsOf } from '../explorer/history.ts';
import { quoteOf, quoteTypeOf } from '../explorer/quote.ts';
import { exampleMeasureQuery, measureOf } from './alerts.ts';
import { cachedHead, envelopeHead, readyAnswer } from './bodies.ts';
import { withData, type RequestContext } from './context.ts';
import { namedEntity } from './lowest.ts';

export function getQuote(endpoint: DataEndpoint, query: Record<string, string | undefined>, ctx: RequestContext) {
  const { dataset } = endpoint;
  // The query's schema has checked the rate (a decimal number from 0 to MAX_QUOTED_RATE); the measure is checked here.
  const measure = measureOf(dataset, query);
  const rate = Number(query.rate);
  const history = withData(dataset, ctx.store.newest(dataset.slug));
  const entity = namedEntity(endpoint, query, history);
  // One key however the rate is written (6.1, 6.10) and the measure named (termInMonths=12, measure=12).
  const key = `quote/${measure}/${rate}/${entity ?? ''}`;
  const ready = cachedHead(history, key, () => {
    const snapshot = snapshotsOf(dataset, history.compiled).at(-1)!;
    const listed = history.compiled.snapshots[history.latest]!;
    const lender = entity === undefined ? undefined : snapshot.data.find((_, i) => listed[i] === entity);
    const quote = quoteOf(dataset, snapshot.data, measure, rate, lender);
    return envelopeHead(quoteTypeOf(dataset), JSON.stringify(quote), history.lastUpdated(history.latest));
  });
  return readyAnswer(ready, ctx.now);
}

/**
 * The requests the OpenAPI document and the reference pages show (answered by the real core at
 * build time): the docs' example measure (its first compared one) at half a point worse than its
 * best open rate now (above it for a rate paid, below it for one earned: src/explorer/best.ts), so
 * that offers stand on both sides of it, alone and with the lender that makes the best; then the
 * 400s and the 404.
 */
export function quoteExampleRequests(
  dataset: Dataset,
  lowest: readonly { measure: string; rate: number; offers: readonly Record<string, unknown>[] }[],
): string[] {
  const { path } = endpointsOf(dataset).quote;
  const measure = exampleMeasureQuery(dataset);
  const { param, prefix } = dataset.entity;
  const key = new URLSearchParams(measure).get('measure') ?? new URLSearchParams(measure).get('termInMonths');
  const best = lowest.find((m) => m.measure === key);
  const worse = key !== null && !bestRateOf(EXPLORER[dataset.slug], key).paid ? -50 : 50;
  const rate = best ? String(Math.max(0, Math.round(best.rate * 100 + worse)) / 100) : '6';
  const lender = best?.offers[0]?.[param];
  return [
    `${path}?${measure}&rate=${rate}`,
    ...(typeof lender === 'string' ? [`${path}?${measure}&rate=${rate}&${param}=${lender}`] : []),
    `${path}?${measure}`,
    `${path}?${measure}&rate=six`,
    `${path}?${measure}&rate=101`,
    `${path}?measure=nope&rate=${rate}`,
    `${path}?${measure}&rate=${rate}&${param}=${prefix}:no-such-lender`,
  ];
}
