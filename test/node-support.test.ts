/**
 * An unsupported Node is refused at once, by every command and the server entry: one line naming
 * the version needed, exit code 1 — never a server that starts and then fails its clients (on
 * Node 20 every MCP request answered a misleading 400). The commands are run on the machine's own
 * Node where it is older than the oldest supported (Debian's here), as a user without the
 * `node` devDependency would.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OLDEST_NODE, unsupportedNode } from '../src/lib/node-support.ts';
import { ROOT } from './support/constants.ts';
import { OLD_NODE, oldNodeVersion } from './support/old-node.ts';

describe('the oldest Node', () => {
  it('is 22.12: older versions are refused with the version needed and the one found', () => {
    expect(OLDEST_NODE).toBe('22.12.0');
    expect(unsupportedNode('20.20.2')).toBe('needs Node 22.12 or newer; this is v20.20.2');
    expect(unsupportedNode('22.11.9')).toBe('needs Node 22.12 or newer; this is v22.11.9');
    expect(unsupportedNode('18.0.0')).toMatch(/^needs Node 22\.12 or newer/);
    for (const ok of ['22.12.0', '22.12.1', '22.20.0', '23.0.0', '24.21.0', '26.1.0', process.versions.node])
      expect(unsupportedNode(ok)).toBeNull();
  });
});

describe.skipIf(!existsSync(OLD_NODE) || !unsupportedNode(oldNodeVersion()))(
  `on the machine's own Node (${OLD_NODE})`,
  () => {
    const commands = [
      'collect',
      'hourly',
      'snapshots-import',
      'build-data',
      'build-api',
      'bench',
      'load',
      'fuzz-collect',
    ];
    it.each(commands)('scripts/%s.ts stops at once with one line and exit code 1', async (name) => {
      const run = promisify(execFile)(OLD_NODE, ['--import', 'tsx', `scripts/${name}.ts`], {
        cwd: ROOT,
        env: { ...process.env, SNAPSHOTS_DIR: '/nonexistent', INTEREST_BASE_URL: 'http://127.0.0.1:9' },
        timeout: 20_000,
      });
      const failed = await run.then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr).toBe(`needs Node 22.12 or newer; this is v${oldNodeVersion()}\n`);
    });
  },
);
