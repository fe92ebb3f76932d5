/**
 * Attacks on the MCP endpoint of the production server (`npm start`'s build, real sockets):
 * amplification, where a small request asks for a large answer — header-less batches of full-range
 * time series, single calls that ask for megabytes, many at once — at and past the limits of
 * src/mcp/protocol.ts (listed on the docs site, /docs/ai#limits). After each:
 * the process is alive, health answers within 1 s (also while the attack runs), and memory comes
 * back to within RSS_MARGIN_MB of where it was. The figures are printed (bench/RESULTS.md keeps a
 * run of them).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/mcp/protocol.ts';
import { rssMb } from './support/attack-probe.ts';
import { buildAndServe, type ProductionSite } from './support/production.ts';
import { largestDataset, toolNamesOf } from './support/datasets.ts';
import { historyDir, tempDir } from './support/history.ts';
import { nodeRequest } from './support/http.ts';
import { JSON_HEADERS, MCP_PATH, META, toolCall } from './support/mcp.ts';

/**
 * How far above its resting size the server's RSS may stay once an attack is over. The heap itself
 * goes back to its resting size; the allocator keeps part of the pages it grew to (measured in
 * process: 16 MB of heap in use before and after, RSS +125 MB after a forced GC; against the
 * server, +260 MB after the heaviest attack).
 */
const RSS_MARGIN_MB = 350;
/** The most the server's RSS may reach during any attack. */
const RSS_CEILING_MB = 1024;
const HEALTH_LIMIT_MS = 1000;

let server: ProductionSite;
let restingMb = 0;
/** The tools of the dataset with the longest history: its full range is megabytes. */
let SERIES: string;
let LIST: string;
const figures: string[] = [];

beforeAll(async () => {
  ({ series: SERIES, list: LIST } = toolNamesOf(await largestDataset(historyDir())));
  server = await buildAndServe({
    name: 'attack-mcp',
    snapshotsDir: historyDir(),
    statusDir: await tempDir('rates-attack-status-'),
  });
  // Warm: the MCP module, the catalog, the whole history and the JIT, so "resting" is a server that has served everything once.
  for (let i = 0; i < 20; i++) {
    await mcp(call(SERIES, { startDate: '2024-10-01', endDate: '2024-10-20' }));
    await mcp(call(LIST, {}));
  }
  restingMb = (await settle()).mb;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  console.log(
    ['MCP attacks against the production server:', `resting RSS ${restingMb.toFixed(0)} MB`, ...figures].join('\n'),
  );
});

const FULL = { startDate: '2000-01-01', endDate: '2100-01-01' };
let nextId = 1;
const call = (name: string, args: Record<string, string>) => toolCall(nextId++, name, args);

/** One POST on its own connection; a header-less body is protocol 2025-03-26 (batches allowed). */
async function mcp(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: number; text: string; ms: number }> {
  const answer = await nodeRequest(`${server.url}${MCP_PATH}`, {
    method: 'POST',
    agent: false,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
    timeoutMs: 60_000,
  });
  return { status: answer.status, bytes: answer.body.length, text: answer.text, ms: answer.ms };
}

async function healthMs(): Promise<number> {
  const { status, ms } = await nodeRequest(`${server.url}/api/v1/health`, { agent: false, timeoutMs: 10_000 });
  if (status !== 200) throw new Error(`health ${status}`);
  return ms;
}

/**
 * Health polled every 100 ms from a process of its own, so what it measures is the server's
 * latency, not this process's (which is busy parsing the attack's answers).
 */
async function healthProber(): Promise<{ stop(): Promise<number[]> }> {
  const code = `
    const { get } = require('node:http');
    let running = true;
    process.on('SIGTERM', () => { running = false; });
    (async () => {
      while (running) {
        const started = performance.now();
        const ms = await new Promise((done) => {
          const req = get(process.argv[1] + '/api/v1/health', { agent: false }, (res) => { res.resume(); res.on('end', () => done(res.statusCode === 200 ? performance.now() - started : 1e9)); });
          req.setTimeout(10000, () => { req.destroy(); done(1e9); });
          req.on('error', () => done(1e9));
        });
        process.stdout.write(ms.toFixed(1) + '\\n');
        await new Promise((r) => setTimeout(r, 100));
      }
      process.exit(0);
    })();`;
  const child = spawn(process.execPath, ['-e', code, server.url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let started: () => void;
  const first = new Promise<void>((done) => (started = done));
  child.stdout!.on('data', (chunk) => {
    out += chunk;
    started();
  });
  await first; // the prober is polling before the attack starts
  return {
    stop: async () => {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
      return out.split('\n').filter(Boolean).map(Number);
    },
  };
}

/** How long to wait for the server to give memory back after an attack (V8 shrinks its heap when idle). */
const SETTLE_MS = 10_000;

/** Wait until the server's memory is back within the margin, or stops falling; its RSS then, and the wait. */
async function settle(): Promise<{ mb: number; ms: number }> {
  const started = performance.now();
  let last = rssMb(server.pid);
  let flat = 0;
  while (performance.now() - started < SETTLE_MS) {
    if (restingMb && last < restingMb + RSS_MARGIN_MB / 2) break;
    await new Promise((r) => setTimeout(r, 250));
    const now = rssMb(server.pid);
    flat = now > last - 1 ? flat + 1 : 0;
    last = now;
    if (!restingMb && flat >= 4) break;
  }
  return { mb: last, ms: performance.now() - started };
}

/**
 * Run an attack while health is polled and memory sampled; then check the server is alive,
 * answers health in time, and gives its memory back.
 */
async function underAttack<T>(name: string, attack: () => Promise<T>): Promise<T> {
  const before = rssMb(server.pid);
  let peak = before;
  let running = true;
  const health: number[] = [];
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, rssMb(server.pid));
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  const prober = await healthProber();
  const started = performance.now();
  const result = await attack();
  const took = performance.now() - started;
  running = false;
  await sampler;
  health.push(...(await prober.stop()));
  const { mb: after, ms: settled } = await settle();
  const healthAfter = await healthMs();
  const worst = Math.max(...health, healthAfter);
  figures.push(
    `| ${name} | ${(took / 1000).toFixed(1)} s | ${before.toFixed(0)} / ${peak.toFixed(0)} / ${after.toFixed(0)} MB (${(settled / 1000).toFixed(1)} s) | ${health.length} probes, worst ${worst.toFixed(0)} ms, after ${healthAfter.toFixed(0)} ms |`,
  );
  expect(server.alive(), `the server died:\n${server.output().slice(-2000)}`).toBe(true);
  expect(worst, `health latency during ${name}`).toBeLessThan(HEALTH_LIMIT_MS);
  expect(peak, `peak RSS during ${name}`).toBeLessThan(RSS_CEILING_MB);
  expect(after, `RSS after ${name} (resting ${restingMb.toFixed(0)} MB)`).toBeLessThan(restingMb + RSS_MARGIN_MB);
  return result;
}

const parallel = <T>(n: number, task: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => task(i)));

/** The range that, by the tool's own description, still fits in one result. */
async function fittingRange(): Promise<Record<string, string>> {
  const list = await mcp(
    { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: META } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  );
  const tool = JSON.parse(list.text).result.tools.find((t: { name: string }) => t.name === SERIES);
  const days = Number(/range of about (\d+) days/.exec(tool.description)![1]);
  const last = /snapshots \(\S+ to (\S+)\)/.exec(tool.description)![1]!;
  return { startDate: new Date(Date.parse(last) - (days - 1) * 86_400_000).toISOString().slice(0, 10), endDate: last };
}

describe('MCP attacks on the production server', () => {
  it('one full-range tools/call (370 bytes): an isError result of about 1 KB, at once', async () => {
    const reply = await underAttack('1 full-range call', () =>
      mcp(call(SERIES, FULL), { 'mcp-protocol-version': '2025-11-25' }),
    );
    expect(reply.status).toBe(200);
    expect(reply.bytes).toBeLessThan(2048);
    expect(JSON.parse(reply.text).result).toMatchObject({ isError: true });
    expect(reply.ms).toBeLessThan(1000);
  });

  it('ten clients, each sending ten full-range calls: every one refused small, health stays fast', async () => {
    const replies = await underAttack('10 clients × 10 full-range calls', () =>
      parallel(10, async () => {
        const out = [];
        for (let i = 0; i < 10; i++) out.push(await mcp(call(SERIES, FULL), { 'mcp-protocol-version': '2025-06-18' }));
        return out;
      }),
    );
    for (const reply of replies.flat()) {
      expect(reply.bytes).toBeLessThan(2048);
      expect(JSON.parse(reply.text).result.isError).toBe(true);
    }
  });

  it('ten clients, each sending five calls just under the result limit', async () => {
    const range = await fittingRange();
    const replies = await underAttack('10 clients × 5 calls at the result limit', () =>
      parallel(10, async () => {
        const out = [];
        for (let i = 0; i < 5; i++) out.push(await mcp(call(SERIES, range), { 'mcp-protocol-version': '2025-06-18' }));
        return out;
      }),
    );
    for (const reply of replies.flat()) {
      const { result } = JSON.parse(reply.text);
      expect(result.isError).toBeUndefined();
      expect(Buffer.byteLength(result.content[0].text)).toBeLessThanOrEqual(LIMITS.resultBytes);
    }
  });

  it.each([
    [LIMITS.batchToolCalls, 'at the limit'],
    [100, 'past it (17 KB, which once never answered)'],
  ])('a header-less batch of %i full-range calls (%s): answered at once, each call refused or limited', async (n) => {
    const reply = await underAttack(`batch of ${n} full-range calls`, () =>
      mcp(Array.from({ length: n }, () => call(SERIES, FULL))),
    );
    expect(reply.status).toBe(200);
    const answers = JSON.parse(reply.text);
    expect(answers).toHaveLength(n);
    expect(answers.filter((a: any) => a.result?.isError)).toHaveLength(Math.min(n, LIMITS.batchToolCalls));
    expect(answers.filter((a: any) => a.error?.data?.limit === 'batchToolCalls')).toHaveLength(
      Math.max(0, n - LIMITS.batchToolCalls),
    );
    expect(reply.bytes).toBeLessThan(100_000);
    expect(reply.ms).toBeLessThan(5_000);
  });

  it(`a batch of 100 calls at the result limit: at most ${LIMITS.responseBytes / 2 ** 20} MiB answered, the rest told the limit`, async () => {
    const range = await fittingRange();
    const reply = await underAttack('batch of 100 calls at the result limit', () =>
      mcp(Array.from({ length: 100 }, () => call(SERIES, range))),
    );
    const answers = JSON.parse(reply.text);
    expect(answers).toHaveLength(100);
    expect(reply.bytes).toBeLessThanOrEqual(LIMITS.responseBytes);
    const full = answers.filter((a: any) => a.result && !a.result.isError).length;
    expect(full).toBeGreaterThan(0);
    expect(
      answers.filter((a: any) => a.error?.data?.limit === 'responseBytes').length +
        answers.filter((a: any) => a.error?.data?.limit === 'batchToolCalls').length,
    ).toBe(100 - full);
  });

  it('eight concurrent batches of 100 calls at the result limit, twice over: every batch answered, the server stays up', async () => {
    const range = await fittingRange();
    const replies = await underAttack('8 concurrent batches × 100 calls at the limit, twice', () =>
      parallel(8, async () => [
        await mcp(Array.from({ length: 100 }, () => call(SERIES, range))),
        await mcp(Array.from({ length: 100 }, () => call(SERIES, range))),
      ]),
    );
    for (const reply of replies.flat()) {
      expect(reply.status).toBe(200);
      expect(reply.bytes).toBeLessThanOrEqual(LIMITS.responseBytes);
      expect(JSON.parse(reply.text)).toHaveLength(100);
    }
  }, 120_000);

  it(`a batch of ${LIMITS.batchMessages + 1} messages: 400 at once`, async () => {
    const reply = await underAttack(`batch of ${LIMITS.batchMessages + 1} calls`, () =>
      mcp(Array.from({ length: LIMITS.batchMessages + 1 }, () => call(SERIES, FULL))),
    );
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text).error).toMatchObject({ code: -32600, data: { limit: 'batchMessages' } });
  });
});
