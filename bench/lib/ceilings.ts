/**
 * The bench's two ceilings, what our server's throughput is measured against: a minimal
 * node:http server writing our exact answer bytes from memory (what Node itself can do), once
 * with minimal headers (type, coding, length, cache-control, ETag, request id, CORS origin: the
 * floor's reference, issue 27) and once with every header we sent, and nginx sending them from disk. Each request kind is
 * captured from our server once per coding (none, and Accept-Encoding: br), then the servers are
 * driven in turn, in rounds of a second per row (ceilingRounds) with the order rotating each round, and each
 * ratio is the median of its rounds' ratios: on a shared 2-core machine a single run of a row
 * swings by a third, and the rounds' ratios, each taken within seconds, swing much less.
 * nginx is Debian's package: installed with apt-get when missing and we are root, else skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { freePort } from '../../test/support/free-port.ts';
import { answers, startServer } from '../../test/support/server-process.ts';
import { cpuMicros, fmt, median, spawnServer } from './harness.ts';

export interface CeilingScenario {
  name: string;
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /**
   * The floor (issue 27): ours at least this share of the minimal-headers Node ceiling's req/s, or
   * of the scenario named `relativeTo`'s own req/s in the same coding (MCP against the REST list).
   */
  floor?: { ratio: number; relativeTo?: string };
}

interface Captured {
  status: number;
  /** The minimal headers: type, coding, cache-control, ETag, request id and CORS origin (the length Node adds). */
  headers: Record<string, string>;
  /** Every header we sent but those Node's server writes itself (date, connection, framing). */
  all: Record<string, string>;
  body: Buffer;
}

/** What the minimal ceiling sends besides the type (and the length Node adds). */
const MINIMAL_HEADERS = ['content-encoding', 'cache-control', 'etag', 'x-request-id', 'access-control-allow-origin'];

const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function capture(url: string, s: CeilingScenario, headers: Record<string, string>): Promise<Captured> {
  return new Promise((done, fail) => {
    const req = request(
      `${url}${s.path}`,
      { method: s.method ?? 'GET', headers: { ...s.headers, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const kept: Record<string, string> = {
            'content-type': String(res.headers['content-type'] ?? 'application/json'),
          };
          for (const name of MINIMAL_HEADERS) if (res.headers[name]) kept[name] = String(res.headers[name]);
          const all: Record<string, string> = {};
          for (let h = 0; h < res.rawHeaders.length; h += 2) {
            const name = res.rawHeaders[h]!.toLowerCase();
            if (!WRITTEN_BY_NODE.has(name)) all[name] = res.rawHeaders[h + 1]!;
          }
          done({ status: res.statusCode!, headers: kept, all, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('error', fail).end(s.body);
  });
}

const NGINX = '/usr/sbin/nginx';

async function nginxBinary(): Promise<string | string> {
  if (existsSync(NGINX)) return NGINX;
  if (process.getuid?.() !== 0) return 'nginx is not installed and this is not root: its column is skipped';
  try {
    await promisify(execFile)('apt-get', ['install', '-y', 'nginx'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    return `apt-get install -y nginx failed (${(error as Error).message.split('\n')[0]}): its column is skipped`;
  }
  return existsSync(NGINX) ? NGINX : 'nginx was not found after installing it: its column is skipped';
}

/** nginx in the foreground, one worker (the Node servers are one thread each), files from `dir`. */
async function startNginx(dir: string): Promise<{ url: string; stop(): void } | string> {
  const binary = await nginxBinary();
  if (binary !== NGINX) return binary;
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000; etag off;
  client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp; uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  types { } default_type "application/json; charset=utf-8";
  server {
    listen 127.0.0.1:${port}; root ${dir};
    location ~ -br$ { add_header Content-Encoding br; }
  }
}
`,
  );
  await mkdir(join(dir, 'tmp'), { recursive: true });
  try {
    const nginx = await startServer(binary, ['-c', conf, '-p', dir], {
      port,
      env: process.env,
      ready: answers('/0-plain'),
      pollMs: 10,
      timeoutMs: 5_000,
      quiet: true,
    });
    return { url: nginx.url, stop: () => void nginx.stop('SIGQUIT') };
  } catch (error) {
    return `nginx did not start (${(error as Error).message.split('\n')[0]}): its column is skipped`;
  }
}

/**
 * Rounds per row: the row's duration in rounds of a second each, at least 3. Short rounds keep
 * the runs a ratio compares within seconds of each other, so a change in the machine's speed
 * (it moves between minutes here) falls on both; more of them make the median steadier.
 */
export const ceilingRounds = (duration: number) => Math.max(3, Math.round(duration));
const ROUND_SECONDS = 1;

/** One load run: requests per second, and the server's CPU per request where its pid is known. */
interface Run {
  rps: number;
  cpuPerRequest?: number;
}

/** A load run of one server (`pid`: its process, for its CPU time); `warm` runs a second first, unmeasured. */
async function rps(
  url: string,
  path: string,
  s: CeilingScenario,
  headers: Record<string, string>,
  connections: number,
  duration: number,
  warm: boolean,
  pid?: number,
): Promise<Run> {
  const options = {
    url: `${url}${path}`,
    method: s.method ?? 'GET',
    body: s.body,
    headers: { ...s.headers, ...headers },
    connections,
  };
  if (warm) await autocannon({ ...options, duration: 1 });
  const before = pid === undefined ? undefined : await cpuMicros(pid);
  const result = await autocannon({ ...options, duration });
  const after = pid === undefined ? undefined : await cpuMicros(pid);
  const cpuPerRequest =
    before === undefined || after === undefined || result.requests.total === 0
      ? undefined
      : (after - before) / result.requests.total;
  return { rps: result.requests.average, cpuPerRequest };
}

/**
 * The table rows: ours, the Node ceiling (the very same response bytes, headers included), nginx,
 * and the Node ceiling sending only type and coding, per request kind, without and with br.
 */
export async function ceilingTable(
  server: { url: string; pid: number },
  scenarios: CeilingScenario[],
  work: string,
  connections: number,
  duration: number,
): Promise<string[]> {
  const ours = server.url;
  const dir = join(work, 'ceilings');
  await mkdir(dir, { recursive: true });
  const codings = [
    { label: 'none', headers: {} as Record<string, string>, suffix: 'plain' },
    { label: 'br', headers: { 'accept-encoding': 'br' }, suffix: 'br' },
  ];
  const manifest: Record<string, { status: number; headers: Record<string, string> }> = {};
  const sizes = new Map<string, number>();
  for (const [i, s] of scenarios.entries()) {
    for (const c of codings) {
      const got = await capture(ours, s, c.headers);
      const name = `${i}-${c.suffix}`;
      await writeFile(join(dir, name), got.body);
      await writeFile(join(dir, `${name}-headers`), got.body);
      manifest[name] = { status: got.status, headers: got.headers };
      manifest[`${name}-headers`] = { status: got.status, headers: got.all };
      sizes.set(name, got.body.length);
    }
  }
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  const node = await spawnServer((port) => ['scripts/ceiling-server.mjs', dir, String(port)], {}, '/0-plain');
  const nginx = await startNginx(dir);
  const lines: string[] = [];
  try {
    lines.push(
      '| request | coding | bytes sent | ours req/s | Node ceiling req/s | nginx req/s | ours/Node | ours/nginx | Node ceiling, minimal headers req/s | ours/that | floor | ours CPU µs/req | Node ceiling CPU µs/req | ceiling CPU ÷ ours |',
    );
    lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |');
    /** Ours req/s per scenario and coding, for the floors relative to another row. */
    const oursOf = new Map<string, number>();
    let turn = 0;
    for (const [i, s] of scenarios.entries()) {
      for (const c of codings) {
        const name = `${i}-${c.suffix}`;
        const nginxServes = typeof nginx !== 'string' && (s.method ?? 'GET') === 'GET';
        const rounds = ceilingRounds(duration);
        const runs: [string, (warm: boolean) => Promise<Run>][] = [
          ['ours', (warm) => rps(ours, s.path, s, c.headers, connections, ROUND_SECONDS, warm, server.pid)],
          ['node', (warm) => rps(node.url, `/${name}`, { ...s, headers: {} }, {}, connections, ROUND_SECONDS, warm)],
          [
            'headers',
            (warm) =>
              rps(node.url, `/${name}-headers`, { ...s, headers: {} }, {}, connections, ROUND_SECONDS, warm, node.pid),
          ],
        ];
        if (nginxServes)
          runs.push([
            'nginx',
            (warm) =>
              rps(
                (nginx as { url: string }).url,
                `/${name}`,
                { name: s.name, path: '' },
                {},
                connections,
                ROUND_SECONDS,
                warm,
              ),
          ]);
        const results: Map<string, Run>[] = [];
        for (let round = 0; round < rounds; round++) {
          const result = new Map<string, Run>();
          // Interleaved: the order rotates, so no server always runs first (or last) on a warm machine.
          for (let k = 0; k < runs.length; k++) {
            const [who, run] = runs[(k + turn) % runs.length]!;
            console.error(`ceilings: ${s.name} (${c.label}) — ${who}, round ${round + 1} of ${rounds}…`);
            result.set(who, await run(round === 0));
          }
          turn++;
          results.push(result);
        }
        const of = (who: string) => (results[0]!.has(who) ? median(results.map((r) => r.get(who)!.rps)) : undefined);
        const ratio = (who: string) => median(results.map((r) => r.get('ours')!.rps / r.get(who)!.rps));
        // Server CPU per request: the steadier measure on a shared machine (the load generator's own CPU left out).
        const medianOfAll = (values: (number | undefined)[]) =>
          values.every((v) => v !== undefined) ? median(values as number[]) : undefined;
        const cpu = (who: string) => medianOfAll(results.map((r) => r.get(who)!.cpuPerRequest));
        const cpuRatio = medianOfAll(
          results.map((r) => {
            const [mine, theirs] = [r.get('ours')!.cpuPerRequest, r.get('headers')!.cpuPerRequest];
            return mine === undefined || theirs === undefined ? undefined : theirs / mine;
          }),
        );
        const o = of('ours')!;
        const n = of('node')!;
        const x = of('nginx');
        const h = of('headers')!;
        const [co, ch] = [cpu('ours'), cpu('headers')];
        const dash = (value: number | undefined, digits = 0) => (value === undefined ? '—' : fmt(value, digits));
        oursOf.set(`${s.name} ${c.label}`, o);
        let floor = '—';
        if (s.floor) {
          const base = s.floor.relativeTo ? oursOf.get(`${s.floor.relativeTo} ${c.label}`) : undefined;
          const share = s.floor.relativeTo ? (base === undefined ? undefined : o / base) : ratio('node');
          const of = s.floor.relativeTo ? `× ${s.floor.relativeTo}` : '';
          floor =
            share === undefined
              ? '—'
              : `≥ ${s.floor.ratio}${of}: ${fmt(share, 2)} ${share >= s.floor.ratio ? 'yes' : '**no**'}`;
        }
        lines.push(
          `| ${s.name} | ${c.label === 'br' ? `br${manifest[name]!.headers['content-encoding'] ? '' : ' asked, none sent'}` : 'none'} | ${fmt(sizes.get(name)!)} | ${fmt(o)} | ${fmt(h)} | ${dash(x)} | **${fmt(ratio('headers'), 2)}** | ${x === undefined ? '—' : fmt(ratio('nginx'), 2)} | ${fmt(n)} | ${fmt(ratio('node'), 2)} | ${floor} | ${dash(co)} | ${dash(ch)} | ${dash(cpuRatio, 2)} |`,
        );
      }
    }
  } finally {
    node.stop();
    if (typeof nginx !== 'string') nginx.stop();
  }
  if (typeof nginx === 'string') lines.push('', `nginx: ${nginx}.`);
  return lines;
}
