/**
 * npx tsx scripts/bench-function.ts [--seconds 5]
 *
 * The Vercel section of `npm run bench` alone: Vercel's own build of the repository's history, its
 * API function loaded as Vercel's launcher loads it, beside `npm start` of the same history — cold
 * start, CPU per request, memory, and the goals (issue 27). Prints Markdown; writes nothing.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildSite, ROOT } from '../bench/lib/harness.ts';
import { vercelFunctionSection } from '../bench/lib/vercel-function.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
const snapshotsDir = resolve(ROOT, 'snapshots');
const real = await buildSite('bench-function', snapshotsDir);
const lines = await vercelFunctionSection({
  snapshotsDir,
  npmStartBuildDir: real.buildDir,
  seconds: Number(values.seconds),
  connections: 50,
});
console.log(lines.join('\n'));
