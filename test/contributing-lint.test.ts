/**
 * CONTRIBUTING.md says what `npm run lint` (`biome check .`) prints, clean and not, as Biome prints
 * it: run here on a clean file of the repository, and on a file with a problem in a folder of its
 * own holding the repository's Biome settings.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/constants.ts';
import { tempDir } from './support/history.ts';

const BIOME = join(ROOT, 'node_modules/.bin/biome');

async function biome(cwd: string, file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(BIOME, ['check', file], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

describe('npm run lint', () => {
  it('prints one summary line and exits 0 when clean; each problem with its place, the count, and 1 when not — as CONTRIBUTING says', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.lint).toBe('biome check .');

    const clean = await biome(ROOT, 'package.json');
    expect(clean.code).toBe(0);
    expect(clean.stdout.trim()).toMatch(/^Checked 1 file in \d+(\.\d+)?[mµ]?s\. No fixes applied\.$/);
    expect(clean.stderr).toBe('');

    // A folder of its own: Biome's settings as the repository has them, in a git checkout as Biome expects.
    const dir = await tempDir('rates-lint-');
    const settings = await readFile(join(ROOT, 'biome.jsonc'), 'utf8');
    await writeFile(join(dir, 'biome.jsonc'), settings.replace(/^\s*"\$schema".*\n/m, ''));
    await writeFile(join(dir, '.gitignore'), '');
    await promisify(execFile)('git', ['init', '-q', dir]);
    await writeFile(join(dir, 'probe.ts'), 'const unused = 1\n');
    const dirty = await biome(dir, 'probe.ts');
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toMatch(/probe\.ts:1:7 lint\//);
    expect(dirty.stdout).toMatch(/^Checked 1 file in .*\. No fixes applied\.\nFound 1 error\./);

    const contributing = (await readFile(join(ROOT, 'CONTRIBUTING.md'), 'utf8')).replace(/\s+/g, ' ');
    expect(contributing).toContain(
      '| `npm run lint` | Biome: lint and format check of every file (`biome.jsonc`). Clean, it prints one line, `Checked <n> files in <time>. No fixes applied.`, and exits 0; else it prints each problem with its file, line and column, then that line and `Found <n> errors.`, and exits 1 |',
    );
  });
});
