/**
 * npm run bench [-- --years 20 [--daily]] [--no-vercel] [--duration 10] [--connections 50]
 *
 * Builds the site from the repository's snapshot tree (`snapshots/`, or `--history <tree>`), starts the production server and a static file server that sends the identical bytes
 * from disk, drives both with autocannon over the same request mix, and reports requests/s,
 * p50/p99 latency and the ratio ours/static, plus build time, bundled data size, cold start and
 * peak RSS. With --years N it also builds a synthetic N-year history (--daily: a snapshot of every
 * dataset every day, the most a history can hold) and reports its size, build time, cold start,
 * RSS, and the first request of a fresh server for the longest range one answer may hold (time to
 * its first byte and to its last). Unless --no-vercel, it also runs Vercel's own build and reports
 * the production function beside npm start (bench/lib/vercel-function.ts), and it times the
 * lowest-rates, alerts, institutions and status endpoints one request at a time on a fresh server
 * (bench/lib/newer-endpoints.ts). Results go to stdout and bench/RESULTS.md.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { cpus, totalmem, tmpdir } from 'node:os';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ceilingScenarios } from '../bench/lib/ceiling-scenarios.ts';
import { ceilingRounds, ceilingTable } from '../bench/lib/ceilings.ts';
import { MAX_TIME_SERIES_SNAPSHOTS } from '../src/api/time-series.ts';
import {
  buildSite,
  fmt,
  mb,
  median,
  prependResults,
  ROOT,
  spawnServer,
  startProductionServer,
  timedGet,
} from '../bench/lib/harness.ts';
import { NEWER_ENDPOINTS_HEADER, newerEndpointsRows } from '../bench/lib/newer-endpoints.ts';
import { generateHistory } from '../bench/lib/synthetic-history.ts';
import { vercelFunctionSection } from '../bench/lib/vercel-function.ts';
import { DATASETS, type Dataset } from '../src/datasets.ts';
import { endpointsOf } from '../src/endpoints.ts';
import { listToolName } from '../src/mcp/rest-tools.ts';
import { MCP_PATH, modern } from '../test/support/mcp.ts';

const { values: args } = parseArgs({
  allowNegative: true,
  options: {
    years: { type: 'string' },
    daily: { type: 'boolean', default: false },
    vercel: { type: 'boolean', default: true },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    history: { type: 'string', default: resolve(ROOT, 'snapshots') },
    'no-write': { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);

/** Cold start over five fresh processes: median and worst, since one sample is noisy. */
async function coldStarts(buildDir: string): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const server = await startProductionServer(buildDir);
    times.push(server.coldStartMs);
    server.stop();
  }
  times.sort((a, b) => a - b);
  return `${fmt(times[2]!)} ms (worst ${fmt(times[4]!)})`;
}

const startStaticServer = (dir: string) =>
  spawnServer((port) => ['scripts/static-server.mjs', dir, String(port)], {}, '/0.json');

/** MCP tools/call of the dataset's list tool: the same data as the REST list row, so the two compare (floor, issue 27: MCP ≥ 0.35 × REST). */
const mcpList = (dataset: Dataset) => modern('tools/call', { name: listToolName(dataset), arguments: {} });

/** Each dataset's snapshot count in a tree, and the dataset with the most (the benchmarked one: its answers are the largest). */
async function snapshotCounts(tree: string): Promise<{ counts: Map<Dataset, number>; longest: Dataset }> {
  const counts = new Map<Dataset, number>();
  for (const dataset of DATASETS)
    counts.set(
      dataset,
      (await readdir(join(tree, dataset.slug)).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).length,
    );
  const longest = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  return { counts, longest };
}

interface Scenario {
  name: string;
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

/** Seconds of load before each measured row, not counted: every row is measured warm (JIT, caches). */
const WARM_UP = 2;

async function load(url: string, s: Scenario) {
  const options = {
    url: `${url}${s.path}`,
    method: s.method ?? 'GET',
    body: s.body,
    headers: s.headers,
    connections: CONNECTIONS,
  } as const;
  await autocannon({ ...options, duration: WARM_UP });
  const result = await autocannon({ ...options, duration: DURATION });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    bytes: result.throughput.average,
  };
}

const PAIR_SECONDS = 3;

/** REST and MCP run back to back, several times: each pair sees the same load on the machine. */
async function pairedRatio(url: string, rest: Scenario, mcp: Scenario, rounds = 5) {
  const ratios: number[] = [];
  const rests: number[] = [];
  const mcps: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const one = async (s: Scenario) =>
      (
        await autocannon({
          url: `${url}${s.path}`,
          method: s.method ?? 'GET',
          body: s.body,
          headers: s.headers,
          connections: CONNECTIONS,
          duration: PAIR_SECONDS,
        })
      ).requests.average;
    let a: number;
    let b: number;
    if (i % 2 === 0) {
      a = await one(rest);
      b = await one(mcp);
    } else {
      b = await one(mcp);
      a = await one(rest);
    }
    rests.push(a);
    mcps.push(b);
    ratios.push(b / a);
  }
  return { ratio: median(ratios), rest: median(rests), mcp: median(mcps), rounds };
}

async function main() {
  const work = await mkdtemp(join(tmpdir(), 'rates-bench-'));
  const lines: string[] = [];
  const say = (line = '') => {
    console.log(line);
    lines.push(line);
  };
  try {
    const realTree = resolve(args.history);
    console.error('building the site from the real history…');
    const real = await buildSite('bench-real', realTree);
    const server = await startProductionServer(real.buildDir);

    const { counts: realCounts, longest: benched } = await snapshotCounts(realTree);
    const { list, timeSeries } = endpointsOf(benched);
    const dates: string[] = (await (await fetch(`${server.url}${timeSeries.path}`)).json()).availableDates;
    const mcpName = `MCP tools/call ${listToolName(benched)}`;
    // MCP right after the list it is compared with, before the full-range row churns the heap.
    const scenarios: Scenario[] = [
      { name: 'list', path: list.path },
      { name: mcpName, path: MCP_PATH, ...mcpList(benched) },
      { name: 'detail', path: `${list.path}/${benched.exampleEntityId}` },
      { name: 'time series, one date', path: `${timeSeries.path}?date=${dates.at(-1)}` },
      { name: 'time series, full range', path: `${timeSeries.path}?startDate=${dates[0]}&endDate=${dates.at(-1)}` },
    ];

    // The static server's files: the exact bytes our server sends for each scenario.
    const staticDir = join(work, 'static');
    await mkdir(staticDir, { recursive: true });
    const staticPaths: string[] = [];
    for (const [i, s] of scenarios.entries()) {
      const response = await fetch(`${server.url}${s.path}`, {
        method: s.method ?? 'GET',
        body: s.body,
        headers: s.headers,
      });
      await writeFile(join(staticDir, `${i}.json`), Buffer.from(await response.arrayBuffer()));
      staticPaths.push(`/${i}.json`);
    }
    const floor = await startStaticServer(staticDir);
    const floorRss = floor.peakRssMb;

    const rows: string[] = [];
    const oursRps = new Map<string, number>();
    for (const [i, s] of scenarios.entries()) {
      console.error(`load: ${s.name}…`);
      const ours = await load(server.url, s);
      oursRps.set(s.name, ours.rps);
      const base = await load(floor.url, { name: s.name, path: staticPaths[i]! });
      const size = (await stat(join(staticDir, `${i}.json`))).size;
      rows.push(
        `| ${s.name} | ${mb(size)} | ${fmt(ours.rps)} | ${fmt(ours.p50)} | ${fmt(ours.p99)} | ${fmt(base.rps)} | ${fmt(base.p50)} | ${fmt(base.p99)} | **${fmt(ours.rps / base.rps, 2)}** | ${ours.errors + ours.non2xx} |`,
      );
    }
    console.error('load: REST list and MCP tools/call, back to back…');
    // As many pairs as a row has seconds (10 at the default), at least 5: a median of more pairs
    // moves less with the machine (pairs of 3 s swing by a quarter each way here).
    const paired = await pairedRatio(server.url, scenarios[0]!, scenarios[1]!, Math.max(5, DURATION));
    console.error('load: ours against the Node ceiling and nginx…');
    const ceilings = await ceilingTable(server, ceilingScenarios(dates.at(-1)!), work, CONNECTIONS, DURATION);
    const realRss = await server.peakRssMb();
    console.error('the newer endpoints, on a fresh server…');
    const newer = await startProductionServer(real.buildDir);
    const newerRows = await newerEndpointsRows(newer.url, benched, 'real');
    newer.stop();
    const staticRss = await floorRss();
    server.stop();
    floor.stop();

    say(`## Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    say();
    say(
      `\`npm run bench${args.years ? ` -- --years ${args.years}` : ''}\` · ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${fmt(totalmem() / 2 ** 30)} GiB · Node ${process.version} · autocannon ${CONNECTIONS} connections × ${DURATION} s per row after ${WARM_UP} s of warm-up, on the same machine as both servers`,
    );
    say();
    say(
      `Throughput, real history (${benched.label}, the longest; ours = the production server from \`npm start\`, static = sirv sending the identical bytes from disk; each server in its own process):`,
    );
    say();
    say(
      '| request | body | ours req/s | ours p50 ms | ours p99 ms | static req/s | static p50 ms | static p99 ms | ours/static | errors + non-2xx |',
    );
    say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const row of rows) say(row);
    say();
    const mcpRatio = oursRps.get(mcpName)! / oursRps.get('list')!;
    say(
      `MCP tools/call of ${listToolName(benched)} ÷ REST list (the same data): **${fmt(mcpRatio, 2)}** in the rows above; ` +
        `**${fmt(paired.ratio, 2)}** as the median of ${paired.rounds} back-to-back pairs of ${PAIR_SECONDS} s runs ` +
        `(REST ${fmt(paired.rest)} req/s, MCP ${fmt(paired.mcp)} req/s, medians), which a busy machine skews less. Floor (issue 27) ≥ 0.35.`,
    );
    say();
    say(
      `Against the ceilings: the Node ceiling is a minimal node:http server writing the very same response bytes from memory (our status, every header we sent — type, coding, CORS, caching, ETag, Vary, security headers, a request id — and the body; only its Date differs); nginx (one worker) sends the same body from disk, with status 200, type and coding; the Node ceiling sending minimal headers (type, coding, length, cache-control, ETag, request id, CORS origin) with the body shows what our other headers cost, and is the floors' reference; the last three columns are each server's own CPU time per request (user and system, from /proc; the Node ceiling's with every header), the measure a busy machine moves least, since the load generator's share of the CPU is left out. The servers run in turn per row, in ${ceilingRounds(DURATION)} rounds of 1 s with the order rotating each round; req/s are each server's median round, and each ratio the median of the rounds' ratios (each round's runs are seconds apart); "br" rows send Accept-Encoding: br. Floors (issue 27, the "floor" column): list, detail, filtered list, one-date time series and 404 ≥ 0.6 of the minimal-headers ceiling; MCP tools/call ≥ 0.35 of the REST list in the same coding. No speed work past them.`,
    );
    say();
    for (const line of ceilings) say(line);
    say();
    say(
      '| history | snapshots | build time | history files (shipped in the function) | cold start: spawn to first 200, median of 5 | peak RSS |',
    );
    say('| --- | ---: | ---: | ---: | ---: | ---: |');
    say(
      `| real (2024–2025) | ${dates.length} ${benched.label}, ${[...realCounts.values()].reduce((a, b) => a + b, 0)} in all | ${fmt(real.seconds, 1)} s | ${mb(real.historyBytes)} | ${await coldStarts(real.buildDir)} | ${fmt(realRss)} MB after the load above (static server: ${fmt(staticRss)} MB) |`,
    );

    if (args.years) {
      const years = Number(args.years);
      const kind = args.daily ? 'daily' : 'at the real pace';
      console.error(`generating a synthetic ${years}-year history (${kind})…`);
      const syntheticTree = join(work, 'synthetic');
      const counts = await generateHistory({ from: realTree, to: syntheticTree, years, daily: args.daily });
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      const synthetic = await buildSite('bench-synthetic', syntheticTree);
      // A fresh server's first request: the longest range one answer may hold, the newest snapshots.
      const big = await startProductionServer(synthetic.buildDir);
      const all: string[] = (await (await fetch(`${big.url}${timeSeries.path}`)).json()).availableDates;
      big.stop();
      const fresh = await startProductionServer(synthetic.buildDir);
      const longest = all.slice(-MAX_TIME_SERIES_SNAPSHOTS);
      const first = await timedGet(`${fresh.url}${timeSeries.path}?startDate=${longest[0]}&endDate=${longest.at(-1)}`);
      const tooLong = await timedGet(`${fresh.url}${timeSeries.path}?startDate=2000-01-01&endDate=2100-01-01`);
      const rss = await fresh.peakRssMb();
      fresh.stop();
      const newer = await startProductionServer(synthetic.buildDir);
      newerRows.push(...(await newerEndpointsRows(newer.url, benched, `synthetic ${years} years`)));
      newer.stop();
      say(
        `| synthetic ${years} years, ${kind} | ${counts[benched.slug]} ${benched.label}, ${total} in all | ${fmt(synthetic.seconds, 1)} s | ${mb(synthetic.historyBytes)} | ${await coldStarts(synthetic.buildDir)} | ${fmt(rss)} MB (after the request below) |`,
      );
      say();
      say(
        `Synthetic history, a fresh server's first request for the longest range one answer holds (the newest ${longest.length} snapshots of ${benched.label}, ${longest[0]} to ${longest.at(-1)}): ` +
          `status ${first.status}, first byte after **${fmt(first.firstByteMs)} ms**, last after ${fmt(first.totalMs)} ms, ${mb(first.bytes)} streamed. ` +
          `The whole range (${all.length} snapshots) answers ${tooLong.status} in ${fmt(tooLong.totalMs)} ms. ` +
          `The Vercel function ships the history files (${mb(synthetic.historyBytes)}) beside its code (see the Vercel row for today's function size); Vercel's limit is 250 MB uncompressed.`,
      );
    }
    say();
    say(
      `The endpoints of issue 37 (${benched.label}), one request at a time on a fresh production server: the first request of a URL works its answer out from the history and keeps it; a repeat sends what was kept. An alert feed is kept per selection and threshold, so its first-request row asks a new threshold each time. No floor is set for them (issue 37 states none).`,
    );
    say();
    for (const line of [...NEWER_ENDPOINTS_HEADER, ...newerRows]) say(line);
    say();
    if (args.vercel) {
      console.error('vercel build, and the function beside npm start…');
      for (const line of await vercelFunctionSection({
        snapshotsDir: realTree,
        npmStartBuildDir: real.buildDir,
        seconds: DURATION,
        connections: CONNECTIONS,
      }))
        say(line);
      say();
    }
    if (!args['no-write']) {
      await prependResults(lines.join('\n'), '# Benchmark results\n');
      console.error('written to bench/RESULTS.md');
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
