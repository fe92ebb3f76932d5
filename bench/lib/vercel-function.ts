/**
 * The production function beside `npm start`: Vercel's own build (`vercel build`), its API
 * function (`_api`, scripts/build-vercel-api.ts) loaded as Vercel's Node launcher loads it (test/support/vercel-output.ts: its own
 * process, its own folder only), against the `npm start` server of the same history. Reported:
 * the function's size, cold start (spawn to the first 200 of the mortgage list), and each
 * server's own CPU time per request and memory after the load.
 */
import { join } from 'node:path';
import { API_FUNCTION } from '../../src/build/on-vercel.ts';
import autocannon from 'autocannon';
import { buildWithVercel, startFunction } from '../../test/support/vercel-output.ts';
import { MCP_PATH, modern } from '../../test/support/mcp.ts';
import { cpuMicros, fmt, folderBytes, mb, median, startProductionServer } from './harness.ts';

const SITE = 'https://rates.example';
/** The goal (issue 27): the function's CPU per request at most npm start's plus this, and its cold start at most this ratio. */
const GOAL_EXTRA_CPU_MS = 0.15;
const GOAL_COLD_START_RATIO = 1.2;
const HOST = new URL(SITE).host;

interface Target {
  url: string;
  pid: number;
  stop(): unknown;
}

const REQUESTS = [
  { name: 'list', path: '/api/v1/mortgage-rates' },
  { name: 'detail', path: '/api/v1/mortgage-rates/institution:anz' },
  {
    name: 'MCP tools/call list_mortgage_rates',
    path: MCP_PATH,
    ...modern('tools/call', { name: 'list_mortgage_rates', arguments: {} }),
  },
];

/** The first 200 of the mortgage list, asked every 2 ms. */
async function firstAnswer(url: string): Promise<void> {
  for (;;) {
    const answer = await fetch(`${url}/api/v1/mortgage-rates`).catch(() => undefined);
    await answer?.body?.cancel();
    if (answer?.status === 200) return;
    await new Promise((done) => setTimeout(done, 2));
  }
}

/** Requests answered and the server's own CPU time (µs) over `seconds` of load. */
async function cpuPerRequest(target: Target, request: (typeof REQUESTS)[number], seconds: number, connections: number) {
  const options = {
    url: `${target.url}${request.path}`,
    method: ('method' in request ? request.method : 'GET') as 'GET' | 'POST',
    body: 'body' in request ? request.body : undefined,
    // The function checks MCP requests' Host against the site, as on Vercel; npm start allows loopback too.
    headers: { ...('headers' in request ? request.headers : {}), host: HOST },
    connections,
  };
  await autocannon({ ...options, duration: 1 });
  const before = await cpuMicros(target.pid);
  const result = await autocannon({ ...options, duration: seconds });
  const after = await cpuMicros(target.pid);
  const answered = result.requests.total;
  return before === undefined || after === undefined || answered === 0 ? undefined : (after - before) / answered;
}

async function rss(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export async function vercelFunctionSection(options: {
  snapshotsDir: string;
  npmStartBuildDir: string;
  seconds: number;
  connections: number;
}): Promise<string[]> {
  const build = await buildWithVercel({ snapshotsDir: options.snapshotsDir, siteUrl: SITE });
  try {
    const apiDir = join(build.outputDir, 'functions', `${API_FUNCTION}.func`);
    const renderDir = join(build.outputDir, 'functions', '_render.func');
    const middlewareDir = join(build.outputDir, 'functions', 'middleware.func');
    const startRender = async (): Promise<Target & { readyMs: number }> => {
      const started = performance.now();
      const fn = await startFunction(API_FUNCTION, apiDir, { SITE_URL: SITE }, []);
      const url = `http://127.0.0.1:${fn.port}`;
      await firstAnswer(url);
      return { url, pid: fn.pid, stop: () => fn.stop(), readyMs: performance.now() - started };
    };
    const colds: { fn: number[]; start: number[] } = { fn: [], start: [] };
    for (let i = 0; i < 5; i++) {
      const fn = await startRender();
      colds.fn.push(fn.readyMs);
      await fn.stop();
      const server = await startProductionServer(options.npmStartBuildDir);
      colds.start.push(server.coldStartMs);
      server.stop();
    }

    const fn = await startRender();
    const server = await startProductionServer(options.npmStartBuildDir);
    const rows: string[] = [];
    try {
      for (const request of REQUESTS) {
        const fnCpu: number[] = [];
        const startCpu: number[] = [];
        // Alternating rounds, so the two see the same machine.
        for (let round = 0; round < 3; round++) {
          const pair = round % 2 === 0 ? [fn, server] : [server, fn];
          for (const target of pair) {
            const cpu = await cpuPerRequest(target, request, options.seconds, options.connections);
            if (cpu !== undefined) (target === fn ? fnCpu : startCpu).push(cpu);
          }
        }
        const f = median(fnCpu);
        const s = median(startCpu);
        const verdict = f - s <= GOAL_EXTRA_CPU_MS * 1000 ? 'yes' : '**no**';
        rows.push(
          `| ${request.name} | ${fmt(f / 1000, 3)} ms | ${fmt(s / 1000, 3)} ms | ${fmt((f - s) / 1000, 3)} ms | ${verdict} |`,
        );
      }
      const memory = `function ${fmt(await rss(fn.pid))} MB, npm start ${fmt(await rss(server.pid))} MB`;
      const cold = median(colds.fn) / median(colds.start);
      return [
        `Vercel's build (\`vercel build\`, ${fmt(build.ms / 1000)} s) beside \`npm start\`, the same history: the \`${API_FUNCTION}\` function, which answers /api, loaded as Vercel's Node launcher loads it (its own process, reading only its own folder), requests sent to it directly (no router, no CDN).`,
        '',
        `Function sizes: \`${API_FUNCTION}.func\` ${mb(await folderBytes(apiDir))}, \`_render.func\` ${mb(await folderBytes(renderDir))} (limit 250 MB each), \`middleware.func\` ${mb(await folderBytes(middlewareDir))}. ` +
          `Cold start, spawn to the first 200 of the mortgage list, median of 5: function ${fmt(median(colds.fn))} ms, npm start ${fmt(median(colds.start))} ms: ${fmt(cold, 2)}× (goal ≤ ${GOAL_COLD_START_RATIO}×: ${cold <= GOAL_COLD_START_RATIO ? 'yes' : '**no**'}). ` +
          `RSS after the load below: ${memory}.`,
        '',
        `| request | function CPU per request | npm start CPU per request | difference | within ${GOAL_EXTRA_CPU_MS} ms? |`,
        '| --- | ---: | ---: | ---: | --- |',
        ...rows,
        '',
        `Each figure: the server's own CPU time (user and system, /proc) over ${options.seconds} s of load with ${options.connections} connections, divided by the requests answered; median of alternating rounds.`,
      ];
    } finally {
      await fn.stop();
      server.stop();
    }
  } finally {
    await build.remove();
  }
}
