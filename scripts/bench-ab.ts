/**
 * npx tsx scripts/bench-ab.ts --a <checkout> [--seconds 3] [--rounds 5]
 *
 * A/B of two builds of `npm start`: A is another checkout, built (`npm run build` there), B this
 * one's `dist`. Each request kind runs against A and B in alternating rounds, and the figure is
 * each server's own CPU time per request (user and system, from /proc), the measure a shared
 * machine moves least; the median of the rounds. Prints a Markdown table for bench/RESULTS.md.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuMicros, fmt, median, spawnServer, type ServerProcess } from '../bench/lib/harness.ts';
import { MCP_PATH, modern } from '../test/support/mcp.ts';

const { values } = parseArgs({
  options: { a: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' } },
});
if (!values.a) throw new Error('--a <checkout>: the other checkout, built');
const SECONDS = Number(values.seconds ?? 3);
const ROUNDS = Number(values.rounds ?? 5);
const CONNECTIONS = 50;

interface Kind {
  name: string;
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}
const KINDS: Kind[] = [
  { name: 'list', path: '/api/v1/mortgage-rates' },
  { name: 'detail', path: '/api/v1/mortgage-rates/institution:anz' },
  { name: 'list termInMonths=12', path: '/api/v1/mortgage-rates?termInMonths=12' },
  { name: 'unknown institution (404)', path: '/api/v1/mortgage-rates/institution:nowhere' },
  {
    name: 'MCP tools/call list',
    path: MCP_PATH,
    ...modern('tools/call', { name: 'list_mortgage_rates', arguments: {} }),
  },
];
const CODINGS: { label: string; headers: Record<string, string> }[] = [
  { label: 'none', headers: {} },
  { label: 'br', headers: { 'accept-encoding': 'br' } },
];

const start = (checkout: string): Promise<ServerProcess> =>
  spawnServer(
    () => [resolve(checkout, 'scripts/serve.mjs')],
    { BUILD_DIR: resolve(checkout, 'dist') },
    '/api/v1/mortgage-rates',
  );

async function cpuPerRequest(server: ServerProcess, kind: Kind, headers: Record<string, string>): Promise<number> {
  const options = {
    url: `${server.url}${kind.path}`,
    method: kind.method ?? 'GET',
    body: kind.body,
    headers: { ...kind.headers, ...headers },
    connections: CONNECTIONS,
  };
  await autocannon({ ...options, duration: 1 });
  const before = (await cpuMicros(server.pid))!;
  const result = await autocannon({ ...options, duration: SECONDS });
  return ((await cpuMicros(server.pid))! - before) / result.requests.total;
}

const a = await start(values.a);
const b = await start(resolve('.'));
const rows: string[] = [];
try {
  for (const kind of KINDS) {
    for (const coding of CODINGS) {
      const cpu: Record<'a' | 'b', number[]> = { a: [], b: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 ? (['b', 'a'] as const) : (['a', 'b'] as const);
        for (const who of order) {
          console.error(`ab: ${kind.name} (${coding.label}) — ${who}, round ${round + 1} of ${ROUNDS}…`);
          cpu[who].push(await cpuPerRequest(who === 'a' ? a : b, kind, coding.headers));
        }
      }
      const [ma, mb] = [median(cpu.a), median(cpu.b)];
      rows.push(`| ${kind.name} | ${coding.label} | ${fmt(ma)} | ${fmt(mb)} | ${fmt(mb - ma)} |`);
    }
  }
} finally {
  a.stop();
  b.stop();
}
console.log(
  [
    '| request | coding | A: server CPU µs/request | B: server CPU µs/request | B − A |',
    '| --- | --- | ---: | ---: | ---: |',
    ...rows,
  ].join('\n'),
);
