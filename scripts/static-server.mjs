// The benchmark's floor: a plain static file server (sirv) sending files from disk, in its own
// process like the server it is compared with. Usage: node scripts/static-server.mjs <dir> <port>
import { createServer } from 'node:http';
import sirv from 'sirv';

const [dir, port] = process.argv.slice(2);
const serve = sirv(dir, { dev: false, etag: true, gzip: false, brotli: false });
createServer((req, res) => serve(req, res, () => void res.writeHead(404).end())).listen(Number(port), '127.0.0.1', () =>
  console.log('ready'),
);
