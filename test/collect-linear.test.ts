/**
 * Reading a page takes time in proportion to its bytes, whatever its spans and nesting. Each worst
 * shape below is served at two sizes, the second eight times the first, and collected over a real
 * socket after a warm-up: the larger may cost at most twice eight times the CPU time (the margin
 * absorbs the garbage collector and a loaded machine; work that grows with the square of the page
 * costs 64 times as much, and did: a name cell spanning every row was walked again in each, 19
 * minutes for a 4 MiB page).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { collect } from '../src/collect/collect.ts';
import { DATASETS, type DatasetSlug } from '../src/datasets.ts';
import { LoanInstitution, MortgageInstitution } from '../src/schemas/rates.ts';
import { FileStatusStore } from '../src/status/status-store.ts';
import { headerTexts } from './fixtures/recorded-headers.ts';
import { datasetOfSchema, datasetsOfSchema } from './support/datasets.ts';
import { tempDir, treeOfNewest } from './support/history.ts';
import { startSourceServer, type SourceServer } from './support/source-server.ts';

let server: SourceServer;
beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(() => server.close());

const SIZES = [400, 3_200] as const;
/** A loan page and the page of termed rates: the two layouts the worst shapes are written in. */
const LOANS = datasetsOfSchema(LoanInstitution)[0]!.slug;
const TERMED = datasetOfSchema(MortgageInstitution).slug;
const GROWTH = SIZES[1] / SIZES[0];

const page = (title: string, kind: 'mortgage' | 'loan', rows: string) =>
  `<!DOCTYPE html><html><head><title>${title} | interest.co.nz</title></head><body><h1>${title}</h1><h2 class="pane-title">Banks</h2><table class="interest_financial_datatable"><thead><tr>${headerTexts(
    kind,
  )
    .map((h) => `<th>${h}</th>`)
    .join('')}</tr></thead><tbody>${rows}</tbody></table></body></html>`;

/** The worst shapes: each a page of `n` rows. */
const SHAPES: Record<string, { slug: DatasetSlug; html: (n: number) => string }> = {
  'a name cell spanning every row, heavy with markup that holds no text': {
    slug: LOANS,
    html: (n) => {
      const name = `<td rowspan="${n}">${'<span>'.repeat(100)}Big Lender${'</span>'.repeat(100)}${'<i></i>'.repeat(n * 20)}</td>`;
      const rows = Array.from(
        { length: n },
        (_, i) =>
          `<tr>${i === 0 ? name : ''}<td>Loan ${i}</td><td>Secured</td><td>From</td><td>${(5 + (i % 300) / 100).toFixed(2)}</td></tr>`,
      );
      return page('Personal loans', 'loan', rows.join('\n'));
    },
  },
  'one lender with a product per row, each with an 18-month line': {
    slug: TERMED,
    html: (n) => {
      const rows = Array.from({ length: n / 2 }, (_, i) => {
        const lead = i === 0 ? '<td>Big Lender</td>' : '<td></td>';
        const values = Array.from({ length: 7 }, (_, k) => `<td>${(5 + ((i + k) % 300) / 100).toFixed(2)}</td>`).join(
          '',
        );
        return `<tr>${lead}<td>Product ${i}</td>${values}</tr><tr><td></td><td>Product ${i}</td><td class="special-line" colspan="7">18 months <span>5.55</span></td></tr>`;
      });
      return page('Home loan rates', 'mortgage', rows.join('\n'));
    },
  },
  'every cell nested to near the depth limit': {
    slug: LOANS,
    html: (n) => {
      const deep = (text: string) => `${'<b>'.repeat(120)}${text}${'</b>'.repeat(120)}`;
      const rows = Array.from(
        { length: n / 8 },
        (_, i) =>
          `<tr><td>${i === 0 ? deep('Big Lender') : ''}</td><td>${deep(`Loan ${i}`)}</td><td>${deep('Secured')}</td><td>${deep('From')}</td><td>${deep((5 + (i % 300) / 100).toFixed(2))}</td></tr>`,
      );
      return page('Personal loans', 'loan', rows.join('\n'));
    },
  },
};

/**
 * The CPU time this test's process has used, in milliseconds: what the work costs, which a loaded
 * machine (other test files building the site beside it) stretches far less than the wall clock.
 */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The cheaper of two collections of `html` as the dataset's page, in CPU milliseconds. */
async function timeCollect(slug: DatasetSlug, html: string): Promise<number> {
  server.serve(DATASETS.find((d) => d.slug === slug)!.sourcePath, { page: html });
  const times: number[] = [];
  for (let i = 0; i < 2; i++) {
    const [snapshotsDir, statusDir] = [await treeOfNewest(), await tempDir('rates-status-')];
    const started = cpuMs();
    await collect({
      baseUrl: server.url,
      snapshotsDir,
      status: new FileStatusStore(statusDir),
      datasets: [slug],
      fetch: { timeoutMs: 60_000, retries: 0, retryDelayMs: 1 },
    });
    times.push(cpuMs() - started);
  }
  return Math.min(...times);
}

it.each(Object.entries(SHAPES))(
  '%s: eight times the rows cost at most twice eight times the CPU time',
  async (_, shape) => {
    const [small, large] = await Promise.all(SIZES.map(async (n) => shape.html(n)));
    expect(Buffer.byteLength(large!)).toBeLessThan(4 * 1024 * 1024); // within the page size the fetch accepts
    await timeCollect(shape.slug, small!); // warm-up: the first run also compiles the reader
    const times = [await timeCollect(shape.slug, small!), await timeCollect(shape.slug, large!)];
    expect(times[1]! / times[0]!, `${times.map((t) => t.toFixed(0)).join(' → ')} CPU ms`).toBeLessThan(GROWTH * 2);
  },
  120_000,
);
