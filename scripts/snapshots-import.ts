/**
 * npm run snapshots:import -- <folder> --to <snapshot dir> [--force]
 * Imports a history in the earlier deployment's shape into the snapshot tree.
 */
import '../src/lib/node-support.ts'; // first: an unsupported Node stops here, saying so
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { importHistory, type ImportOutcome, unmatchedCorrections } from '../src/snapshots/import.ts';
import { describeCorrection } from '../src/snapshots/corrections.ts';

const USAGE = 'usage: npm run snapshots:import -- <folder> --to <snapshot dir> [--force]';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    to: { type: 'string' },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help || positionals.length !== 1) {
  console.error(USAGE);
  process.exit(values.help ? 0 : 2);
}
const from = resolve(positionals[0]!);
const to = resolve(values.to ?? process.env.SNAPSHOTS_DIR ?? 'snapshots');
if (!existsSync(from)) {
  console.error(`snapshots:import: ${from} does not exist\n${USAGE}`);
  process.exit(2);
}

console.log(`Importing ${from} → ${to}${values.force ? ' (--force: different snapshots are replaced)' : ''}`);
const interactive = process.stdout.isTTY;
const reports = await importHistory({
  from,
  to,
  force: values.force,
  onProgress(dataset, done, total) {
    if (interactive) process.stdout.write(`\r  ${dataset.slug}: ${done}/${total}`);
    if (done === total) {
      if (interactive) process.stdout.write('\n');
      else console.log(`  ${dataset.slug}: ${total} file(s) read`);
    }
  },
});

for (const report of reports) if (report.detail) console.error(`  ${report.outcome}: ${report.detail}`);
// A correction that fixed nothing is stale: say so, so that the table in src/snapshots/corrections.ts is looked at.
for (const correction of unmatchedCorrections(reports))
  console.error(`  warning: correction matched no file: ${describeCorrection(correction)} (${correction.evidence})`);
const corrected = reports.reduce((n, r) => n + (r.corrected?.length ?? 0), 0);
if (corrected) console.log(`Corrected ${corrected} known wrong value(s) (src/snapshots/corrections.ts).`);
const count = (outcome: ImportOutcome) => reports.filter((r) => r.outcome === outcome).length;
console.log(
  `Done: ${reports.length} file(s): ${count('written')} written, ${count('unchanged')} unchanged, ` +
    `${count('conflict')} conflict(s), ${count('invalid')} invalid.`,
);
process.exit(count('invalid') + count('conflict') > 0 ? 1 : 0);
