/**
 * The NZ Rates API from TypeScript: types generated from the OpenAPI document, calls with
 * openapi-fetch. Prints one lender's mortgage rates, the lowest 1-year fixed rates, and the error
 * an unknown institution gets.
 *
 *   npm install openapi-fetch
 *   npm install --save-dev openapi-typescript typescript @types/node
 *   npx openapi-typescript https://nz-rates-service.vercel.app/openapi/json -o api.d.ts
 *   node rates.ts [base URL]     (Node 22.18 or later; or npx tsx rates.ts)
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api.d.ts';

/** The one error body every endpoint answers with (/docs/errors). */
type ApiError = components['schemas']['Error'];

const baseUrl = process.argv[2] ?? process.env.RATES_API_URL ?? 'https://nz-rates-service.vercel.app';
const client = createClient<paths>({ baseUrl });

/** `code` and `error` are stable: branch on them. `message` and `hint` are for people. */
const explain = (error: ApiError) => `${error.code} ${error.error}: ${error.message} — ${error.hint}`;

/** A path that is going away says so in headers before it does (/docs/stability). */
const warnIfDeprecated = (response: Response) => {
  for (const header of ['Deprecation', 'Sunset', 'Link']) {
    const value = response.headers.get(header);
    if (value) console.warn(`${response.url}: ${header}: ${value}`);
  }
};

// One lender, every term.
const asb = await client.GET('/api/v1/mortgage-rates/{institutionId}', {
  params: { path: { institutionId: 'institution:asb' } },
});
if (asb.error) throw new Error(explain(asb.error));
warnIfDeprecated(asb.response);
for (const institution of asb.data.data) {
  console.log(`${institution.name} mortgage rates`);
  for (const product of institution.products)
    for (const rate of product.rates)
      console.log(`  ${product.name.padEnd(24)} ${rate.term.padEnd(18)} ${rate.rate.toFixed(2).padStart(6)} %`);
}

// Every lender, 1-year fixed only: the five lowest.
const oneYear = await client.GET('/api/v1/mortgage-rates', { params: { query: { termInMonths: '12' } } });
if (oneYear.error) throw new Error(explain(oneYear.error));
warnIfDeprecated(oneYear.response);
const lowest = oneYear.data.data
  .flatMap((institution) =>
    institution.products.flatMap((product) =>
      product.rates.map((rate) => ({ lender: institution.name, product: product.name, rate: rate.rate })),
    ),
  )
  .sort((a, b) => a.rate - b.rate)
  .slice(0, 5);
console.log(`\nLowest 1-year fixed rates (changed ${oneYear.data.lastUpdated})`);
for (const { lender, product, rate } of lowest)
  console.log(`  ${rate.toFixed(2).padStart(6)} %  ${lender}, ${product}`);

// An institution the API does not know: the documented 404, typed from the OpenAPI document.
const unknown = await client.GET('/api/v1/mortgage-rates/{institutionId}', {
  params: { path: { institutionId: 'institution:no-such-bank' } },
});
if (unknown.error) console.log(`\nUnknown institution: ${explain(unknown.error)}`);
else throw new Error('expected a 404 for an unknown institution');
