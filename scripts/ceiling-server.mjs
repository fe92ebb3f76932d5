// The benchmark's Node ceiling: a minimal node:http server writing, from memory, the exact status,
// type, coding and bytes our server sent (bench/lib/ceilings.ts writes them with a manifest).
// Usage: node scripts/ceiling-server.mjs <dir> <port>
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, port] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const answers = new Map();
for (const [name, { status, headers }] of Object.entries(manifest)) {
  const body = readFileSync(join(dir, name));
  answers.set(`/${name}`, { status, headers: { ...headers, 'content-length': String(body.length) }, body });
}
// With the option our server sets (src/server/node-server.ts): the runtime at its best, not at its defaults.
createServer({ optimizeEmptyRequests: true }, (req, res) => {
  const answer = answers.get(req.url);
  if (!answer) return void res.writeHead(404).end();
  res.writeHead(answer.status, answer.headers).end(answer.body);
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
