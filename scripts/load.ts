/**
 * npm run load [-- --duration 60] [--connections 100]
 *
 * The production server (built from the real history) under autocannon for 60 s at 100
 * connections, over a mix of data endpoints, client errors and MCP calls. Every response is
 * checked against the status its request must get: zero errors and non-2xx only where expected.
 * Reports throughput, latency and RSS growth, and writes them to bench/RESULTS.md. Exits 1 when
 * anything unexpected happened.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { cpus } from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildSite, fmt, prependResults, ROOT, startProductionServer } from '../bench/lib/harness.ts';
import { JSON_HEADERS, MCP_PATH, modern } from '../test/support/mcp.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '100' },
    history: { type: 'string', default: resolve(ROOT, 'snapshots') },
    'no-write': { type: 'boolean', default: false },
  },
});

interface Planned {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expect: number;
}

function mix(etag: string): Planned[] {
  return [
    { name: 'mortgage list', path: '/api/v1/mortgage-rates', expect: 200 },
    { name: 'mortgage list, 1 year', path: '/api/v1/mortgage-rates?termInMonths=12', expect: 200 },
    { name: 'mortgage detail', path: '/api/v1/mortgage-rates/INSTITUTION:ANZ', expect: 200 },
    { name: 'card issuer', path: '/api/v1/credit-card-rates/issuer:amex', expect: 200 },
    { name: 'car loans, one date', path: '/api/v1/car-loan-rates/time-series?date=2025-02-24', expect: 200 },
    {
      name: 'personal loans, a range',
      path: '/api/v1/personal-loan-rates/time-series?startDate=2024-01-01&endDate=2025-12-31',
      expect: 200,
    },
    {
      name: 'mortgages, one institution over a year',
      path: '/api/v1/mortgage-rates/time-series?startDate=2024-03-01&endDate=2025-03-01&institutionId=kiwibank&termInMonths=12',
      expect: 200,
    },
    { name: 'health', path: '/api/v1/health', expect: 200 },
    { name: 'docs search', path: '/api/search?query=stale', expect: 200 },
    { name: 'conditional GET', path: '/api/v1/mortgage-rates', headers: { 'if-none-match': etag }, expect: 304 },
    { name: 'unknown institution', path: '/api/v1/mortgage-rates/institution:nobody', expect: 404 },
    { name: 'date without a snapshot', path: '/api/v1/mortgage-rates/time-series?date=2001-01-01', expect: 404 },
    { name: 'bad termInMonths', path: '/api/v1/mortgage-rates?termInMonths=abc', expect: 400 },
    {
      name: 'start after end',
      path: '/api/v1/car-loan-rates/time-series?startDate=2025-01-02&endDate=2025-01-01',
      expect: 400,
    },
    { name: 'unknown path', path: '/api/v1/nothing-here', expect: 404 },
    {
      name: 'POST to data',
      method: 'POST',
      path: '/api/v1/mortgage-rates',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      expect: 405,
    },
    {
      name: 'MCP tools/call (2026-07-28)',
      path: MCP_PATH,
      ...modern('tools/call', {
        name: 'get_mortgage_rates_by_institution',
        arguments: { institutionId: 'anz', termInMonths: '24' },
      }),
      expect: 200,
    },
    {
      name: 'MCP tools/list (2025-06-18)',
      method: 'POST',
      path: MCP_PATH,
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      expect: 200,
    },
    { name: 'MCP GET', path: MCP_PATH, expect: 405 },
  ];
}

const work = await mkdtemp(join(tmpdir(), 'rates-load-'));
let failed = false;
try {
  const tree = resolve(args.history);
  console.error('building…');
  const { buildDir } = await buildSite('load', tree);
  // The load comes from one address: let it hold every connection it opens (src/server/limits.ts).
  const server = await startProductionServer(buildDir, {
    MAX_CONNECTIONS_PER_CLIENT: String(Number(args.connections) + 10),
  });
  // The identity representation's ETag: fetch asks for gzip and br by itself, and each coding has
  // its own ETag, while the conditional GET below asks for no coding.
  const etag = (
    await fetch(`${server.url}/api/v1/mortgage-rates`, { headers: { 'accept-encoding': 'identity' } })
  ).headers.get('etag')!;
  const planned = mix(etag);
  // Warm up every request once, then take the resting memory.
  for (const p of planned)
    await (await fetch(`${server.url}${p.path}`, { method: p.method, headers: p.headers, body: p.body })).arrayBuffer();
  const restingRss = await server.rssMb();

  const tally = planned.map(() => new Map<number, number>());
  console.error(`load: ${args.connections} connections for ${args.duration} s…`);
  const result = await autocannon({
    url: server.url,
    connections: Number(args.connections),
    duration: Number(args.duration),
    requests: planned.map((p, i) => ({
      method: (p.method ?? 'GET') as 'GET',
      path: p.path,
      headers: p.headers,
      body: p.body,
      onResponse: (status: number) => void tally[i]!.set(status, (tally[i]!.get(status) ?? 0) + 1),
    })),
  });
  const rss = await server.rssMb();
  const peak = await server.peakRssMb();
  server.stop();

  const unexpected = planned.flatMap((p, i) =>
    [...tally[i]!]
      .filter(([status]) => status !== p.expect)
      .map(([status, n]) => `${p.name}: ${n} × ${status} (expected ${p.expect})`),
  );
  const answered = tally.reduce((n, t) => n + [...t.values()].reduce((a, b) => a + b, 0), 0);
  const fivexx = tally.reduce((n, t) => n + [...t].filter(([s]) => s >= 500).reduce((a, [, c]) => a + c, 0), 0);
  failed = unexpected.length > 0 || result.errors > 0 || result.timeouts > 0;

  const lines = [
    `## Load run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `\`npm run load\` · ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'} · Node ${process.version} · autocannon ${args.connections} connections × ${args.duration} s, ${planned.length} kinds of request in turn, on the same machine as the server`,
    '',
    '| requests | req/s | p50 ms | p99 ms | socket errors | timeouts | 5xx | responses with an unexpected status | RSS at rest → after → peak |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ${fmt(answered)} | ${fmt(result.requests.average)} | ${fmt(result.latency.p50)} | ${fmt(result.latency.p99)} | ${result.errors} | ${result.timeouts} | ${fivexx} | ${unexpected.length ? unexpected.join('; ') : 0} | ${fmt(restingRss)} → ${fmt(rss)} → ${fmt(peak)} MB |`,
    '',
    '| request | expected | answered |',
    '| --- | ---: | --- |',
    ...planned.map(
      (p, i) => `| ${p.name} | ${p.expect} | ${[...tally[i]!].map(([s, n]) => `${fmt(n)} × ${s}`).join(', ')} |`,
    ),
    '',
  ];
  console.log(lines.join('\n'));
  if (!args['no-write']) {
    await prependResults(lines.join('\n'), '# Benchmark results\n');
    console.error('written to bench/RESULTS.md');
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
if (failed) {
  console.error('load: unexpected answers or errors (see above)');
  process.exit(1);
}
